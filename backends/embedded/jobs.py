"""SqliteJobStore: generation jobs in the embedded database, one JSON document per row."""

from __future__ import annotations

import sqlite3

from backends.embedded.sqlite import SqliteDatabase
from backends.ports import ConflictError, JobChange, NotFoundError
from schemas.jobs import JobRecord

_DDL = """
CREATE TABLE IF NOT EXISTS generation_jobs (
    job_id TEXT PRIMARY KEY,
    doc TEXT NOT NULL
);
"""


class SqliteJobStore:
    """JobStore on SQLite; updates run inside BEGIN IMMEDIATE, so they are serialised."""

    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db
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
        return updated
