"""Contract suite for JobStore and JobQueue: SQLite and threads, Firestore and Pub/Sub emulators."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from backends.embedded.job_queue import DurableJobQueue
from backends.embedded.jobs import SqliteJobStore
from backends.embedded.queue_table import QueueTable, queue_database
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import ConflictError, JobStore, NotFoundError
from domain.editors import Editor
from schemas.content.jobs import GenerationBrief, JobError, JobRecord
from tests.polling import wait_for
from workers import steps
from workers.lease_keeper import keep_job_lease

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
PROJECT = "demo-frontdoor"


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[JobStore]:
    if request.param == "sqlite":
        yield SqliteJobStore(SqliteDatabase(tmp_path / "jobs.sqlite3"))
        return
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.firestore import firestore_client
    from backends.gcp.jobs import FirestoreJobStore

    prefix = f"t{uuid.uuid4().hex[:10]}_"
    yield FirestoreJobStore(firestore_client(project=PROJECT), prefix=prefix)


@dataclass(frozen=True)
class RawJobs:
    """A job store and its documents as they lie in it: what an older version wrote."""

    store: JobStore
    put: Callable[[dict[str, Any]], object]
    doc: Callable[[str], dict[str, Any]]


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def raw_jobs(request: pytest.FixtureRequest, tmp_path: Path) -> RawJobs:
    if request.param == "sqlite":
        db = SqliteDatabase(tmp_path / "jobs.sqlite3")
        store = SqliteJobStore(db)

        def put(doc: dict[str, Any]) -> None:
            with db.transaction() as conn:
                conn.execute(
                    "INSERT INTO generation_jobs VALUES (?, ?)", (doc["id"], json.dumps(doc))
                )

        def doc(job_id: str) -> dict[str, Any]:
            sql = "SELECT doc FROM generation_jobs WHERE job_id = ?"
            found: dict[str, Any] = json.loads(
                db.connection().execute(sql, (job_id,)).fetchone()["doc"]
            )
            return found

        return RawJobs(store=store, put=put, doc=doc)
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.firestore import firestore_client
    from backends.gcp.jobs import FirestoreJobStore

    prefix = f"t{uuid.uuid4().hex[:10]}_"
    client = firestore_client(project=PROJECT)
    collection = client.collection(f"{prefix}generation_jobs")
    return RawJobs(
        store=FirestoreJobStore(client, prefix=prefix),
        put=lambda doc: collection.document(doc["id"]).set(doc),
        doc=lambda job_id: collection.document(job_id).get().to_dict() or {},
    )


def _job(job_id: str = "job-1", **brief: object) -> JobRecord:
    fields = {"slug": "audit", "topic": "An audit", "icp": "RevOps leads", **brief}
    return JobRecord(
        id=job_id,
        editor=Editor(partner="acme", key_id=""),
        brief=GenerationBrief.model_validate(fields, context={"allow_loopback_http": True}),
        created_at=NOW,
        updated_at=NOW,
    )


def test_a_created_job_reads_back_equal(store: JobStore) -> None:
    """JobStore.create_job / get_job keep the record exactly."""
    job = _job(proof=["Cut CAC by 32%"], callback_url="http://127.0.0.1:9/hook")

    store.create_job(job)

    assert store.get_job("job-1") == job


def test_unfinished_jobs_are_listed_with_their_leases_for_recovery(store: JobStore) -> None:
    """Job recovery reads every queued or running job and its lease."""
    for job_id in ("queued-1", "running-1", "done-1"):
        store.create_job(_job(job_id))
    lease = timedelta(minutes=5)
    store.update_job(
        "running-1", lambda j: steps.start_attempt(j, worker="w", now=NOW, lease=lease)
    )
    store.update_job(
        "done-1",
        lambda j: steps.fail(
            j, error=JobError(code="abandoned", message="m"), issues=[], now=NOW, worker=None
        ),
    )

    listed = {job.id: job for job in store.list_unfinished_jobs()}

    assert set(listed) == {"queued-1", "running-1"}
    assert listed["running-1"].lease_until == NOW + lease
    assert listed["running-1"].lease_owner == "w"


def test_a_worker_at_work_renews_its_job_lease_until_its_run_ends(store: JobStore) -> None:
    """A job's lease is short and follows the work: renewed while its worker runs, no more
    once the run ends (then it lapses, and recovery or a redelivery takes the job over)."""
    lease = timedelta(seconds=0.6)
    store.create_job(_job("renewed"))
    started = store.update_job(
        "renewed",
        lambda j: steps.start_attempt(j, worker="w", now=datetime.now(UTC), lease=lease),
    )
    assert started.lease_until is not None

    with keep_job_lease(store, "renewed", worker="w", lease=lease, clock=lambda: datetime.now(UTC)):
        wait_for(
            lambda: _lease_until("renewed", store) > started.lease_until + 2 * lease,  # type: ignore[operator]
            timeout=10,
            what="the lease renewed past two leases from its start",
        )
    ended = _lease_until("renewed", store)
    wait_for(lambda: datetime.now(UTC) > ended + lease, timeout=10, what="a lease gone by")

    assert _lease_until("renewed", store) == ended  # no renewal after the run


def test_a_job_whose_holder_is_gone_is_taken_over_at_once(store: JobStore) -> None:
    """A lease whose holder is known to be gone (its process exited) need not lapse first."""
    store.create_job(_job("orphan"))
    lease = timedelta(seconds=30)
    store.update_job(
        "orphan", lambda j: steps.start_attempt(j, worker="dead", now=NOW, lease=lease)
    )

    with pytest.raises(steps.JobBusyError):
        store.update_job(
            "orphan", lambda j: steps.start_attempt(j, worker="next", now=NOW, lease=lease)
        )
    taken = store.update_job(
        "orphan",
        lambda j: steps.start_attempt(j, worker="next", now=NOW, lease=lease, released="dead"),
    )

    assert (taken.lease_owner, taken.attempts) == ("next", 2)


def _lease_until(job_id: str, store: JobStore) -> datetime:
    job = store.get_job(job_id)
    assert job is not None
    assert job.lease_until is not None
    return job.lease_until


def test_an_unknown_job_reads_as_none(store: JobStore) -> None:
    assert store.get_job("missing") is None


def test_creating_the_same_job_id_twice_conflicts(store: JobStore) -> None:
    store.create_job(_job())

    with pytest.raises(ConflictError):
        store.create_job(_job())


def test_update_applies_the_change_and_returns_the_stored_job(store: JobStore) -> None:
    """update_job is a read-modify-write: what it returns is what a later read sees."""
    store.create_job(_job())
    lease = timedelta(seconds=30)

    updated = store.update_job(
        "job-1", lambda j: steps.start_attempt(j, worker="w1", now=NOW, lease=lease)
    )

    assert updated.status == "running"
    assert store.get_job("job-1") == updated


def test_a_change_that_raises_writes_nothing(store: JobStore) -> None:
    """A refused step (another worker's live lease) leaves the stored job as it was."""
    store.create_job(_job())
    lease = timedelta(seconds=30)
    held = store.update_job(
        "job-1", lambda j: steps.start_attempt(j, worker="w1", now=NOW, lease=lease)
    )

    with pytest.raises(steps.JobBusyError):
        store.update_job(
            "job-1", lambda j: steps.start_attempt(j, worker="w2", now=NOW, lease=lease)
        )

    assert store.get_job("job-1") == held


def test_updating_an_unknown_job_raises_not_found(store: JobStore) -> None:
    with pytest.raises(NotFoundError):
        store.update_job("missing", lambda j: j)


def test_concurrent_writer_claims_never_exceed_two(store: JobStore) -> None:
    """DESIGN: the writer is called at most twice per job, however often the job is delivered."""
    store.create_job(_job())
    store.update_job(
        "job-1",
        lambda j: steps.start_attempt(j, worker="w", now=NOW, lease=timedelta(seconds=60)),
    )
    granted: list[int] = []

    def claim() -> None:
        try:
            job = store.update_job(
                "job-1", lambda j: steps.claim_writer_call(j, worker="w", now=NOW)
            )
            granted.append(job.writer_calls)
        except steps.WriterBudgetSpentError:
            pass

    threads = [threading.Thread(target=claim) for _ in range(2)] + [threading.Thread(target=claim)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert sorted(granted) == [1, 2]
    assert store.get_job("job-1").writer_calls == 2  # type: ignore[union-attr]


@pytest.mark.parametrize("outcome", ["succeeded", "failed"])
def test_waiting_on_a_job_returns_it_once_another_thread_finishes_it(
    store: JobStore, outcome: str
) -> None:
    """JobStore.wait_finished: POST generate's bounded wait ends with the finished job."""
    store.create_job(_job())
    go = threading.Event()

    def work() -> None:
        go.wait(10)
        lease = timedelta(seconds=60)
        store.update_job(
            "job-1", lambda j: steps.start_attempt(j, worker="w", now=NOW, lease=lease)
        )
        if outcome == "succeeded":
            store.update_job("job-1", lambda j: steps.succeed(j, worker="w", now=NOW))
        else:
            error = JobError(code="model_failed", message="down", retryable=True)
            store.update_job(
                "job-1", lambda j: steps.fail(j, error=error, issues=[], now=NOW, worker=None)
            )

    worker = threading.Thread(target=work)
    worker.start()
    go.set()

    found = store.wait_finished("job-1", 60)

    worker.join(10)
    assert found is not None
    assert found.status == outcome
    assert found == store.get_job("job-1")


def test_waiting_on_an_unfinished_job_returns_it_as_stored_when_the_time_is_up(
    store: JobStore,
) -> None:
    store.create_job(_job())
    running = store.update_job(
        "job-1",
        lambda j: steps.start_attempt(j, worker="w", now=NOW, lease=timedelta(seconds=60)),
    )

    assert store.wait_finished("job-1", 0.2) == running


def test_waiting_on_an_unknown_job_returns_none(store: JobStore) -> None:
    assert store.wait_finished("missing", 0.1) is None


def test_a_sqlite_wait_sees_a_job_finished_through_another_store_on_the_same_file(
    tmp_path: Path,
) -> None:
    """A finish written by another process (no in-process signal) still ends the wait."""
    path = tmp_path / "jobs.sqlite3"
    waiting, other = SqliteJobStore(SqliteDatabase(path)), SqliteJobStore(SqliteDatabase(path))
    waiting.create_job(_job())
    lease = timedelta(seconds=60)
    other.update_job("job-1", lambda j: steps.start_attempt(j, worker="w", now=NOW, lease=lease))
    go = threading.Event()

    def succeed_later(job: JobRecord) -> JobRecord:
        go.wait(10)  # inside the other store's transaction: the waiter first reads `running`
        return steps.succeed(job, worker="w", now=NOW)

    finisher = threading.Thread(target=other.update_job, args=("job-1", succeed_later))
    finisher.start()
    release = threading.Timer(0.2, go.set)
    release.start()

    found: list[JobRecord | None] = []
    waiter = threading.Thread(
        target=lambda: found.append(waiting.wait_finished("job-1", 300)), daemon=True
    )
    waiter.start()

    waiter.join(30)  # bounded like tests/polling.py: only a missing re-read takes 300 s
    finisher.join(10)
    release.cancel()
    assert not waiter.is_alive(), "the wait never re-read the row"
    assert found[0] is not None
    assert found[0].status == "succeeded"


class _ReadCountingJobStore(SqliteJobStore):
    """The SQLite store, counting reads: a test knows a waiter has read the row."""

    reads = 0

    def get_job(self, job_id: str) -> JobRecord | None:
        found = super().get_job(job_id)
        self.reads += 1
        return found


def test_a_sqlite_wait_ends_on_the_finishing_write_of_this_process(tmp_path: Path) -> None:
    """Embedded: the finishing write wakes the waiter; it does not wait for a re-read timer."""
    store = _ReadCountingJobStore(SqliteDatabase(tmp_path / "jobs.sqlite3"), recheck_seconds=300)
    store.create_job(_job())
    lease = timedelta(seconds=60)
    store.update_job("job-1", lambda j: steps.start_attempt(j, worker="w", now=NOW, lease=lease))
    found: list[JobRecord | None] = []
    waiter = threading.Thread(
        target=lambda: found.append(store.wait_finished("job-1", 300)), daemon=True
    )
    waiter.start()
    wait_for(lambda: store.reads > 0, timeout=10, what="the waiter's first read")

    store.update_job("job-1", lambda j: steps.succeed(j, worker="w", now=NOW))

    waiter.join(30)  # bounded like tests/polling.py: without the signal it takes 300 s
    assert not waiter.is_alive(), "the finishing write did not wake the waiter"
    assert found[0] is not None
    assert found[0].status == "succeeded"


def _doc_apart(job_id: str) -> dict[str, Any]:
    """A queued job as the version before the editor was kept whole stored it: the partner,
    the key id and the admin flag beside the other fields."""
    return {
        "id": job_id,
        "partner": "acme",
        "key_id": "k-acme",
        "admin": True,
        "brief": {"slug": "audit", "topic": "An audit", "icp": "RevOps leads"},
        "status": "queued",
        "created_at": NOW.isoformat(),
        "updated_at": NOW.isoformat(),
    }


def test_a_job_keeps_its_editor_as_one_nested_value(raw_jobs: RawJobs) -> None:
    """The job record stores who submitted it whole: `editor` {partner, key_id, admin}."""
    job = _job().model_copy(update={"editor": Editor(partner="acme", key_id="k1", admin=True)})

    raw_jobs.store.create_job(job)

    doc = raw_jobs.doc("job-1")
    assert doc["editor"] == {"partner": "acme", "key_id": "k1", "admin": True}
    assert not {"partner", "key_id", "admin"} & set(doc)
    assert raw_jobs.store.get_job("job-1") == job


def test_a_job_stored_with_its_editor_apart_reads_as_that_editor(raw_jobs: RawJobs) -> None:
    """A job queued before an upgrade is read, listed and run after it as who submitted it."""
    raw_jobs.put(_doc_apart("old-1"))

    read = raw_jobs.store.get_job("old-1")
    listed = raw_jobs.store.list_unfinished_jobs()

    assert read is not None
    assert read.editor == Editor(partner="acme", key_id="k-acme", admin=True)
    assert [job.editor for job in listed] == [read.editor]


def test_a_job_stored_with_its_editor_apart_is_written_back_whole(raw_jobs: RawJobs) -> None:
    """The first step a worker takes on an old job stores its editor as one value."""
    raw_jobs.put(_doc_apart("old-2"))

    started = raw_jobs.store.update_job(
        "old-2", lambda j: steps.start_attempt(j, worker="w", now=NOW, lease=timedelta(seconds=30))
    )

    doc = raw_jobs.doc("old-2")
    assert started.editor == Editor(partner="acme", key_id="k-acme", admin=True)
    assert doc["editor"] == {"partner": "acme", "key_id": "k-acme", "admin": True}
    assert not {"partner", "key_id", "admin"} & set(doc)


# --- JobQueue ---------------------------------------------------------------------------

Subscribe = Callable[[], list[str]]


@pytest.fixture(params=["in-process", pytest.param("pubsub", marks=pytest.mark.emulator)])
def queue_and_received(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[object, Subscribe]]:
    if request.param == "in-process":
        got: list[str] = []
        queue = DurableJobQueue(QueueTable(queue_database(tmp_path)), threads=1)
        queue.start(lambda data: got.append(json.loads(data)["job_id"]))
        yield queue, lambda: (queue.drain(), list(got))[1]
        queue.close()
        return
    request.getfixturevalue("pubsub_emulator")
    from google.cloud import pubsub_v1  # type: ignore[attr-defined,unused-ignore]  # no stubs

    from backends.gcp.job_queue import PubSubJobQueue
    from backends.gcp.pubsub import PubSubPublisher

    topic, sub = f"jobs-{uuid.uuid4().hex[:8]}", f"sub-{uuid.uuid4().hex[:8]}"
    publisher, subscriber = pubsub_v1.PublisherClient(), pubsub_v1.SubscriberClient()
    publisher.create_topic(name=publisher.topic_path(PROJECT, topic))
    sub_path = subscriber.subscription_path(PROJECT, sub)
    subscriber.create_subscription(name=sub_path, topic=publisher.topic_path(PROJECT, topic))

    def pull() -> list[str]:
        answer = subscriber.pull(subscription=sub_path, max_messages=10, timeout=10)
        return [json.loads(m.message.data)["job_id"] for m in answer.received_messages]

    yield PubSubJobQueue(PubSubPublisher(project=PROJECT, topic=topic, client=publisher)), pull
    subscriber.close()


def test_a_published_job_reaches_the_workers(queue_and_received: tuple[object, Subscribe]) -> None:
    """JobQueue.publish_job hands the job id to whoever works the queue."""
    queue, received = queue_and_received

    queue.publish_job("job-7")  # type: ignore[attr-defined]

    assert received() == ["job-7"]
