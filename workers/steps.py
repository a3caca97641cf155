"""The pure steps of a generation job: each takes the stored job and returns the next one.

They run inside JobStore.update_job, so each is one atomic read-modify-write; they raise to
refuse a move (a finished job, another worker's live lease, a spent writer budget). No I/O,
no clock: `now` is passed in.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from backends.ports import DeliverLaterError
from schemas.content.jobs import (
    MAX_WRITER_CALLS,
    BriefNote,
    JobDraft,
    JobError,
    JobRecord,
    JobVariant,
)
from schemas.errors import Issue
from workers.brief_fields import with_brief_fields

# Deliveries one job message gets: the handler fails the job on the last, job recovery abandons
# a stale job that has had them all (here, so recovery at start loads no pipeline).
MAX_DELIVERIES = 5


class StepRefusedError(Exception):
    """A step that may not run on the job as stored."""


class JobFinishedError(StepRefusedError):
    """The job already succeeded or failed: a duplicate delivery, acked with no work."""


class JobBusyError(StepRefusedError, DeliverLaterError):
    """Another worker holds a live lease on the job: deliver again later."""


class LeaseLostError(StepRefusedError):
    """This worker's lease ran out and another took the job over: stop without writing."""


class WriterBudgetSpentError(StepRefusedError):
    """The writer was already called MAX_WRITER_CALLS times for this job."""


def start_attempt(
    job: JobRecord,
    *,
    worker: str,
    now: datetime,
    lease: timedelta,
    released: str | None = None,
) -> JobRecord:
    """Take the job's lease for this delivery and count the attempt.

    `released` names a holder known to be gone (its process exited): its lease is taken over
    at once instead of waiting for it to lapse.
    """
    if job.finished:
        raise JobFinishedError(job.id)
    held = job.lease_owner not in (None, worker, released)
    if held and job.lease_until is not None and job.lease_until > now:
        raise JobBusyError(job.id)
    return job.model_copy(
        update={
            "status": "running",
            "attempts": job.attempts + 1,
            "lease_owner": worker,
            "lease_until": now + lease,
            "lease_seconds": lease.total_seconds(),
            "updated_at": now,
        }
    )


def renew_lease(job: JobRecord, *, worker: str, now: datetime) -> JobRecord:
    """A worker still at the job extends its lease by a lease's length from now."""
    _own(job, worker)
    return job.model_copy(update={"lease_until": now + timedelta(seconds=job.lease_seconds)})


def claim_writer_call(job: JobRecord, *, worker: str, now: datetime) -> JobRecord:
    """Count one writer call before it is made; refuse a third."""
    _own(job, worker)
    if job.writer_calls >= MAX_WRITER_CALLS:
        raise WriterBudgetSpentError(job.id)
    return _touch(job, now, writer_calls=job.writer_calls + 1)


def record_draft(
    job: JobRecord,
    payload: dict[str, Any],
    *,
    worker: str,
    now: datetime,
    notes: list[BriefNote] | None = None,
) -> JobRecord:
    """Keep the writer's page (slug and publish flag set from the brief), not yet gated.

    A generated hero image without alt text gets the brief's (its composition described).
    """
    _own(job, worker)
    fixed = with_brief_fields(payload, job.brief, live=True)
    draft = JobDraft(payload=fixed, notes=list(notes or []))
    return _touch(job, now, drafts=[*job.drafts, draft], notes=draft.notes)


def variant_of(job: JobRecord, variant_id: str) -> JobVariant | None:
    """The job's record of variant `variant_id`, if its writing started."""
    return next((v for v in job.variants if v.id == variant_id), None)


def claim_variant_call(
    job: JobRecord, variant_id: str, angle: int, *, worker: str, now: datetime
) -> JobRecord:
    """Count one writer call for a variant before it is made; refuse a third for that variant.

    Each variant has the page's budget: a draft and the gate's one retry.
    """
    _own(job, worker)
    current = variant_of(job, variant_id) or JobVariant(id=variant_id, angle=angle)
    if current.writer_calls >= MAX_WRITER_CALLS:
        raise WriterBudgetSpentError(job.id)
    claimed = current.model_copy(update={"writer_calls": current.writer_calls + 1})
    return _touch(job, now, variants=_with_variant(job, claimed))


def record_variant_draft(
    job: JobRecord,
    variant_id: str,
    payload: dict[str, Any],
    *,
    worker: str,
    now: datetime,
    notes: list[BriefNote] | None = None,
) -> JobRecord:
    """Keep the writer's variant (the page's slug; whether it is live is the page's), not yet
    gated."""
    _own(job, worker)
    current = variant_of(job, variant_id)
    if current is None:
        raise StepRefusedError(f"{job.id}: variant {variant_id} was never claimed")
    draft = JobDraft(
        payload=with_brief_fields(payload, job.brief, live=False), notes=list(notes or [])
    )
    drafted = current.model_copy(update={"drafts": [*current.drafts, draft]})
    return _touch(job, now, variants=_with_variant(job, drafted))


def record_variant(job: JobRecord, variant: JobVariant, *, worker: str, now: datetime) -> JobRecord:
    """Keep a variant's new state: its gate verdict, or how it ended."""
    _own(job, worker)
    return _touch(job, now, variants=_with_variant(job, variant))


def _with_variant(job: JobRecord, variant: JobVariant) -> list[JobVariant]:
    kept = [v for v in job.variants if v.id != variant.id]
    return sorted([*kept, variant], key=lambda v: v.angle)


def record_gate(
    job: JobRecord, index: int, issues: list[Issue], *, worker: str, now: datetime
) -> JobRecord:
    """Keep the gate's verdict on draft `index`."""
    _own(job, worker)
    drafts = list(job.drafts)
    drafts[index] = drafts[index].model_copy(update={"issues": issues})
    return _touch(job, now, drafts=drafts)


def record_image(job: JobRecord, url: str, *, worker: str, now: datetime) -> JobRecord:
    """Keep the hero image's URL."""
    _own(job, worker)
    return _touch(job, now, hero_image_url=url)


def record_stored(job: JobRecord, *, worker: str, now: datetime) -> JobRecord:
    """Note that the page is written, so a redelivery skips the write."""
    _own(job, worker)
    return _touch(job, now, page_stored=True, page_slug=job.brief.slug)


def succeed(job: JobRecord, *, worker: str, now: datetime) -> JobRecord:
    """The page is stored: the job is done."""
    _own(job, worker)
    return _finish(job, now=now, status="succeeded", error=None, issues=[])


def fail(
    job: JobRecord, *, error: JobError, issues: list[Issue], now: datetime, worker: str | None
) -> JobRecord:
    """The job ends without a page; `worker` None is the dead-letter handler (no lease)."""
    if job.finished:
        raise JobFinishedError(job.id)
    if worker is not None:
        _own(job, worker)
    return _finish(job, now=now, status="failed", error=error, issues=issues)


def _finish(
    job: JobRecord, *, now: datetime, status: str, error: JobError | None, issues: list[Issue]
) -> JobRecord:
    return job.model_copy(
        update={
            "status": status,
            "error": error,
            "issues": issues,
            "lease_owner": None,
            "lease_until": None,
            "updated_at": now,
            "finished_at": now,
        }
    )


def _touch(job: JobRecord, now: datetime, **changes: Any) -> JobRecord:
    """Apply an owned step's changes and extend the lease: a live worker keeps its job."""
    lease_until = now + timedelta(seconds=job.lease_seconds)
    return job.model_copy(update={**changes, "updated_at": now, "lease_until": lease_until})


def _own(job: JobRecord, worker: str) -> None:
    if job.finished:
        raise JobFinishedError(job.id)
    if job.lease_owner != worker:
        raise LeaseLostError(job.id)
