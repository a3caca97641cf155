"""A generated page's schedule is its editor's: the writer is not offered `publish_at` or
`unpublish_at`, and a writer that sends them anyway does not schedule the page (the brief's
`publish` decides whether it goes live)."""

from __future__ import annotations

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
from workers.authoring.prompt import page_schema
from workers.authoring.template import TemplateWriter
from workers.pipeline import run_generation

pytestmark = pytest.mark.spec("content.schedule")


class SchedulingWriter:
    """The template writer, adding a schedule to every page it writes."""

    def write(
        self,
        brief: GenerationBrief,
        *,
        brand: Brand,
        company: Company,
        feedback: list[Issue] | None,
    ) -> dict[str, Any]:
        page = TemplateWriter().write(brief, brand=brand, company=company, feedback=feedback)
        return {
            **page,
            "publish_at": "2030-01-06T09:00:00Z",
            "unpublish_at": "2030-02-01T09:00:00Z",
        }


def test_the_writers_schema_offers_no_schedule_fields() -> None:
    """Content API "Scheduled publishing": only an editor schedules a page."""
    properties = page_schema()["properties"]

    assert "publish_at" not in properties
    assert "unpublish_at" not in properties
    assert "is_published" in properties


@pytest.mark.parametrize(("publish", "status"), [(False, "draft"), (True, "published")])
def test_a_schedule_the_writer_sends_is_dropped_and_the_brief_decides(
    tmp_path: Path, publish: bool, status: str
) -> None:
    """Content API "Scheduled publishing": a generated page is never scheduled by its writer."""
    ports = embedded_ports(
        SqliteDatabase(tmp_path / "db.sqlite3"), tmp_path, author=SchedulingWriter()
    )
    brief = {"slug": "pipeline-audit", "topic": "A pipeline audit", "icp": "RevOps leads"}
    job = JobRecord(
        id="job-schedule",
        editor=Editor(partner="acme", key_id=""),
        brief=GenerationBrief.model_validate({**brief, "publish": publish}),
        created_at=NOW,
        updated_at=NOW,
    )
    ports.jobs.create_job(job)

    done = run_generation(job.id, ports=ports, worker="w1", lease=timedelta(seconds=60))

    page = ports.pages.get_page("pipeline-audit")
    assert done.status == "succeeded"
    assert page is not None
    assert page.status == status
    assert "publish_at" not in page.page_input
    assert "unpublish_at" not in page.page_input
