"""Generation jobs (a brief becoming a page) and their queue.

Protocols and value types only; nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from schemas.content.jobs import JobRecord

JobChange = Callable[[JobRecord], JobRecord]


class JobStore(Protocol):
    """Generation jobs, each updated only by read-modify-write in one transaction."""

    def create_job(self, job: JobRecord) -> None:
        """Store a new job. Raises: ConflictError if its id exists."""

    def get_job(self, job_id: str) -> JobRecord | None:
        """The job with this id, if any."""

    def update_job(self, job_id: str, change: JobChange) -> JobRecord:
        """Apply `change` to the stored job atomically and store what it returns.

        `change` is pure and may run more than once (a retried transaction); it raises to
        abort without writing. Raises: NotFoundError, and whatever `change` raises.
        """

    def list_unfinished_jobs(self, *, limit: int = 200) -> list[JobRecord]:
        """Jobs `queued` or `running`, oldest change first (job recovery reads their leases)."""

    def wait_finished(self, job_id: str, seconds: float) -> JobRecord | None:
        """The job once finished, or as stored when `seconds` have passed; None if unknown.

        SQLite wakes on the finishing write of an in-process worker; Firestore polls.
        """


class JobQueue(Protocol):
    """Hands a job id to the generation workers (Pub/Sub, or in-process threads)."""

    def publish_job(self, job_id: str) -> None:
        """Enqueue one job. Raises: UnavailableError."""

    def wait(self, seconds: float) -> None:
        """Block up to `seconds`; in-process queues return early when a delivery finishes."""
