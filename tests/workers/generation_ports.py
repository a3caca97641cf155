"""Generation ports on embedded adapters in a temporary folder, with the writer a test picks,
and a queued job to run on them."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from backends.content_files import load_catalog
from backends.embedded.blobs import LocalBlobStore
from backends.embedded.jobs import SqliteJobStore
from backends.embedded.pages import SqlitePageStore
from backends.embedded.sqlite import SqliteDatabase
from backends.embedded.variants import SqliteVariantStore
from domain.editors import Editor
from frontdoor.settings import Settings
from gate.check import check_page, ruleset
from schemas.content.jobs import GenerationBrief, JobRecord
from workers.authoring.base import Author
from workers.authoring.pricing import company_terms
from workers.imaging.procedural import ProceduralImager
from workers.pipeline import GenerationPorts

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
CATALOG = load_catalog(Settings().content_dir)
TERMS = company_terms(CATALOG.company)  # the company's prices, which a pricing section states


def embedded_ports(db: SqliteDatabase, folder: Path, *, author: Author) -> GenerationPorts:
    brand = CATALOG.brand
    return GenerationPorts(
        jobs=SqliteJobStore(db),
        pages=SqlitePageStore(db),
        variants=SqliteVariantStore(db),
        blobs=LocalBlobStore(folder / "assets", base_url="http://testserver/assets"),
        author=author,
        imager=ProceduralImager(),
        brand=brand,
        company=CATALOG.company,
        gate=lambda payload, brief: check_page(payload, brand=brand, brief=brief, published=TERMS),
        ruleset=ruleset(brand),
        clock=lambda: NOW,
    )


def queued_job(
    job_id: str, brief: GenerationBrief, *, partner: str = "acme", now: datetime = NOW
) -> JobRecord:
    """A job for `brief` as POST generate records it, from a key of `partner` (no key id)."""
    return JobRecord(
        id=job_id,
        editor=Editor(partner=partner, key_id=""),
        brief=brief,
        created_at=now,
        updated_at=now,
    )
