"""run_generation: author, hero image, gate, the gate's one retry, store; each step once.

Every finished step is recorded in the job store before the next starts (workers/steps.py),
so a redelivered job resumes where the last delivery stopped, and the writer budget is
claimed in the store before each writer call. Ports come in as arguments; nothing is built.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from backends.ports import (
    Blob,
    BlobStore,
    JobStore,
    NotFoundError,
    PageStore,
    QuotaExceededError,
    VariantLimitError,
    VariantStore,
)
from schemas.catalog import Brand
from schemas.content.jobs import (
    MAX_WRITER_CALLS,
    BriefNote,
    GenerationBrief,
    JobError,
    JobRecord,
    JobVariant,
)
from schemas.content.pages import SitePageInput
from schemas.errors import Issue, errors_of
from schemas.public import Company
from services import pages as pages_service
from services import variants as variants_service
from services.pages import PageChanged
from workers import steps
from workers.authoring.base import AngledAuthor, Author, ModelError, NotingAuthor
from workers.authoring.notes import brief_notes
from workers.authoring.prompt import gate_feedback
from workers.imaging.base import HeroImager, ImageModelError, hero_files
from workers.imaging.procedural import ProceduralImager
from workers.lease_keeper import keep_job_lease

logger = logging.getLogger(__name__)

HERO_CACHE_CONTROL = "public, max-age=31536000, immutable"
Gate = Callable[[dict[str, Any], GenerationBrief], list[Issue]]
Notify = Callable[[JobRecord], None]


@dataclass(frozen=True)
class GenerationPorts:
    """What one generation run reads and writes."""

    jobs: JobStore
    pages: PageStore
    variants: VariantStore
    blobs: BlobStore
    author: Author
    imager: HeroImager
    brand: Brand
    company: Company
    gate: Gate
    ruleset: str
    clock: Callable[[], datetime]
    notify: Notify | None = None
    # Told the slug of every page stored: the CDN purge and this process's /p/ lookup memo.
    page_changed: PageChanged = field(default=lambda _slug: None)
    # Whether a job's lease holder is known to be gone (a process of this host that exited):
    # its lease is taken over at once (backends/lease_holders.py).
    holder_gone: Callable[[str | None], bool] = field(default=lambda _holder: False)


def run_generation(
    job_id: str, *, ports: GenerationPorts, worker: str, lease: timedelta
) -> JobRecord:
    """Run (or resume) one job to `succeeded` or `failed`.

    Raises: JobFinishedError (a duplicate), JobBusyError (another worker has it),
    LeaseLostError, and port errors such as UnavailableError (deliver again).
    """
    stored = ports.jobs.get_job(job_id)
    holder = stored.lease_owner if stored is not None else None
    released = holder if holder is not None and ports.holder_gone(holder) else None
    job = _update(ports, job_id, steps.start_attempt, worker=worker, lease=lease, released=released)
    logger.info("job %s attempt %d started", job_id, job.attempts, extra={"job_id": job_id})
    with keep_job_lease(ports.jobs, job_id, worker=worker, lease=lease, clock=ports.clock):
        return _run_attempts(job, ports=ports, worker=worker)


def _run_attempts(job: JobRecord, *, ports: GenerationPorts, worker: str) -> JobRecord:
    """The writer, the hero image, the gate and its one retry, the page: from where the job is."""
    job_id = job.id
    feedback: list[Issue] | None = None
    for attempt in range(1, MAX_WRITER_CALLS + 1):  # the gate's one retry
        if len(job.drafts) < attempt:
            written = _write_draft(job, ports=ports, worker=worker, feedback=feedback)
            if written.finished:
                return _notify(ports, written)
            job = written
        if attempt == 1:
            job = _ensure_hero(job, ports=ports, worker=worker)
        draft = job.drafts[attempt - 1]
        if draft.issues is None:
            issues = ports.gate(draft.payload, job.brief)
            job = _update(ports, job_id, steps.record_gate, attempt - 1, issues, worker=worker)
            draft = job.drafts[attempt - 1]
        logger.info(
            "job %s draft %d gate %s", job_id, attempt, "passed" if draft.passed else "failed"
        )
        if draft.passed:
            try:
                stored = _ensure_stored(job, ports=ports, worker=worker)
            except QuotaExceededError:
                error = JobError(
                    code="storage_quota_exceeded",
                    message="The partner's pages are at their storage quota",
                )
                full = _update(ports, job_id, steps.fail, error=error, issues=[], worker=worker)
                return _notify(ports, full)
            if stored is None:  # another partner took the slug meanwhile: theirs stays
                error = JobError(code="slug_taken", message="Another partner's page has this slug")
                taken = _update(ports, job_id, steps.fail, error=error, issues=[], worker=worker)
                return _notify(ports, taken)
            job = _ensure_variants(stored, ports=ports, worker=worker)
            return _notify(ports, _update(ports, job_id, steps.succeed, worker=worker))
        # Only errors go back: a warning is a judgement call the page may keep.
        feedback = gate_feedback(errors_of(draft.issues or []), draft.payload)
    error = JobError(code="invalid_payload", message="The page failed the quality gate twice")
    last = errors_of(job.drafts[-1].issues or []) if job.drafts else []
    failed = _update(ports, job_id, steps.fail, error=error, issues=last, worker=worker)
    return _notify(ports, failed)


def _write_draft(
    job: JobRecord, *, ports: GenerationPorts, worker: str, feedback: list[Issue] | None
) -> JobRecord:
    """Claim a writer call in the store, then call the writer and keep its page."""
    try:
        job = _update(ports, job.id, steps.claim_writer_call, worker=worker)
    except steps.WriterBudgetSpentError:
        # Earlier deliveries died mid-call and spent the budget.
        return _fail_spent(job, ports=ports, worker=worker)
    logger.info("job %s writer call %d", job.id, job.writer_calls, extra={"job_id": job.id})
    try:
        payload = ports.author.write(
            job.brief, brand=ports.brand, company=ports.company, feedback=feedback
        )
    except ModelError as err:
        logger.warning("job %s: model failed: %s", job.id, err.reason, extra={"job_id": job.id})
        error = JobError(code="model_failed", message=str(err), retryable=True)
        return _update(ports, job.id, steps.fail, error=error, issues=[], worker=worker)
    notes = _notes(job, payload, author=ports.author, ports=ports)
    return _update(ports, job.id, steps.record_draft, payload, notes=notes, worker=worker)


def _notes(
    job: JobRecord, payload: dict[str, Any], *, author: Author, ports: GenerationPorts
) -> list[BriefNote]:
    notes = brief_notes(job.brief, payload, brand=ports.brand)
    if isinstance(author, NotingAuthor):
        own = author.brief_notes(job.brief, brand=ports.brand, company=ports.company)
        notes = [n for n in notes if n.field not in {o.field for o in own}] + own
    return notes


# A variant's id on the page by the writer's angle (desk.py): b another headline, c another
# proof first, d another voice; `variants: 2` gives the page and b.
VARIANT_IDS = {1: "b", 2: "c", 3: "d"}


def _ensure_variants(job: JobRecord, *, ports: GenerationPorts, worker: str) -> JobRecord:
    """Write, gate and store each variant the brief asks for that has not ended yet. A variant
    the gate refuses, or the writer fails, is recorded as such; the page stands either way."""
    for angle in range(1, job.brief.variants or 1):
        done = steps.variant_of(job, VARIANT_IDS[angle])
        if done is None or not done.finished:
            job = _write_variant(job, angle, ports=ports, worker=worker)
    return job


def _write_variant(job: JobRecord, angle: int, *, ports: GenerationPorts, worker: str) -> JobRecord:
    """One variant through the writer, the gate and its one retry, to the page's variants."""
    variant_id = VARIANT_IDS[angle]
    if not isinstance(ports.author, AngledAuthor):
        error = JobError(code="not_supported", message="This writer writes no variants")
        ended = JobVariant(id=variant_id, angle=angle, status="failed", error=error)
        return _update(ports, job.id, steps.record_variant, ended, worker=worker)
    author = ports.author.at_angle(angle)
    feedback: list[Issue] | None = None
    for attempt in range(1, MAX_WRITER_CALLS + 1):
        variant = steps.variant_of(job, variant_id)
        if variant is None or len(variant.drafts) < attempt:
            job = _draft_variant(
                job, angle, author=author, ports=ports, worker=worker, feedback=feedback
            )
            variant = steps.variant_of(job, variant_id)
            if variant is None or variant.finished:
                return job
        draft = variant.drafts[attempt - 1]
        if draft.issues is None:
            draft = draft.model_copy(update={"issues": ports.gate(draft.payload, job.brief)})
            drafts = [*variant.drafts[: attempt - 1], draft]
            variant = variant.model_copy(update={"drafts": drafts})
            job = _update(ports, job.id, steps.record_variant, variant, worker=worker)
        logger.info(
            "job %s variant %s draft %d gate %s",
            job.id,
            variant_id,
            attempt,
            "passed" if draft.passed else "failed",
        )
        if draft.passed:
            return _store_variant(job, variant, ports=ports, worker=worker)
        feedback = gate_feedback(errors_of(draft.issues or []), draft.payload)
    return _refuse_variant(job, variant_id, ports=ports, worker=worker)


def _draft_variant(
    job: JobRecord,
    angle: int,
    *,
    author: Author,
    ports: GenerationPorts,
    worker: str,
    feedback: list[Issue] | None,
) -> JobRecord:
    """Claim a writer call for the variant in the store, then call the writer and keep it."""
    variant_id = VARIANT_IDS[angle]
    try:
        job = _update(ports, job.id, steps.claim_variant_call, variant_id, angle, worker=worker)
    except steps.WriterBudgetSpentError:  # earlier deliveries died mid-call
        return _refuse_variant(job, variant_id, ports=ports, worker=worker)
    try:
        payload = author.write(
            job.brief, brand=ports.brand, company=ports.company, feedback=feedback
        )
    except ModelError as err:
        logger.warning("job %s variant %s: model failed: %s", job.id, variant_id, err.reason)
        claimed = steps.variant_of(job, variant_id)
        assert claimed is not None  # noqa: S101  # claim_variant_call recorded it
        error = JobError(code="model_failed", message=str(err), retryable=True)
        ended = claimed.model_copy(update={"status": "failed", "error": error})
        return _update(ports, job.id, steps.record_variant, ended, worker=worker)
    notes = _notes(job, payload, author=author, ports=ports)
    return _update(
        ports, job.id, steps.record_variant_draft, variant_id, payload, notes=notes, worker=worker
    )


def _refuse_variant(
    job: JobRecord, variant_id: str, *, ports: GenerationPorts, worker: str
) -> JobRecord:
    """End a variant without storing it: its last draft failed the gate, or its writer calls
    were spent by deliveries that died mid-call."""
    variant = steps.variant_of(job, variant_id)
    assert variant is not None  # noqa: S101  # only a claimed variant is refused
    last = variant.drafts[-1] if variant.drafts else None
    issues = errors_of(last.issues or []) if last is not None else []
    if issues:
        ended = variant.model_copy(update={"status": "refused", "issues": issues})
    else:
        error = JobError(code="model_failed", message="The writer did not answer", retryable=True)
        ended = variant.model_copy(update={"status": "failed", "error": error})
    logger.info("job %s variant %s %s", job.id, variant_id, ended.status)
    return _update(ports, job.id, steps.record_variant, ended, worker=worker)


def _store_variant(
    job: JobRecord, variant: JobVariant, *, ports: GenerationPorts, worker: str
) -> JobRecord:
    """Store a passed variant draft as a variant of the job's page."""
    try:
        variants_service.store_generated_variant(
            pages=ports.pages,
            variants=ports.variants,
            slug=job.brief.slug,
            variant_id=variant.id,
            page_input=variant.drafts[-1].payload,
            editor=job.editor,
            ruleset=ports.ruleset,
            now=ports.clock(),
            changed=ports.page_changed,
        )
    except VariantLimitError as err:
        issue = Issue(
            field="variants",
            code="too_many_variants",
            message=f"the page already has {err.limit} variants of other ids; delete one",
        )
        ended = variant.model_copy(update={"status": "refused", "issues": [issue]})
    except NotFoundError:
        error = JobError(code="not_found", message="The page was deleted before its variant")
        ended = variant.model_copy(update={"status": "failed", "error": error})
    else:
        logger.info("job %s stored variant %s", job.id, variant.id, extra={"job_id": job.id})
        ended = variant.model_copy(update={"status": "written"})
    return _update(ports, job.id, steps.record_variant, ended, worker=worker)


def _fail_spent(job: JobRecord, *, ports: GenerationPorts, worker: str) -> JobRecord:
    last = job.drafts[-1] if job.drafts else None
    if last is not None and errors_of(last.issues or []):
        error = JobError(code="invalid_payload", message="The page failed the quality gate")
        issues = errors_of(last.issues or [])
    else:
        error = JobError(code="model_failed", message="The writer did not answer", retryable=True)
        issues = []
    return _update(ports, job.id, steps.fail, error=error, issues=issues, worker=worker)


def _ensure_hero(job: JobRecord, *, ports: GenerationPorts, worker: str) -> JobRecord:
    if not job.brief.generate_image or job.hero_image_url is not None:
        return job
    palette = dict(ports.brand.palette)
    try:
        picture = ports.imager.render(slug=job.brief.slug, topic=job.brief.topic, palette=palette)
    except ImageModelError as err:
        logger.warning("job %s: image model failed (%s); drawing instead", job.id, err)
        picture = ProceduralImager().render(
            slug=job.brief.slug, topic=job.brief.topic, palette=palette
        )
    urls = [
        ports.blobs.put_blob(
            f.name, Blob(data=f.data, content_type=f.content_type, cache_control=HERO_CACHE_CONTROL)
        )
        for f in hero_files(picture, slug=job.brief.slug)
    ]
    logger.info("job %s hero image stored", job.id, extra={"job_id": job.id})
    return _update(ports, job.id, steps.record_image, urls[0], worker=worker)


def _ensure_stored(job: JobRecord, *, ports: GenerationPorts, worker: str) -> JobRecord | None:
    """Store the passed draft as the page; None if another partner owns the slug (theirs stays)."""
    if job.page_stored:
        return job
    stored = pages_service.store_generated_page(
        pages=ports.pages,
        page=SitePageInput.model_validate(job.drafts[-1].payload),
        editor=job.editor,
        hero_image_url=job.hero_image_url,
        ruleset=ports.ruleset,
        clock=ports.clock,
        changed=ports.page_changed,
    )
    if stored is None:
        return None
    logger.info("job %s stored page %s", job.id, job.brief.slug, extra={"job_id": job.id})
    return _update(ports, job.id, steps.record_stored, worker=worker)


def _update(ports: GenerationPorts, job_id: str, step: Any, *args: Any, **kwargs: Any) -> JobRecord:
    """Apply one pure step to the stored job, atomically, with the current time."""
    now = ports.clock()
    return ports.jobs.update_job(job_id, lambda job: step(job, *args, now=now, **kwargs))


def _notify(ports: GenerationPorts, job: JobRecord) -> JobRecord:
    if job.status == "failed":  # once: a finished job refuses every later step
        logger.error(
            "job %s failed: %s",
            job.id,
            job.error.code if job.error else "unknown",
            extra={"job_id": job.id, "event": "job_failed"},  # terraform/monitoring.tf counts these
        )
    if ports.notify is not None and job.finished:
        ports.notify(job)
    return job
