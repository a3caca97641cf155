"""A page's schedule: `publish_at` and `unpublish_at` in its input, the `scheduled` status they
make, and what a write may set. Pure, beside schemas/content/changes.py; the tasks that carry
a schedule out are services/page_schedule.py.

The times are part of the page's input, so POST sets them, PATCH sets or clears them (null),
reads and history show them. Every write settles the page (`settled`): a page with a
`publish_at` that is not live is `scheduled`; a live page holds no `publish_at` (it went live);
only a live or scheduled page holds an `unpublish_at` (there is nothing else to take down). A
scheduled page whose `publish_at` is cleared goes back to `draft`, or to `unpublished` if it
was live before.
"""

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict

from domain.pages import StoredPage
from schemas.content.pages import SitePageInput
from schemas.errors import Issue

ScheduleAction = Literal["publish", "unpublish"]
SCHEDULE_FIELDS: dict[ScheduleAction, str] = {"publish": "publish_at", "unpublish": "unpublish_at"}


def schedule_time(page_input: Mapping[str, Any], field: str) -> datetime | None:
    """The time a stored input holds in `field` (publish_at, unpublish_at), if any."""
    value = page_input.get(field)
    if not isinstance(value, str):
        return None
    try:
        at = datetime.fromisoformat(value)
    except ValueError:
        return None
    return at if at.tzinfo is not None else None


def settled(page: StoredPage) -> StoredPage:
    """The page as its schedule leaves it after a write (the rules of the module docstring)."""
    data = dict(page.page_input)
    status = page.status
    if status == "published":
        data.pop("publish_at", None)
    elif "publish_at" in data:
        status = "scheduled"
    elif status == "scheduled":
        status = "draft" if page.published_at is None else "unpublished"
    if status not in ("published", "scheduled"):
        data.pop("unpublish_at", None)
    if status == "scheduled":
        data["is_published"] = False
    if (status, data) == (page.status, dict(page.page_input)):
        return page
    return replace(page, status=status, page_input=data)


def without_schedule(page: StoredPage) -> StoredPage:
    """The page with neither time (an unpublish by hand, a restore), settled."""
    data = {k: v for k, v in page.page_input.items() if k not in ("publish_at", "unpublish_at")}
    return settled(replace(page, page_input=data))


def scheduled_post(payload: object) -> object:
    """A POST body with `publish_at` and no `is_published`: not live until then (false)."""
    scheduled = isinstance(payload, dict) and payload.get("publish_at") is not None
    if scheduled and isinstance(payload, dict) and "is_published" not in payload:
        return {**payload, "is_published": False}
    return payload


def schedule_issues(
    *, sent: Mapping[str, Any], page: SitePageInput, current: StoredPage | None, now: datetime
) -> list[Issue]:
    """What is wrong with the schedule a write sets: `sent` is the body (POST) or the merge patch
    (PATCH), `page` the page it makes (gated), `current` the page as stored.

    A time the write sets must be in the future (one it repeats as stored is not judged again,
    so a retried write answers as the first did); `unpublish_at` comes after `publish_at`; a
    page with a `publish_at` is not live until then (so not with `is_published: true` sent, nor
    on a live page unless `is_published: false` is sent with it); an `unpublish_at` needs a page
    that is live or scheduled.
    """
    stored = current.page_input if current is not None else {}
    issues: list[Issue] = []
    for field in ("publish_at", "unpublish_at"):
        at: datetime | None = getattr(page, field)
        if sent.get(field) is None or at is None:
            continue
        if at != schedule_time(stored, field) and at <= now:
            issues.append(Issue(field=field, code="in_the_past", message="must be in the future"))
    if page.publish_at is not None and sent.get("publish_at") is not None and page.is_published:
        issues.append(
            Issue(
                field="publish_at",
                code="conflicts_with_is_published",
                message="a page with publish_at goes live at that time; send is_published:"
                " false with it, or leave is_published out",
            )
        )
    if page.unpublish_at is not None:
        if page.publish_at is not None and page.unpublish_at <= page.publish_at:
            issues.append(
                Issue(field="unpublish_at", code="before_publish_at", message="must be after")
            )
        live = page.is_published or page.publish_at is not None
        if sent.get("unpublish_at") is not None and not live:
            issues.append(
                Issue(
                    field="unpublish_at",
                    code="not_live",
                    message="the page is neither published nor scheduled: set publish_at too",
                )
            )
    return issues


class ScheduleTaskInput(BaseModel):
    """The body of a schedule task (POST /internal/pages/{slug}/schedule)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action: ScheduleAction
    at: AwareDatetime
