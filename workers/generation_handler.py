"""The generation worker: a decoded queue message and the ports in; ack (return) or raise out.

A malformed message is logged and acked. A duplicate of a finished job is acked. A job that
another worker holds, or a transient backend failure, raises so the queue delivers it again;
on the last delivery (Pub/Sub's deliveryAttempt, or the job's own attempt count, since the
emulator sends none) the job is marked failed instead. The dead-letter handler does the same
for messages the queue gave up on.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from backends.ports import NotFoundError
from domain.job_messages import MalformedMessageError, decode_job_message
from schemas.content.jobs import JobError, JobRecord
from workers import steps
from workers.pipeline import GenerationPorts, run_generation
from workers.steps import MAX_DELIVERIES

logger = logging.getLogger(__name__)


def handle_generation(
    data: bytes | str,
    *,
    ports: GenerationPorts,
    worker: str,
    lease: timedelta,
    delivery_attempt: int | None = None,
    max_deliveries: int = MAX_DELIVERIES,
) -> None:
    """Handle one delivery of a generation message. Raises to have it delivered again."""
    try:
        job_id = decode_job_message(data)
    except MalformedMessageError as err:
        logger.error("generation message dropped: %s", err)  # acked: a retry cannot fix it
        return
    try:
        run_generation(job_id, ports=ports, worker=worker, lease=lease)
    except NotFoundError:
        logger.error("generation message for unknown job %s dropped", job_id)
    except steps.JobFinishedError:
        logger.info("job %s already finished; duplicate delivery acked", job_id)
        _renotify(job_id, ports=ports)
    except steps.JobBusyError:
        logger.info("job %s is held by another worker; deliver again later", job_id)
        raise
    except Exception:  # the worker's top level: retry, or give up on the last delivery
        logger.exception("generation failed", extra={"job_id": job_id})
        if not _last_delivery(job_id, ports=ports, attempt=delivery_attempt, limit=max_deliveries):
            raise
        mark_failed(job_id, ports=ports, reason="gave up after repeated failures")


def handle_dead_letter(data: bytes | str, *, ports: GenerationPorts) -> None:
    """A message the queue stopped delivering: its job fails (unless it finished meanwhile)."""
    try:
        job_id = decode_job_message(data)
    except MalformedMessageError as err:
        logger.error("dead-lettered generation message dropped: %s", err)
        return
    mark_failed(job_id, ports=ports, reason="the job could not be delivered to a worker")


def mark_failed(job_id: str, *, ports: GenerationPorts, reason: str) -> None:
    """Fail a job that is not finished, keeping the issues of its last gated draft."""
    now = ports.clock()
    error = JobError(code="worker_failed", message=reason, retryable=True)

    def change(job: JobRecord) -> JobRecord:
        last = job.drafts[-1] if job.drafts else None
        issues = list(last.issues or []) if last is not None else []
        return steps.fail(job, error=error, issues=issues, now=now, worker=None)

    try:
        job = ports.jobs.update_job(job_id, change)
    except (steps.JobFinishedError, NotFoundError):
        return
    logger.error(
        "job %s marked failed: %s",
        job_id,
        reason,
        extra={"job_id": job_id, "event": "job_failed"},  # terraform/monitoring.tf counts these
    )
    if ports.notify is not None:
        ports.notify(job)


def _last_delivery(job_id: str, *, ports: GenerationPorts, attempt: int | None, limit: int) -> bool:
    if attempt is not None and attempt >= limit:
        return True
    try:
        job = ports.jobs.get_job(job_id)
    except Exception:  # the store itself is down: let the queue try again
        logger.exception("job store unavailable")
        return False
    return job is not None and job.attempts >= limit


def _renotify(job_id: str, *, ports: GenerationPorts) -> None:
    # A delivery that died after finishing the job may not have scheduled the callback; the
    # callback's delivery id is the job's, so scheduling it again never sends a second one.
    job = ports.jobs.get_job(job_id)
    if job is not None and ports.notify is not None:
        ports.notify(job)
