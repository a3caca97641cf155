"""The generation pipeline's variants: each written, gated and stored once, across deliveries."""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from backends.embedded.sqlite import SqliteDatabase
from domain.editors import Editor
from schemas.catalog import Brand
from schemas.content.jobs import GenerationBrief, JobRecord
from schemas.errors import Issue
from schemas.public import Company
from tests.workers.generation_ports import NOW, embedded_ports
from workers import steps
from workers.authoring.template import TemplateWriter
from workers.pipeline import GenerationPorts, run_generation

LEASE = timedelta(seconds=60)
BRIEF = {
    "slug": "pipeline-audit",
    "topic": "A pipeline audit",
    "icp": "RevOps leads",
    "offer": "A two-week review of tracking and funnel conversion. You keep the written plan.",
    "variants": 3,
}


class WorkerDiedError(Exception):
    """Stands for the process dying in the middle of a writer call."""


class AngledCountingWriter:
    """The template writer at an angle, recording each call's angle; `die_at` dies once."""

    def __init__(self, *, angle: int = 0, calls: list[int] | None = None, die_at: int = -1) -> None:
        self.angle = angle
        self.calls = [] if calls is None else calls
        self.die_at = die_at
        self._lock = threading.Lock()

    def at_angle(self, angle: int) -> AngledCountingWriter:
        writer = AngledCountingWriter(angle=angle, calls=self.calls, die_at=self.die_at)
        writer._lock = self._lock
        return writer

    def write(
        self,
        brief: GenerationBrief,
        *,
        brand: Brand,
        company: Company,
        feedback: list[Issue] | None,
    ) -> dict[str, Any]:
        with self._lock:
            self.calls.append(self.angle)
            dies = self.angle == self.die_at and self.calls.count(self.angle) == 1
        if dies:
            raise WorkerDiedError(f"angle {self.angle}")
        writer = TemplateWriter(angle=self.angle)
        return writer.write(brief, brand=brand, company=company, feedback=feedback)


@pytest.fixture
def db(tmp_path: Path) -> SqliteDatabase:
    return SqliteDatabase(tmp_path / "db.sqlite3")


def new_job(ports: GenerationPorts) -> JobRecord:
    job = JobRecord(
        id="job-variants",
        editor=Editor(partner="acme", key_id=""),
        brief=GenerationBrief.model_validate(BRIEF),
        created_at=NOW,
        updated_at=NOW,
    )
    ports.jobs.create_job(job)
    return job


@pytest.mark.spec("content.generate")
def test_a_redelivery_after_a_death_mid_variant_resumes_without_rewriting_what_was_stored(
    db: SqliteDatabase, tmp_path: Path
) -> None:
    """A worker died writing variant c: the next delivery keeps the page and variant b as
    stored (no writer call, no new version) and writes c with the budget it has left."""
    writer = AngledCountingWriter(die_at=2)
    ports = embedded_ports(db, tmp_path, author=writer)
    job = new_job(ports)
    with pytest.raises(WorkerDiedError):
        run_generation(job.id, ports=ports, worker="dead", lease=LEASE)
    later = replace(ports, clock=lambda: NOW + LEASE + timedelta(seconds=1))

    done = run_generation(job.id, ports=later, worker="w2", lease=LEASE)

    assert done.status == "succeeded"
    assert writer.calls == [0, 1, 2, 2]
    assert [(v.id, v.status, v.writer_calls) for v in done.variants] == [
        ("b", "written", 1),
        ("c", "written", 2),
    ]
    stored = ports.variants.list_variants("pipeline-audit")
    assert [(v.variant_id, v.version) for v in stored] == [("b", 1), ("c", 1)]


@pytest.mark.spec("content.generate")
def test_an_author_that_writes_no_angles_fails_the_variants_and_keeps_the_page(
    db: SqliteDatabase, tmp_path: Path
) -> None:
    """An author without `at_angle` cannot write a variant: each is `failed` with
    `not_supported`, nothing is stored for it, and the page is written."""
    ports = embedded_ports(db, tmp_path, author=TemplateWriter())
    plain = replace(ports, author=_Unangled())
    job = new_job(plain)

    done = run_generation(job.id, ports=plain, worker="w", lease=LEASE)

    assert done.status == "succeeded"
    assert done.page_stored
    assert [(v.id, v.status, v.error.code if v.error else None) for v in done.variants] == [
        ("b", "failed", "not_supported"),
        ("c", "failed", "not_supported"),
    ]
    assert ports.variants.list_variants("pipeline-audit") == ()


class _Unangled:
    """An author of the page alone (the Author port without AngledAuthor)."""

    def write(
        self,
        brief: GenerationBrief,
        *,
        brand: Brand,
        company: Company,
        feedback: list[Issue] | None,
    ) -> dict[str, Any]:
        return TemplateWriter().write(brief, brand=brand, company=company, feedback=feedback)


def test_a_variant_gets_two_writer_calls_and_no_third() -> None:
    """Each variant has the page's budget: a draft and the gate's one retry."""
    job = JobRecord(
        id="j",
        editor=Editor(partner="acme", key_id=""),
        brief=GenerationBrief.model_validate(BRIEF),
        created_at=NOW,
        updated_at=NOW,
    )
    job = steps.start_attempt(job, worker="w", now=NOW, lease=LEASE)
    for _ in range(2):
        job = steps.claim_variant_call(job, "b", 1, worker="w", now=NOW)

    with pytest.raises(steps.WriterBudgetSpentError):
        steps.claim_variant_call(job, "b", 1, worker="w", now=NOW)
    claimed = steps.claim_variant_call(job, "c", 2, worker="w", now=NOW)

    assert [(v.id, v.writer_calls) for v in claimed.variants] == [("b", 2), ("c", 1)]
