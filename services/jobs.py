"""Generation job use cases: start a job for a checked brief (POST generate and the CLI), and
the job's polling URL and queue message. Keyword-only functions over the job ports; the worker
that runs a job is workers/generation_handler.py.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import ValidationError

from backends.ports import JobQueue, JobStore, PageStore
from schemas.content.characters import character_issues
from schemas.content.jobs import GenerationBrief, JobRecord
from schemas.errors import Issue, issues_from_errors
from services.pages import Editor, check_slug_free
from services.payload_bounds import BRIEF_BOUNDS, bound_payload
from services.signing import new_secret

__all__ = [
    "ABANDONED",
    "BriefRefusedError",
    "DraftRefusedError",
    "checked_brief",
    "job_url",
    "start_draft",
    "start_generation",
    "submit_job",
]

# The error code of a job that recovery gave up on (workers/job_recovery.py): a new POST of
# its brief, even with the same Idempotency-Key, starts a new job.
ABANDONED = "abandoned"


class BriefRefusedError(Exception):
    """The brief is over a bound, holds a refused character or fails its schema; no job."""

    def __init__(self, issues: list[Issue], message: str) -> None:
        super().__init__(message)
        self.issues = issues
        self.message = message


def checked_brief(payload: object, *, allow_loopback_http: bool = False) -> GenerationBrief:
    """A parsed JSON brief, bounded, character-checked and validated, every issue together.

    `allow_loopback_http` lets `callback_url` be an http loopback receiver (a local run).
    Raises: BriefRefusedError.
    """
    bounded = bound_payload(payload, BRIEF_BOUNDS)
    if bounded.whole:
        raise BriefRefusedError(list(bounded.issues), "The brief is over a size or count limit")
    refused = [*bounded.issues, *character_issues(bounded.payload)]
    try:
        brief = GenerationBrief.model_validate(
            bounded.payload, context={"allow_loopback_http": allow_loopback_http}
        )
    except ValidationError as err:
        raise BriefRefusedError(
            refused + issues_from_errors(err.errors()), "The brief is invalid"
        ) from err
    if refused:
        raise BriefRefusedError(refused, "The brief is invalid")
    return brief


class DraftRefusedError(Exception):
    """A draft that would publish, or that would replace a live page; no job."""

    def __init__(self, issue: Issue) -> None:
        super().__init__(issue.message)
        self.issue = issue


def start_draft(
    *,
    pages: PageStore,
    jobs: JobStore,
    job_queue: JobQueue,
    brief: GenerationBrief,
    editor: Editor,
    now: datetime,
) -> JobRecord:
    """Start a generation that can only end in a draft: the brief may not ask to publish, and
    its slug may not hold a live page (the draft would replace it, taking it down). A draft of
    this editor's own goes on to a new version; another partner's slug is refused as by
    start_generation.

    Raises: DraftRefusedError, SlugTakenError, UnavailableError (as start_generation).
    """
    if brief.publish:
        raise DraftRefusedError(
            Issue(
                field="publish",
                code="not_allowed",
                message="a draft is never published here; leave publish out, review the "
                "draft by its preview link, then publish it through the Content API",
            )
        )
    current = check_slug_free(pages=pages, slug=brief.slug, editor=editor)
    if current is not None and current.status == "published":
        raise DraftRefusedError(
            Issue(
                field="slug",
                code="page_live",
                message=f"/p/{brief.slug} is live: a draft would take it down; choose a new slug",
            )
        )
    return start_generation(
        pages=pages, jobs=jobs, job_queue=job_queue, brief=brief, editor=editor, now=now
    )


def job_url(base_url: str, job_id: str) -> str:
    """Where a job is polled."""
    return f"{base_url}/api/public/content/jobs/{job_id}"


def start_generation(
    *,
    pages: PageStore,
    jobs: JobStore,
    job_queue: JobQueue,
    brief: GenerationBrief,
    editor: Editor,
    now: datetime,
) -> JobRecord:
    """Check at once that the editor may write the brief's slug, then record and queue a job.

    Raises: SlugTakenError (another partner owns the slug; no job), UnavailableError when the
    queue is down (the job stays recorded, queued).
    """
    check_slug_free(pages=pages, slug=brief.slug, editor=editor)
    return submit_job(jobs=jobs, job_queue=job_queue, brief=brief, editor=editor, now=now)


def submit_job(
    *,
    jobs: JobStore,
    job_queue: JobQueue,
    brief: GenerationBrief,
    editor: Editor,
    now: datetime,
) -> JobRecord:
    """Record a queued job for a checked brief, kept with its editor whole, and publish it.

    Raises: UnavailableError when the queue is down (the job stays recorded, queued).
    """
    job = JobRecord(
        id=uuid.uuid4().hex,
        editor=editor,
        brief=brief,
        callback_secret=new_secret() if brief.callback_url else None,
        created_at=now,
        updated_at=now,
    )
    jobs.create_job(job)
    job_queue.publish_job(job.id)
    return job
