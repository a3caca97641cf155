"""Generation job use cases: start a job for a checked brief (POST generate and the CLI), and
the job's polling URL and queue message. Keyword-only functions over the job ports; the worker
that runs a job is workers/generation_handler.py.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime

from backends.ports import JobQueue, JobStore, PageStore
from schemas.content.jobs import GenerationBrief, JobRecord
from services.pages import Editor, check_slug_free
from services.signing import new_secret

__all__ = ["ABANDONED", "encode_job_message", "job_url", "start_generation", "submit_job"]

# The error code of a job that recovery gave up on (workers/job_recovery.py): a new POST of
# its brief, even with the same Idempotency-Key, starts a new job.
ABANDONED = "abandoned"


def job_url(base_url: str, job_id: str) -> str:
    """Where a job is polled."""
    return f"{base_url}/api/public/content/jobs/{job_id}"


def encode_job_message(job_id: str) -> bytes:
    """The body every job queue carries."""
    return json.dumps({"job_id": job_id}, separators=(",", ":")).encode()


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
    return submit_job(
        jobs=jobs,
        job_queue=job_queue,
        brief=brief,
        partner=editor.partner,
        key_id=editor.key_id,
        admin=editor.admin,
        now=now,
    )


def submit_job(
    *,
    jobs: JobStore,
    job_queue: JobQueue,
    brief: GenerationBrief,
    partner: str,
    now: datetime,
    key_id: str = "",
    admin: bool = False,
) -> JobRecord:
    """Record a queued job for a checked brief and publish it.

    Raises: UnavailableError when the queue is down (the job stays recorded, queued).
    """
    job = JobRecord(
        id=uuid.uuid4().hex,
        partner=partner,
        key_id=key_id,
        admin=admin,
        brief=brief,
        callback_secret=new_secret() if brief.callback_url else None,
        created_at=now,
        updated_at=now,
    )
    jobs.create_job(job)
    job_queue.publish_job(job.id)
    return job
