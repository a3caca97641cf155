"""In the pipeline: a generated page belongs to the job's partner, and a job never
writes over another partner's page (its slug taken while the job ran)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from backends.embedded.sqlite import SqliteDatabase
from domain.editors import Editor
from schemas.content.jobs import GenerationBrief, JobRecord
from tests.e2e.sample_page import store_page
from tests.workers.generation_ports import NOW, embedded_ports
from workers.authoring.template import TemplateWriter
from workers.generation_handler import handle_generation
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


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def upgraded(
    request: pytest.FixtureRequest, tmp_path: Path
) -> tuple[GenerationPorts, Callable[[dict[str, Any]], object]]:
    """Generation ports on the job store a backend keeps, and a way to put a job document
    into it as an older version wrote it."""
    db = SqliteDatabase(tmp_path / "db.sqlite3")
    ports = embedded_ports(db, tmp_path, author=TemplateWriter())
    if request.param == "sqlite":

        def put(doc: dict[str, Any]) -> None:
            with db.transaction() as conn:
                conn.execute(
                    "INSERT INTO generation_jobs VALUES (?, ?)", (doc["id"], json.dumps(doc))
                )

        return ports, put
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.firestore import firestore_client
    from backends.gcp.jobs import FirestoreJobStore

    prefix = f"t{uuid.uuid4().hex[:10]}_"
    client = firestore_client(project="demo-frontdoor")
    collection = client.collection(f"{prefix}generation_jobs")
    return (
        replace(ports, jobs=FirestoreJobStore(client, prefix=prefix)),
        lambda doc: collection.document(doc["id"]).set(doc),
    )


def test_a_job_queued_before_the_editor_was_kept_whole_is_written_as_its_editor(
    upgraded: tuple[GenerationPorts, Callable[[dict[str, Any]], object]],
) -> None:
    """A job and its queue message left by the version before the upgrade (partner, key id
    and admin flag kept apart on the job) run after it: the admin's page is written over
    another partner's, as that key."""
    ports, put = upgraded
    store_page(ports.pages, "launch", owner="acme")
    put(
        {
            "id": "job-queued-before",
            "partner": "ops",
            "key_id": "key-ops",
            "admin": True,
            "brief": {"slug": "launch", "topic": "A pipeline audit", "icp": "heads of growth"},
            "status": "queued",
            "created_at": NOW.isoformat(),
            "updated_at": NOW.isoformat(),
        }
    )

    handle_generation(b'{"job_id":"job-queued-before"}', ports=ports, worker="w1", lease=LEASE)

    job = ports.jobs.get_job("job-queued-before")
    page = ports.pages.get_page("launch")
    assert job is not None
    assert job.status == "succeeded"
    assert page is not None
    assert page.version == 2  # written over acme's page, which stays acme's
    assert (page.owner, page.editor, page.editor_key_id) == ("acme", "ops", "key-ops")
