"""Job recovery: no generation job stays `queued` or `running` forever.

A job is stale when its lease lapsed (a worker died holding it and renewed it no more), when
its holder is known to be gone (a process of this host that exited: recovery at start takes
such a job back at once), or, never leased, when it has waited UNCLAIMED_AFTER since its last
change (its message was lost before it was queued; a job waiting its turn behind a long queue
is not, so this is no lease's length).
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

# A job no worker ever took (or whose lapsed lease recovery dropped) is queued again after this
# long: its message may have been lost; a long queue ahead of it is the likelier reason.
UNCLAIMED_AFTER = timedelta(minutes=5)


class NotStaleError(Exception):
    """The job moved on since it was listed (another process recovered it, or it finished)."""


def stale_since(job: JobRecord, *, lease: timedelta) -> datetime:
    """When the job counts as stale: its lease's end, or UNCLAIMED_AFTER (a lease at least)
    after its last change."""
    if job.lease_until is not None:
        return job.lease_until
    return job.updated_at + max(lease, UNCLAIMED_AFTER)


def is_stale(
    job: JobRecord,
    *,
    now: datetime,
    lease: timedelta,
    holder_gone: Callable[[str | None], bool] = lambda _holder: False,
) -> bool:
    if job.finished:
        return False
    if job.lease_until is not None and job.lease_until > now and holder_gone(job.lease_owner):
        return True
    return stale_since(job, lease=lease) <= now


def recover_stale_jobs(
    *,
    jobs: JobStore,
    job_queue: JobQueue,
    now: datetime,
    lease: timedelta,
    max_requeues: int,
    notify: Callable[[JobRecord], None] | None = None,
    limit: int = 200,
    holder_gone: Callable[[str | None], bool] = lambda _holder: False,
) -> tuple[int, int]:
    """Queue stale jobs again, or abandon them; (queued again, abandoned).

    `holder_gone` says whether a lease's holder is known to have exited (its lease counts as
    lapsed)."""
    queued = abandoned = 0
    for listed in jobs.list_unfinished_jobs(limit=limit):
        if not is_stale(listed, now=now, lease=lease, holder_gone=holder_gone):
            continue
        # Whether the job is still stale is decided again inside the update (another process
        # may have taken it meanwhile): by the holder read here, not by a second look at /proc.
        gone = listed.lease_owner if holder_gone(listed.lease_owner) else None
        spent = listed.requeues >= max_requeues or listed.attempts >= MAX_DELIVERIES
        try:
            job = jobs.update_job(
                listed.id, _abandon(now, lease, gone) if spent else _requeue(now, lease, gone)
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
        logger.warning(
            "job %s queued again: its lease lapsed or its holder exited",
            job.id,
            extra={"job_id": job.id},
        )
    return queued, abandoned


def _gone_holder(gone: str | None) -> Callable[[str | None], bool]:
    return lambda holder: gone is not None and holder == gone


def _requeue(now: datetime, lease: timedelta, gone: str | None) -> Callable[[JobRecord], JobRecord]:
    def change(job: JobRecord) -> JobRecord:
        if not is_stale(job, now=now, lease=lease, holder_gone=_gone_holder(gone)):
            raise NotStaleError(job.id)
        # The lapsed lease is dropped, so the next delivery takes the job over at once; the
        # job is stale again UNCLAIMED_AFTER from now if no worker picks it up.
        return job.model_copy(
            update={"requeues": job.requeues + 1, "lease_until": None, "updated_at": now}
        )

    return change


def _abandon(now: datetime, lease: timedelta, gone: str | None) -> Callable[[JobRecord], JobRecord]:
    error = JobError(
        code=ABANDONED,
        message="The job's worker stopped too often; post the brief again",
        retryable=True,
    )

    def change(job: JobRecord) -> JobRecord:
        if not is_stale(job, now=now, lease=lease, holder_gone=_gone_holder(gone)):
            raise NotStaleError(job.id)
        last = job.drafts[-1] if job.drafts else None
        issues = list(last.issues or []) if last is not None else []
        return steps.fail(job, error=error, issues=issues, now=now, worker=None)

    return change
