"""No generation job stays `queued` or `running` forever. A job whose lease lapsed (or
that never started within a lease) is queued again; after `max_requeues` it ends `abandoned`."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from backends.embedded.job_queue import DurableJobQueue
from backends.embedded.jobs import SqliteJobStore
from backends.embedded.queue_table import QueueTable, queue_database
from backends.embedded.sqlite import SqliteDatabase
from domain.editors import Editor
from schemas.content.jobs import GenerationBrief, JobRecord
from tests.workers.generation_ports import NOW
from workers import steps
from workers.job_recovery import recover_stale_jobs

LEASE = timedelta(minutes=5)
BRIEF = GenerationBrief(
    slug="recovery-brief",
    topic="A pipeline audit for revenue teams",
    icp="RevOps leads at Series B SaaS companies",
    goal="Book an audit call with teams whose funnel reporting disagrees with the CRM",
    offer="A two-week review of tracking and funnel conversion. You keep the written plan.",
)


@pytest.fixture
def jobs(tmp_path: Path) -> SqliteJobStore:
    return SqliteJobStore(SqliteDatabase(tmp_path / "jobs.sqlite3"))


@pytest.fixture
def table(tmp_path: Path) -> QueueTable:
    return QueueTable(queue_database(tmp_path))


def _job(jobs: SqliteJobStore, job_id: str) -> JobRecord:
    job = JobRecord(
        id=job_id,
        editor=Editor(partner="p", key_id=""),
        brief=BRIEF,
        created_at=NOW,
        updated_at=NOW,
    )
    jobs.create_job(job)
    return job


def _queued_ids(table: QueueTable) -> list[str]:
    leased = table.claim("generation", owner="t", lease_seconds=60, max_attempts=9, limit=50)
    return [json.loads(m.body)["job_id"] for m in leased]


def _recover(jobs: SqliteJobStore, table: QueueTable, *, at: timedelta) -> tuple[int, int]:
    return recover_stale_jobs(
        jobs=jobs, job_queue=DurableJobQueue(table), now=NOW + at, lease=LEASE, max_requeues=2
    )


def test_a_running_job_whose_lease_lapsed_is_queued_again(
    jobs: SqliteJobStore, table: QueueTable
) -> None:
    _job(jobs, "dead-worker")
    jobs.update_job(
        "dead-worker", lambda j: steps.start_attempt(j, worker="w1", now=NOW, lease=LEASE)
    )

    assert _recover(jobs, table, at=timedelta(minutes=4)) == (0, 0)  # the lease still holds
    assert _recover(jobs, table, at=timedelta(minutes=6)) == (1, 0)

    job = jobs.get_job("dead-worker")
    assert job is not None
    assert (job.status, job.requeues, job.lease_until) == ("running", 1, None)
    assert _queued_ids(table) == ["dead-worker"]
    # the next delivery takes the job over at once from the dead worker
    taken = steps.start_attempt(job, worker="w2", now=NOW + timedelta(minutes=6), lease=LEASE)
    assert taken.lease_owner == "w2"


def test_a_queued_job_that_never_started_within_a_lease_is_queued_again(
    jobs: SqliteJobStore, table: QueueTable
) -> None:
    _job(jobs, "lost-message")

    assert _recover(jobs, table, at=timedelta(minutes=1)) == (0, 0)
    assert _recover(jobs, table, at=timedelta(minutes=6)) == (1, 0)
    assert _queued_ids(table) == ["lost-message"]


def test_a_job_stale_after_its_requeues_ends_failed_abandoned(
    jobs: SqliteJobStore, table: QueueTable
) -> None:
    _job(jobs, "never-done")

    results = [_recover(jobs, table, at=LEASE * (2 * n + 1)) for n in range(3)]

    job = jobs.get_job("never-done")
    assert job is not None
    assert results == [(1, 0), (1, 0), (0, 1)]
    assert job.status == "failed"
    assert job.error is not None
    assert (job.error.code, job.error.retryable) == ("abandoned", True)
    assert jobs.list_unfinished_jobs() == []


def test_a_running_job_whose_holder_is_gone_is_queued_again_before_its_lease_lapses(
    jobs: SqliteJobStore, table: QueueTable
) -> None:
    """At start, a job held by a process of this host that exited is taken back at once."""
    _job(jobs, "killed-worker")
    jobs.update_job(
        "killed-worker", lambda j: steps.start_attempt(j, worker="w1", now=NOW, lease=LEASE)
    )

    alive = recover_stale_jobs(
        jobs=jobs,
        job_queue=DurableJobQueue(table),
        now=NOW + timedelta(seconds=1),
        lease=LEASE,
        max_requeues=2,
        holder_gone=lambda holder: False,
    )
    gone = recover_stale_jobs(
        jobs=jobs,
        job_queue=DurableJobQueue(table),
        now=NOW + timedelta(seconds=1),
        lease=LEASE,
        max_requeues=2,
        holder_gone=lambda holder: holder == "w1",
    )

    assert (alive, gone) == ((0, 0), (1, 0))
    assert _queued_ids(table) == ["killed-worker"]


def test_a_queued_job_waiting_its_turn_past_a_short_lease_is_left_alone(
    jobs: SqliteJobStore, table: QueueTable
) -> None:
    """A short lease does not make a job that waits behind a long queue look lost."""
    _job(jobs, "waiting")

    found = recover_stale_jobs(
        jobs=jobs,
        job_queue=DurableJobQueue(table),
        now=NOW + timedelta(minutes=2),
        lease=timedelta(seconds=30),
        max_requeues=2,
    )

    assert found == (0, 0)
    assert _queued_ids(table) == []
