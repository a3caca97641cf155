"""The generation worker and pipeline: each step once, the gate's one retry, ack or raise."""

from __future__ import annotations

import base64
import json
import threading
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import functions_framework
import pytest
from cloudevents.http import CloudEvent
from flask.testing import FlaskClient

from backends.embedded.jobs import SqliteJobStore
from backends.embedded.pages import SqlitePageStore
from backends.embedded.sqlite import SqliteDatabase
from backends.gcp.cdn import CloudCdn
from backends.ports import Blob, UnavailableError
from domain.editors import Editor
from frontdoor.functions import pubsub_message
from schemas.catalog import Brand
from schemas.content.jobs import GenerationBrief, JobRecord
from schemas.errors import Issue
from schemas.public import Company
from services.page_changes import PageChanges
from tests.backends.test_gcp_edges import ComputeWire
from tests.workers.generation_ports import NOW, embedded_ports
from workers import steps
from workers.authoring.template import TemplateWriter
from workers.generation_handler import handle_dead_letter, handle_generation
from workers.pipeline import GenerationPorts, run_generation

LEASE = timedelta(seconds=60)


class CountingWriter:
    """The template writer, counting its calls; the first `bad` answers name no ICP."""

    def __init__(self, bad: int = 0) -> None:
        self.calls: list[list[Issue] | None] = []
        self.bad = bad
        self._lock = threading.Lock()

    def write(
        self,
        brief: GenerationBrief,
        *,
        brand: Brand,
        company: Company,
        feedback: list[Issue] | None,
    ) -> dict[str, Any]:
        with self._lock:
            self.calls.append(feedback)
            spoil = len(self.calls) <= self.bad
        page = TemplateWriter().write(brief, brand=brand, company=company, feedback=feedback)
        if spoil:
            page["blocks"][0]["sub"] = "Pages that help."
        return page


class DownBlobStore:
    """A blob store whose backend is down: every write is UnavailableError."""

    def put_blob(self, name: str, blob: Blob) -> str:
        raise UnavailableError("storage down")

    def get_blob(self, name: str) -> Blob | None:
        return None


@pytest.fixture
def ports(tmp_path: Path) -> GenerationPorts:
    return embedded_ports(
        SqliteDatabase(tmp_path / "db.sqlite3"), tmp_path, author=CountingWriter()
    )


def new_job(ports: GenerationPorts, **brief: Any) -> JobRecord:
    fields = {"slug": "pipeline-audit", "topic": "A pipeline audit", "icp": "RevOps leads", **brief}
    job = JobRecord(
        id=f"job-{len(str(brief))}-{fields['slug']}",
        editor=Editor(partner="acme", key_id=""),
        brief=GenerationBrief.model_validate(fields),
        created_at=NOW,
        updated_at=NOW,
    )
    ports.jobs.create_job(job)
    return job


def message(job_id: str) -> bytes:
    return json.dumps({"job_id": job_id}).encode()


@pytest.mark.spec("content.generate")
def test_a_job_runs_author_hero_gate_and_store_once(ports: GenerationPorts) -> None:
    """DESIGN Generation: author, hero image, gate, store; a draft by default."""
    job = new_job(ports)

    done = run_generation(job.id, ports=ports, worker="w1", lease=LEASE)

    page = ports.pages.get_page("pipeline-audit")
    assert done.status == "succeeded"
    assert done.writer_calls == 1
    assert page is not None
    assert page.status == "draft"
    assert page.source == "generate"
    assert page.hero_image_url == done.hero_image_url
    assert done.hero_image_url
    assert done.hero_image_url.endswith("-1200x630.png")


@pytest.mark.spec("content.generate")
def test_a_page_whose_cdn_purge_is_refused_still_finishes_its_job_once(
    ports: GenerationPorts,
) -> None:
    """The page is stored before the purge: a purge Cloud CDN refuses (503 from
    urlMaps.invalidateCache) is logged and the job succeeds, so no redelivery stores it twice."""
    refusing = ComputeWire(status=503)
    try:
        cdn = CloudCdn(project="demo-frontdoor", url_map="frontdoor", client=refusing.client())
        with_cdn = replace(ports, page_changed=PageChanges(cdn))
        job = new_job(with_cdn)

        done = run_generation(job.id, ports=with_cdn, worker="w1", lease=LEASE)
    finally:
        refusing.close()

    page = ports.pages.get_page("pipeline-audit")
    assert refusing.requests, "the purge reached the CDN API"
    assert done.status == "succeeded"
    assert page is not None
    assert page.version == 1


@pytest.mark.spec("content.generate")
def test_the_gate_retry_feeds_the_first_drafts_issues_to_the_writer(ports: GenerationPorts) -> None:
    """SPEC Generation flow: on failure the writer is called once more with the failures."""
    writer = CountingWriter(bad=1)
    ports = replace(ports, author=writer)
    job = new_job(ports)

    done = run_generation(job.id, ports=ports, worker="w1", lease=LEASE)

    assert done.status == "succeeded"
    assert writer.calls[0] is None
    assert {(i.field, i.code) for i in writer.calls[1] or []} >= {("blocks.0.sub", "icp_missing")}


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("tone", ["whimsical", "  like a pirate  "])
def test_a_tone_naming_none_of_the_voices_is_written_direct_with_a_note_naming_it(
    ports: GenerationPorts, tone: str
) -> None:
    """content-api.md: a tone the built-in writer does not know gets the direct voice, noted."""
    ports = replace(ports, author=TemplateWriter())
    job = new_job(ports, tone=tone)

    done = run_generation(job.id, ports=ports, worker="w1", lease=LEASE)

    assert done.status == "succeeded"
    assert [(n.code, n.message) for n in done.notes if n.field == "tone"] == [
        (
            "not_used",
            f"tone {tone.strip()!r} names none of the voices (direct, warm, formal); "
            "written in the direct voice",
        )
    ]


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("tone", [None, "", "warm and friendly", "formal, for executives", "blunt"])
def test_no_tone_or_one_naming_a_voice_gets_no_tone_note(
    ports: GenerationPorts, tone: str | None
) -> None:
    """The default voice and a recognised one are what the brief asked for: nothing to note."""
    ports = replace(ports, author=TemplateWriter())
    job = new_job(ports, tone=tone)

    done = run_generation(job.id, ports=ports, worker="w1", lease=LEASE)

    assert done.status == "succeeded"
    assert [n for n in done.notes if n.field == "tone"] == []


@pytest.mark.spec("content.generate")
def test_an_author_that_reads_the_tone_itself_adds_no_tone_note(ports: GenerationPorts) -> None:
    """A model writes in whatever tone the brief names, so only the built-in writer notes one."""
    job = new_job(ports, tone="whimsical")

    done = run_generation(job.id, ports=ports, worker="w1", lease=LEASE)

    assert done.status == "succeeded"
    assert [n for n in done.notes if n.field == "tone"] == []


@pytest.mark.spec("content.generate")
def test_two_failed_drafts_fail_the_job_with_the_last_issues(ports: GenerationPorts) -> None:
    """SPEC Generation flow: a second failure yields the issues (422 over HTTP)."""
    ports = replace(ports, author=CountingWriter(bad=2))
    job = new_job(ports)

    done = run_generation(job.id, ports=ports, worker="w1", lease=LEASE)

    assert done.status == "failed"
    assert done.error is not None
    assert done.error.code == "invalid_payload"
    assert ("blocks.0.sub", "icp_missing") in {(i.field, i.code) for i in done.issues}
    assert ports.pages.get_page("pipeline-audit") is None


@pytest.mark.spec("content.generate")
def test_three_deliveries_of_one_message_make_one_page_and_one_writer_call(
    ports: GenerationPorts,
) -> None:
    """DESIGN: a duplicate delivery never runs a finished step twice."""
    writer = CountingWriter()
    ports = replace(ports, author=writer)
    job = new_job(ports)

    for _ in range(3):
        handle_generation(message(job.id), ports=ports, worker="w1", lease=LEASE)

    stored = ports.pages.get_page("pipeline-audit")
    assert len(writer.calls) == 1
    assert stored is not None
    assert stored.version == 1


@pytest.mark.spec("content.generate")
def test_concurrent_deliveries_of_one_message_call_the_writer_at_most_twice(
    ports: GenerationPorts,
) -> None:
    """DESIGN: at most two writer calls per job, however often Pub/Sub delivers."""
    writer = CountingWriter()
    ports = replace(ports, author=writer)
    job = new_job(ports)
    errors: list[BaseException] = []

    def deliver(worker: str) -> None:
        try:
            handle_generation(message(job.id), ports=ports, worker=worker, lease=LEASE)
        except steps.JobBusyError as err:  # the queue would deliver it again later
            errors.append(err)

    threads = [threading.Thread(target=deliver, args=(f"w{i}",)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    handle_generation(message(job.id), ports=ports, worker="late", lease=LEASE)

    assert len(writer.calls) <= 2
    assert ports.jobs.get_job(job.id).status == "succeeded"  # type: ignore[union-attr]


@pytest.mark.spec("content.generate")
def test_a_redelivery_after_a_crash_resumes_with_the_writer_budget_left(
    ports: GenerationPorts,
) -> None:
    """A worker died after claiming a writer call: the next one uses the last call and stores."""
    writer = CountingWriter()
    ports = replace(ports, author=writer)
    job = new_job(ports)
    ports.jobs.update_job(
        job.id, lambda j: steps.start_attempt(j, worker="dead", now=NOW, lease=LEASE)
    )
    ports.jobs.update_job(job.id, lambda j: steps.claim_writer_call(j, worker="dead", now=NOW))
    later = replace(ports, clock=lambda: NOW + LEASE + timedelta(seconds=1))

    handle_generation(message(job.id), ports=later, worker="w2", lease=LEASE)

    done = ports.jobs.get_job(job.id)
    assert done is not None
    assert done.status == "succeeded"
    assert done.writer_calls == 2
    assert len(writer.calls) == 1
    assert done.attempts == 2


@pytest.mark.spec("content.generate")
def test_a_job_held_by_a_live_worker_is_delivered_again_later(ports: GenerationPorts) -> None:
    """A second delivery while the first runs raises, so Pub/Sub redelivers it."""
    job = new_job(ports)
    ports.jobs.update_job(
        job.id, lambda j: steps.start_attempt(j, worker="w1", now=NOW, lease=LEASE)
    )

    with pytest.raises(steps.JobBusyError):
        handle_generation(message(job.id), ports=ports, worker="w2", lease=LEASE)


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("body", [b"not json", b"{}", b'{"job_id": 7}', b'{"job_id": "unknown"}'])
def test_a_malformed_or_unknown_message_is_acked(ports: GenerationPorts, body: bytes) -> None:
    """STYLE Errors: a malformed message is logged and acked (returns), never retried."""
    handle_generation(body, ports=ports, worker="w1", lease=LEASE)


@pytest.mark.spec("content.generate")
def test_a_transient_failure_raises_until_the_last_delivery_marks_the_job_failed(
    ports: GenerationPorts,
) -> None:
    """A backend outage raises (redelivery); on the final attempt the job fails instead."""
    ports = replace(ports, blobs=DownBlobStore())
    job = new_job(ports)

    with pytest.raises(UnavailableError):
        handle_generation(
            message(job.id), ports=ports, worker="w1", lease=LEASE, delivery_attempt=1
        )
    handle_generation(message(job.id), ports=ports, worker="w1", lease=LEASE, delivery_attempt=5)

    failed = ports.jobs.get_job(job.id)
    assert failed is not None
    assert failed.status == "failed"
    assert failed.error is not None
    assert failed.error.code == "worker_failed"
    assert failed.writer_calls == 1


@pytest.mark.spec("content.generate")
def test_a_dead_lettered_message_fails_its_job(ports: GenerationPorts) -> None:
    """DESIGN: after the last attempt the job lands on the dead letter topic and is failed."""
    job = new_job(ports)

    handle_dead_letter(message(job.id), ports=ports)

    assert ports.jobs.get_job(job.id).status == "failed"  # type: ignore[union-attr]


# --- through the functions-framework target, with a real push envelope --------------------


@pytest.fixture
def worker_client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FlaskClient:
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PUBLIC_BASE_URL", "http://testserver")
    app = functions_framework.create_app(  # type: ignore[no-untyped-call]  # untyped package
        target="generate_page", source="frontdoor/functions.py", signature_type="cloudevent"
    )
    client: FlaskClient = app.test_client()
    return client


def push(job_id: str | None, *, raw: bytes | None = None) -> dict[str, Any]:
    data = raw if raw is not None else message(job_id or "")
    return {
        "subscription": "projects/demo/subscriptions/generation",
        "message": {
            "data": base64.b64encode(data).decode(),
            "attributes": {"kind": "generation"},
            "messageId": "1",
            "publishTime": "2026-11-22T09:00:00Z",
        },
    }


def pushed_event(envelope: dict[str, Any]) -> CloudEvent:
    attributes = {
        "type": "google.cloud.pubsub.topic.v1.messagePublished",
        "source": "//pubsub.googleapis.com/projects/demo/topics/generation",
    }
    return CloudEvent(attributes, envelope)


@pytest.mark.parametrize(
    ("attempt", "expected"),
    [
        (5, 5),
        ("5", 5),
        ("12", 12),
        (2**31 - 1, 2**31 - 1),
        (None, None),
        ("", None),
        ("\uff15", None),  # FULLWIDTH DIGIT FIVE: str.isdigit() says yes
        ("\u0663", None),  # ARABIC-INDIC DIGIT THREE
        ("\u00b2", None),  # SUPERSCRIPT TWO: isdigit() yet int() refuses it
        ("-1", None),
        (-1, None),
        (True, None),
        (5.0, None),
        (" 5", None),
        ("5\n", None),
        ("1" * 5000, None),
        (2**31, None),
    ],
)
def test_the_delivery_attempt_is_read_only_from_a_count_in_ascii_digits(
    attempt: object, expected: int | None
) -> None:
    """Pub/Sub's deliveryAttempt is an int32: a JSON number or ASCII digits, nothing else."""
    on_top = push("job-1") | {"deliveryAttempt": attempt}
    inside = push("job-1")
    inside["message"]["deliveryAttempt"] = attempt

    for envelope in (on_top, inside):
        body, read = pubsub_message(pushed_event(envelope))

        assert body == message("job-1")
        assert read == expected


@pytest.mark.spec("content.generate")
def test_the_function_target_acks_a_malformed_push_with_2xx(worker_client: FlaskClient) -> None:
    """A push whose message is not a job is acked (2xx), so Pub/Sub stops sending it."""
    response = worker_client.post("/", json=push(None, raw=b"garbage"))

    assert 200 <= response.status_code < 300


@pytest.mark.spec("content.generate")
def test_the_function_target_runs_a_pushed_job_to_a_stored_page(
    worker_client: FlaskClient, tmp_path: Path
) -> None:
    """functions-framework + a Pub/Sub push envelope: the job succeeds, its page is stored."""
    db = SqliteDatabase(tmp_path / "data" / "frontdoor.sqlite3")
    jobs, pages = SqliteJobStore(db), SqlitePageStore(db)
    job = JobRecord(
        id="pushed-job",
        editor=Editor(partner="acme", key_id=""),
        brief=GenerationBrief(slug="pushed", topic="A pushed page", icp="RevOps leads"),
        created_at=NOW,
        updated_at=NOW,
    )
    jobs.create_job(job)

    response = worker_client.post("/", json=push(job.id))

    assert 200 <= response.status_code < 300
    assert jobs.get_job(job.id).status == "succeeded"  # type: ignore[union-attr]
    assert pages.get_page("pushed") is not None


@pytest.mark.spec("content.generate")
def test_the_dead_letter_target_fails_the_pushed_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A push from the dead-letter subscription marks its job failed (`worker_failed`)."""
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    app = functions_framework.create_app(  # type: ignore[no-untyped-call]  # untyped package
        target="generation_dead_letter",
        source="frontdoor/functions.py",
        signature_type="cloudevent",
    )
    jobs = SqliteJobStore(SqliteDatabase(tmp_path / "data" / "frontdoor.sqlite3"))
    jobs.create_job(
        JobRecord(
            id="dead-job",
            editor=Editor(partner="acme", key_id=""),
            brief=GenerationBrief(slug="dead", topic="A dead page", icp="RevOps leads"),
            created_at=NOW,
            updated_at=NOW,
        )
    )

    response = app.test_client().post("/", json=push("dead-job"))

    failed = jobs.get_job("dead-job")
    assert 200 <= response.status_code < 300
    assert failed is not None
    assert failed.status == "failed"
    assert failed.error is not None
    assert failed.error.code == "worker_failed"
