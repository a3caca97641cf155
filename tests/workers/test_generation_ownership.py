"""In the pipeline: a generated page belongs to the job's partner, and a job never
writes over another partner's page (its slug taken while the job ran)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from backends.embedded.sqlite import SqliteDatabase
from domain.editors import Editor
from schemas.content.jobs import GenerationBrief, JobRecord
from tests.e2e.sample_page import store_page
from tests.workers.generation_ports import NOW, embedded_ports
from workers.authoring.template import TemplateWriter
from workers.pipeline import GenerationPorts, run_generation

pytestmark = pytest.mark.spec("content.ownership")

LEASE = timedelta(seconds=60)


@pytest.fixture
def ports(tmp_path: Path) -> GenerationPorts:
    return embedded_ports(
        SqliteDatabase(tmp_path / "db.sqlite3"), tmp_path, author=TemplateWriter()
    )


def submit(ports: GenerationPorts, *, partner: str, admin: bool = False) -> JobRecord:
    brief = GenerationBrief(slug="launch", topic="A pipeline audit", icp="heads of growth")
    job = JobRecord(
        id=f"job-{partner}",
        editor=Editor(partner=partner, key_id=f"key-{partner}", admin=admin),
        brief=brief,
        created_at=NOW,
        updated_at=NOW,
    )
    ports.jobs.create_job(job)
    return job


def test_a_generated_page_belongs_to_the_jobs_partner_as_version_by_generate(
    ports: GenerationPorts,
) -> None:
    """The stored page's owner and writer are the job's partner and key."""
    job = submit(ports, partner="acme")

    done = run_generation(job.id, ports=ports, worker="w1", lease=LEASE)

    page = ports.pages.get_page("launch")
    assert done.status == "succeeded"
    assert page is not None
    assert (page.owner, page.editor, page.editor_key_id, page.edit_source) == (
        "acme",
        "acme",
        "key-acme",
        "generate",
    )
    assert page.hero_image_url is not None
    assert [v.version for v in ports.pages.list_versions("launch").versions] == [1]


def test_a_job_whose_slug_another_partner_took_fails_and_leaves_their_page(
    ports: GenerationPorts,
) -> None:
    """The slug was free when the brief came in; another partner took it meanwhile."""
    job = submit(ports, partner="bravo")
    theirs = store_page(ports.pages, "launch", owner="acme", title="Acme's own")

    done = run_generation(job.id, ports=ports, worker="w1", lease=LEASE)

    assert done.status == "failed"
    assert done.error is not None
    assert done.error.code == "slug_taken"
    assert ports.pages.get_page("launch") == theirs


def test_an_admin_job_writes_over_any_page_and_the_owner_stays(ports: GenerationPorts) -> None:
    """A job from a content_admin key (or the operator CLI) may rewrite any page."""
    job = submit(ports, partner="ops", admin=True)
    store_page(ports.pages, "launch", owner="acme")

    done = run_generation(job.id, ports=ports, worker="w1", lease=LEASE)

    page = ports.pages.get_page("launch")
    assert done.status == "succeeded"
    assert page is not None
    assert (page.version, page.owner, page.editor) == (2, "acme", "ops")


def test_a_job_finding_the_same_page_another_partner_generated_fails_and_leaves_it(
    ports: GenerationPorts,
) -> None:
    """Two partners send the same brief at once (both slugs free when they came in);
    the writer is deterministic, so the second job's draft equals the first one's stored page.
    The second job fails `slug_taken`: it never reports the other partner's page as its own."""
    first = submit(ports, partner="acme")
    second = submit(ports, partner="bravo")
    run_generation(first.id, ports=ports, worker="w1", lease=LEASE)
    theirs = ports.pages.get_page("launch")

    done = run_generation(second.id, ports=ports, worker="w2", lease=LEASE)

    assert done.status == "failed"
    assert done.error is not None
    assert done.error.code == "slug_taken"
    assert done.page_slug is None
    assert ports.pages.get_page("launch") == theirs
