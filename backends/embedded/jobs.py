"""SqliteJobStore: generation jobs in the embedded database, one JSON document per row.

The embedded workers are threads of this process and write through this store, so a wait for
a job (POST generate's bounded wait) sleeps on a per-job signal set when the finishing write
commits, not on a polling timer; the row stays the source of truth and is read on each wake.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from backends.embedded.sqlite import SqliteDatabase
from backends.ports import ConflictError, JobChange, NotFoundError
from schemas.jobs import JobRecord

_DDL = """
CREATE TABLE IF NOT EXISTS generation_jobs (
    job_id TEXT PRIMARY KEY,
    doc TEXT NOT NULL
);
"""
# A waiter also reads the row this often with no signal: a job finished by another process
# on the same file (a CLI run) sends none. Rare wake-ups keep the waiting thread off the GIL.
_RECHECK_SECONDS = 1.0


class SqliteJobStore:
    """JobStore on SQLite; updates run inside BEGIN IMMEDIATE, so they are serialised."""

    def __init__(self, db: SqliteDatabase, *, recheck_seconds: float = _RECHECK_SECONDS) -> None:
        self._db = db
        self._recheck = recheck_seconds
        self._finished = _FinishSignals()
        db.ensure_schema("generation_jobs", _DDL)

    def create_job(self, job: JobRecord) -> None:
        try:
            with self._db.transaction() as conn:
                conn.execute(
                    "INSERT INTO generation_jobs VALUES (?, ?)",
                    (job.id, job.model_dump_json()),
                )
        except sqlite3.IntegrityError as err:
            raise ConflictError(job.id) from err

    def get_job(self, job_id: str) -> JobRecord | None:
        row = (
            self._db.connection()
            .execute("SELECT doc FROM generation_jobs WHERE job_id = ?", (job_id,))
            .fetchone()
        )
        return JobRecord.read_stored(row["doc"]) if row else None

    def update_job(self, job_id: str, change: JobChange) -> JobRecord:
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT doc FROM generation_jobs WHERE job_id = ?", (job_id,)
            ).fetchone()
            if row is None:
                raise NotFoundError(job_id)
            updated = change(JobRecord.read_stored(row["doc"]))
            conn.execute(
                "UPDATE generation_jobs SET doc = ? WHERE job_id = ?",
                (updated.model_dump_json(), job_id),
            )
        if updated.finished:  # committed: a waiter that wakes now reads the final state
            self._finished.signal(job_id)
        return updated

    def wait_finished(self, job_id: str, seconds: float) -> JobRecord | None:
        deadline = time.monotonic() + seconds
        # Watch before the first read: a finish committed after that read sets the signal.
        with self._finished.watch(job_id) as signal:
            job = self.get_job(job_id)
            while job is not None and not job.finished:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                signal.wait(min(self._recheck, left))
                signal.clear()  # before the read, so a later finish is never missed
                job = self.get_job(job_id) or job
        return job


class _FinishSignals:
    """Per-job events, set when this process commits a job's final state."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[str, list[threading.Event]] = {}

    @contextmanager
    def watch(self, job_id: str) -> Iterator[threading.Event]:
        event = threading.Event()
        with self._lock:
            self._waiting.setdefault(job_id, []).append(event)
        try:
            yield event
        finally:
            with self._lock:
                events = self._waiting.get(job_id, [])
                events.remove(event)
                if not events:
                    del self._waiting[job_id]

    def signal(self, job_id: str) -> None:
        with self._lock:
            for event in self._waiting.get(job_id, ()):
                event.set()
