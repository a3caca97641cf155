"""SqliteJobStore: generation jobs in the embedded database, one JSON document per row.

The embedded workers are threads of this process and write through this store, so a wait for
a job (POST generate's bounded wait) sleeps on a per-job signal that the finishing write sets
once it has committed, handing over the record it wrote, rather than on a polling timer.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from backends.embedded.sqlite import SqliteDatabase
from backends.ports import ConflictError, JobChange, NotFoundError
from schemas.content.jobs import JobRecord

_DDL = """
CREATE TABLE IF NOT EXISTS generation_jobs (
    job_id TEXT PRIMARY KEY,
    doc TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS generation_jobs_status
    ON generation_jobs (json_extract(doc, '$.status'));
"""
# A waiter also reads the row this often with no signal: a job finished by another process
# on the same file (a CLI run) sends none. Rare wake-ups keep the waiting thread off the GIL.
_RECHECK_SECONDS = 1.0
_OLD_ASSET_URL = re.compile(r"^https?://[^/]+(/assets/.+)$")


class SqliteJobStore:
    """JobStore on SQLite; updates run inside BEGIN IMMEDIATE, so they are serialised."""

    def __init__(self, db: SqliteDatabase, *, recheck_seconds: float = _RECHECK_SECONDS) -> None:
        self._db = db
        self._recheck = recheck_seconds
        self._finished = _FinishSignals()
        db.ensure_schema("generation_jobs", _DDL)
        _relative_hero_urls(db)

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
        if updated.finished:  # committed, and final: every later step refuses a finished job
            self._finished.signal(updated)
        return updated

    def list_unfinished_jobs(self, *, limit: int = 200) -> list[JobRecord]:
        rows = (
            self._db.connection()
            .execute(
                "SELECT doc FROM generation_jobs"
                " WHERE json_extract(doc, '$.status') IN ('queued', 'running')"
                " ORDER BY json_extract(doc, '$.updated_at') LIMIT ?",
                (limit,),
            )
            .fetchall()
        )
        return [JobRecord.read_stored(row["doc"]) for row in rows]

    def wait_finished(self, job_id: str, seconds: float) -> JobRecord | None:
        deadline = time.monotonic() + seconds
        # Watch before the first read: a finish committed after that read is handed over.
        with self._finished.watch(job_id) as watch:
            job = self.get_job(job_id)
            while job is not None and not job.finished:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                if watch.done.wait(min(self._recheck, left)):
                    return watch.job  # the committed final record: no re-read, no re-parse
                job = self.get_job(job_id) or job
        return job


@dataclass
class _Watch:
    """One open wait: set with the final record when this process commits it."""

    done: threading.Event = field(default_factory=threading.Event)
    job: JobRecord | None = None


def _relative_hero_urls(db: SqliteDatabase) -> None:
    """Jobs of a data file from before site-relative image URLs kept their hero image on an
    absolute URL of this service's old origin; keep its site path (`/assets/...`), made
    absolute on reads."""
    query = (
        "SELECT job_id, doc FROM generation_jobs"
        " WHERE json_extract(doc, '$.hero_image_url') LIKE 'http%/assets/%'"
    )
    if db.connection().execute(query + " LIMIT 1").fetchone() is None:
        return
    with db.transaction() as conn:
        for row in conn.execute(query).fetchall():
            doc = json.loads(row["doc"])
            match = _OLD_ASSET_URL.match(doc.get("hero_image_url") or "")
            if match:
                doc["hero_image_url"] = match[1]
                conn.execute(
                    "UPDATE generation_jobs SET doc = ? WHERE job_id = ?",
                    (json.dumps(doc), row["job_id"]),
                )


class _FinishSignals:
    """The open waits by job id."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[str, list[_Watch]] = {}

    @contextmanager
    def watch(self, job_id: str) -> Iterator[_Watch]:
        watch = _Watch()
        with self._lock:
            self._waiting.setdefault(job_id, []).append(watch)
        try:
            yield watch
        finally:
            with self._lock:
                watches = self._waiting[job_id]
                watches.remove(watch)
                if not watches:
                    del self._waiting[job_id]

    def signal(self, job: JobRecord) -> None:
        with self._lock:
            for watch in self._waiting.get(job.id, ()):
                watch.job = job
                watch.done.set()
