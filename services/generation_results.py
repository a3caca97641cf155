"""What a generation job answers: the job as partners see it and, once it succeeded, the page it
stored (its record, with a draft's signed preview link) beside the gate's warnings and the notes
on what of the brief the page left out. POST generate, GET jobs/{id} and the staff tool that
drafts a page answer these same bodies; how each surface reports a failed job is its own.
"""

from __future__ import annotations

from typing import Any

from backends.ports import PageStore
from schemas.content.jobs import JobRecord, JobView
from services.jobs import job_url
from services.page_records import page_record

__all__ = ["generated_page_body", "job_view", "stored_page"]


def job_view(job: JobRecord, *, base_url: str, with_secret: bool = False) -> dict[str, Any]:
    """The job as JSON; `with_secret` adds its callback secret (the answer that created it)."""
    view = JobView.of(job, url=job_url(base_url, job.id), base_url=base_url).model_dump(mode="json")
    if with_secret and job.callback_secret:
        view["callback_secret"] = job.callback_secret
    return view


def stored_page(
    job: JobRecord, *, pages: PageStore, base_url: str, preview_secret: bytes
) -> dict[str, Any] | None:
    """The record of the page the job wrote (None when it is gone)."""
    stored = pages.get_page(job.page_slug or job.brief.slug)
    if stored is None:
        return None
    record = page_record(stored, base_url=base_url, preview_secret=preview_secret)
    page: dict[str, Any] = record.model_dump(mode="json")
    return page


def generated_page_body(
    job: JobRecord,
    *,
    pages: PageStore,
    base_url: str,
    preview_secret: bytes,
    with_secret: bool = False,
) -> dict[str, Any] | None:
    """A succeeded job's answer: `{ok, page, job, warnings, notes}` (None before it succeeded,
    or when its page is gone)."""
    if job.status != "succeeded":
        return None
    page = stored_page(job, pages=pages, base_url=base_url, preview_secret=preview_secret)
    if page is None:
        return None
    view = job_view(job, base_url=base_url, with_secret=with_secret)
    return {
        "ok": True,
        "page": page,
        "job": view,
        "warnings": view["warnings"],
        "notes": view["notes"],
    }
