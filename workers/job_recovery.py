"""Job recovery (issue 13): no generation job stays `queued` or `running` forever.

A job is stale when its lease lapsed (a worker died holding it) or, never leased, when it has
waited a lease's length since its last change (its message was lost before it was queued).
`recover_stale_jobs` hands each stale job to the queue again, counting `requeues`; one stale
past `max_requeues` (or with every delivery spent) ends `failed` with error code `abandoned`,
and a new POST of the brief (even with the same Idempotency-Key) starts a new job.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from backends.ports import JobQueue, JobStore, NotFoundError, UnavailableError
from schemas.content.jobs import JobError, JobRecord
from services.jobs import ABANDONED
from workers import steps
from workers.steps import MAX_DELIVERIES

logger = logging.getLogger(__name__)


class NotStaleError(Exception):
    """The job moved on since it was listed (another process recovered it, or it finished)."""


def stale_since(job: JobRecord, *, lease: timedelta) -> datetime:
    """When the job counts as stale: its lease's end, or a lease after its last change."""
    return job.lease_until if job.lease_until is not None else job.updated_at + lease


def is_stale(job: JobRecord, *, now: datetime, lease: timedelta) -> bool:
    return not job.finished and stale_since(job, lease=lease) <= now


def recover_stale_jobs(
    *,
    jobs: JobStore,
    job_queue: JobQueue,
    now: datetime,
    lease: timedelta,
    max_requeues: int,
    notify: Callable[[JobRecord], None] | None = None,
    limit: int = 200,
) -> tuple[int, int]:
    """Queue stale jobs again, or abandon them; (queued again, abandoned)."""
    queued = abandoned = 0
    for listed in jobs.list_unfinished_jobs(limit=limit):
        if not is_stale(listed, now=now, lease=lease):
            continue
        spent = listed.requeues >= max_requeues or listed.attempts >= MAX_DELIVERIES
        try:
            job = jobs.update_job(
                listed.id, _abandon(now, lease) if spent else _requeue(now, lease)
            )
        except (NotStaleError, steps.JobFinishedError, NotFoundError):
            continue
        if job.finished:
            abandoned += 1
            logger.error(
                "job %s abandoned after %d requeues",
                job.id,
                job.requeues,
                extra={"job_id": job.id, "event": "job_failed"},
            )
            if notify is not None:
                notify(job)
            continue
        try:
            job_queue.publish_job(job.id)
        except UnavailableError:
            logger.warning("job %s: the queue is down; recovery tries again", job.id)
            continue
        queued += 1
        logger.warning("job %s queued again: its lease lapsed", job.id, extra={"job_id": job.id})
    return queued, abandoned


def _requeue(now: datetime, lease: timedelta) -> Callable[[JobRecord], JobRecord]:
    def change(job: JobRecord) -> JobRecord:
        if not is_stale(job, now=now, lease=lease):
            raise NotStaleError(job.id)
        # The lapsed lease is dropped, so the next delivery takes the job over at once; the
        # job is stale again a lease from now if no worker picks it up.
        return job.model_copy(
            update={"requeues": job.requeues + 1, "lease_until": None, "updated_at": now}
        )

    return change


def _abandon(now: datetime, lease: timedelta) -> Callable[[JobRecord], JobRecord]:
    error = JobError(
        code=ABANDONED,
        message="The job's worker stopped too often; post the brief again",
        retryable=True,
    )

    def change(job: JobRecord) -> JobRecord:
        if not is_stale(job, now=now, lease=lease):
            raise NotStaleError(job.id)
        last = job.drafts[-1] if job.drafts else None
        issues = list(last.issues or []) if last is not None else []
        return steps.fail(job, error=error, issues=issues, now=now, worker=None)

    return change
