"""The staff page toolsets on /mcp: reading the site's pages and their funnels (`pages:read`)
and drafting a new one from a generation brief (`pages:draft`).

Each answers the Content API's body for the same data: list_pages is GET
/api/public/content/pages and page_funnel GET .../pages/{slug}/stats (services/page_stats.py)
as a content_admin key sees them; draft_page_from_brief is POST
.../pages/generate's 201 body for the same brief (services/generation_results.py), except that
it never publishes and never replaces a live page (services/jobs.py start_draft). A staff draft
belongs to one partner, STAFF_PAGES_PARTNER (`ops` by default), so the team's drafts sit
together and a partner's pages and slugs stay theirs.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import partial
from typing import Annotated

import anyio.to_thread
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from backends.ports import (
    JobQueue,
    JobStore,
    NotFoundError,
    PageStore,
    SignalStore,
    UnavailableError,
)
from domain.pages import PageStatus
from schemas.content.jobs import GeneratedPage, GenerationBrief, JobRecord
from schemas.content.page_stats import PageStatsBody, StatsBy
from schemas.content.pages import PageListBody
from schemas.errors import Issue
from services import page_stats
from services import pages as pages_service
from services.generation_results import generated_page_body, job_view
from services.jobs import BriefRefusedError, DraftRefusedError, checked_brief, start_draft
from services.page_records import page_record

logger = logging.getLogger(__name__)

PAGES_READ = "pages:read"
PAGES_DRAFT = "pages:draft"
PAGE_TOOL_SCOPES: dict[str, str] = {
    "list_pages": PAGES_READ,
    "page_funnel": PAGES_READ,
    "draft_page_from_brief": PAGES_DRAFT,
}
# How a staff write through the tools is stamped in a page's history (as the CLI's is `cli`).
STAFF_KEY_ID = "mcp"
READ_ONLY = ToolAnnotations(
    readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False
)
# A draft is a new job each call (a model may write it differently), changes no live page and
# keeps every earlier version of a draft it rewrites.
DRAFTS = ToolAnnotations(
    readOnlyHint=False, destructiveHint=False, idempotentHint=False, openWorldHint=False
)


@dataclass(frozen=True)
class PagePorts:
    """What the page tools read and write, and how records are linked and previewed."""

    pages: PageStore
    signals: SignalStore
    jobs: JobStore
    job_queue: JobQueue
    clock: Callable[[], datetime]
    base_url: str
    preview_secret: bytes = field(repr=False)
    # The partner a staff draft belongs to (STAFF_PAGES_PARTNER).
    partner: str = "ops"
    # How long a draft call waits for the writer, as POST generate does.
    wait_seconds: float = 25.0


def add_page_tools(mcp: MCPServer, ports: PagePorts) -> None:
    """Register list_pages, page_funnel and draft_page_from_brief (tool_scopes hides them
    without their scopes)."""
    reader = pages_service.Editor(partner=ports.partner, key_id=STAFF_KEY_ID, admin=True)

    @mcp.tool(
        title="List the site's pages",
        description=(
            "Every partner's landing pages, newest change first, as GET "
            "/api/public/content/pages answers a content_admin key: each with its status "
            "(draft, published, unpublished), live `url`, a draft's signed `preview_url`, its "
            "gate result, owner `partner` and version. Filter by `status` and `partner`; pass "
            "`next_cursor` back as `cursor` for the next page of results."
        ),
        annotations=READ_ONLY,
    )
    async def list_pages(
        status: PageStatus | None = None,
        partner: Annotated[
            str | None, Field(min_length=1, max_length=64, description="Only this partner's")
        ] = None,
        cursor: Annotated[str | None, Field(max_length=500)] = None,
        limit: Annotated[int, Field(ge=1, le=100)] = 20,
    ) -> PageListBody:
        try:
            found = pages_service.list_visible_pages(
                pages=ports.pages,
                editor=reader,
                status=status,
                cursor=cursor,
                limit=limit,
                owner=partner,
            )
        except ValueError as err:
            raise ToolError("cursor must be the next_cursor of a previous answer") from err
        return PageListBody(
            pages=[
                page_record(p, base_url=ports.base_url, preview_secret=ports.preview_secret)
                for p in found.pages
            ],
            next_cursor=found.next_cursor,
            has_more=found.next_cursor is not None,
        )

    @mcp.tool(
        title="A page's funnel",
        description=(
            "How one page (by `slug`, from list_pages) converts: page views, unique visitors, "
            "CTA clicks, lead forms and the conversion rate (lead forms per unique visitor), "
            "over the last `days` (28 by default, at most 366) or `since`..`until` (dates, "
            "UTC), in total and, with `by`, one row per day, source, campaign or variant. "
            "The same body as GET /api/public/content/pages/{slug}/stats."
        ),
        annotations=READ_ONLY,
    )
    async def page_funnel(
        slug: Annotated[str, Field(min_length=1, max_length=120, examples=["revops-audit"])],
        days: Annotated[int | None, Field(description="The last N days, today included")] = None,
        since: date | None = None,
        until: date | None = None,
        by: StatsBy | None = None,
    ) -> PageStatsBody:
        try:
            return page_stats.page_funnel(
                pages=ports.pages,
                signals=ports.signals,
                slug=slug,
                editor=reader,
                today=ports.clock().date(),
                days=days,
                since=since,
                until=until,
                by=by,
            )
        except NotFoundError as err:
            raise ToolError(f"No page {slug!r}; list_pages shows every slug") from err
        except page_stats.StatsQueryError as err:
            raise ToolError(_issues_text("The range is refused", err.issues)) from err

    @mcp.tool(
        title="Draft a page from a brief",
        description=(
            "Write a landing page from a generation brief (the body of POST "
            "/api/public/content/pages/generate: slug, topic, icp, and optionally goal, offer, "
            "proof, cta_label, cta_href, tone, sections). The writer drafts it, the brand "
            "quality gate checks it (one retry), and it is stored as a DRAFT, never published: "
            "the answer is the page with its `preview_url` (a signed link to review it), the "
            "gate's `warnings` and the `notes` on what of the brief it left out. The page "
            f"belongs to the `{ports.partner}` partner. A slug that is live or another "
            "partner's is refused: choose a new one. A draft that fails the gate twice is an "
            "error listing each issue (field, code): change the brief and call again. Takes "
            "seconds to a minute."
        ),
        annotations=DRAFTS,
    )
    async def draft_page_from_brief(brief: GenerationBrief) -> GeneratedPage:
        token = get_access_token()
        actor = token.subject if token is not None else None
        job = await anyio.to_thread.run_sync(partial(_draft, brief, ports, actor))
        body = generated_page_body(
            job,
            pages=ports.pages,
            base_url=ports.base_url,
            preview_secret=ports.preview_secret,
            with_secret=True,
        )
        if body is None:
            raise ToolError(_failure_text(job, ports.base_url))
        return GeneratedPage.model_validate(body)


def _draft(brief: GenerationBrief, ports: PagePorts, actor: str | None) -> JobRecord:
    """Check the brief as POST generate does, start the job and wait for it (a worker thread:
    the stores block)."""
    try:
        checked = checked_brief(brief.model_dump(mode="json", exclude_unset=True))
        job = start_draft(
            pages=ports.pages,
            jobs=ports.jobs,
            job_queue=ports.job_queue,
            brief=checked,
            editor=pages_service.Editor(partner=ports.partner, key_id=STAFF_KEY_ID),
            now=ports.clock(),
        )
    except BriefRefusedError as err:
        raise ToolError(_issues_text(err.message, err.issues)) from err
    except DraftRefusedError as err:
        raise ToolError(_issues_text("The draft was refused", [err.issue])) from err
    except pages_service.SlugTakenError as err:
        issue = Issue(field="slug", code="slug_taken", message="used by another partner")
        raise ToolError(_issues_text(f"The slug {brief.slug!r} is taken", [issue])) from err
    except UnavailableError as err:
        raise ToolError("The job queue is unavailable; retry in a few seconds") from err
    logger.info(
        "staff draft of %s started as job %s",
        checked.slug,
        job.id,
        extra={"actor": actor, "job_id": job.id, "slug": checked.slug},
    )
    return ports.jobs.wait_finished(job.id, ports.wait_seconds) or job


def _issues_text(message: str, issues: list[Issue]) -> str:
    listed = [issue.model_dump(mode="json") for issue in issues]
    return f"{message}: {json.dumps({'issues': listed})}"


def _failure_text(job: JobRecord, base_url: str) -> str:
    """Why no draft came back, with what POST generate's failure body carries."""
    view = job_view(job, base_url=base_url)
    if not job.finished:
        return (
            f"The draft is still being written (job {job.id}, {job.status}); it will be "
            "stored as a draft: find it with list_pages (status draft) in a minute"
        )
    error = job.error.code if job.error is not None else "unavailable"
    messages = {
        "invalid_payload": "The generated page failed the quality gate twice; change the brief",
        "slug_taken": "Another partner's page took this slug while the job ran; choose another",
        "model_failed": "The authoring model failed; retry",
    }
    detail = {"error": error, "issues": view["issues"], "notes": view["notes"], "job": view}
    message = messages.get(error, "The job could not be completed; retry")
    return f"{message}: {json.dumps(detail)}"
