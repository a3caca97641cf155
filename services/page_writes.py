"""The page write use cases, whole: create or replace, merge-patch, schedule, publish,
unpublish and restore.

Each takes the Pages unit (services/pages.py), the editor and the request's Conditions,
and decides here, once, all a write decides: the content check (bounds, characters, schema,
gate), the merge, the conditions, the schedule's tasks and whether anything changed. The REST
views, the MCP tools and the operator CLI call these and turn the errors of services/pages.py
into answers (api/errors.py `page_errors`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from backends.ports import StoredPage, VersionSource
from schemas.content.changes import merge_patch, restored, unpublished
from schemas.content.schedule import scheduled_post, without_schedule
from schemas.errors import Issue
from services.page_schedule import plan_schedule
from services.pages import (
    NO_CONDITIONS,
    Conditions,
    Editor,
    GateRefusedError,
    PageChange,
    Pages,
    change_page,
    checked,
    find_version,
    replace_page,
    revised,
)

__all__ = [
    "patch_page",
    "promote_content",
    "publish_page",
    "put_page",
    "restore_version",
    "schedule_page",
    "unpublish_page",
]

INVALID = "The payload failed validation"


def put_page(
    pages: Pages, *, payload: object, editor: Editor, conditions: Conditions = NO_CONDITIONS
) -> StoredPage:
    """Create or replace the page of the payload's slug (POST), its schedule queued.

    Raises: GateRefusedError, SlugTakenError, PreconditionFailedError, BusyError,
    UnavailableError (the schedule's queue; nothing saved).
    """
    sent = scheduled_post(payload)
    page = checked(pages, sent)

    def before_save(current: StoredPage | None) -> None:
        if isinstance(sent, dict):
            plan_schedule(pages, sent=sent, page=page, current=current)

    return replace_page(
        pages=pages.store,
        page=page,
        editor=editor,
        changed=pages.changed,
        ruleset=pages.ruleset,
        clock=pages.clock,
        conditions=conditions,
        before_save=before_save,
    )


def patch_page(
    pages: Pages,
    *,
    slug: str,
    patch: object,
    editor: Editor,
    conditions: Conditions = NO_CONDITIONS,
) -> StoredPage:
    """Apply a JSON merge patch (RFC 7396) to a visible page, through the check; a patch that
    changes nothing writes no version.

    Raises: NotFoundError, GateRefusedError, PreconditionFailedError, BusyError,
    UnavailableError.
    """
    if not isinstance(patch, dict):
        issue = Issue(field="", code="invalid_type", message="a merge patch is a JSON object")
        raise GateRefusedError([issue], INVALID)

    def change(current: StoredPage) -> StoredPage | None:
        merged = merge_patch(current.page_input, patch)
        if isinstance(merged, dict) and merged.get("slug") != slug:
            issue = Issue(field="slug", code="slug_mismatch", message=f"the slug stays {slug!r}")
            raise GateRefusedError([issue], INVALID)
        return revised(
            pages,
            current,
            merged,
            before=lambda page: plan_schedule(pages, sent=patch, page=page, current=current),
        )

    return _write(pages, slug, change, editor=editor, conditions=conditions)


def schedule_page(
    pages: Pages, *, slug: str, times: Mapping[str, str | None], editor: Editor
) -> StoredPage:
    """Set or clear (None) a page's `publish_at` / `unpublish_at`: PATCH with only those.

    Raises: NotFoundError, GateRefusedError (the schedule's issues, or today's gate on the
    page), BusyError, UnavailableError.
    """
    return patch_page(pages, slug=slug, patch=dict(times), editor=editor)


def publish_page(
    pages: Pages, *, slug: str, editor: Editor, conditions: Conditions = NO_CONDITIONS
) -> StoredPage:
    """Publish a page (PATCH `is_published: true`), through the check; a no-op if live.

    Raises: NotFoundError, GateRefusedError, PreconditionFailedError, BusyError.
    """

    def change(current: StoredPage) -> StoredPage | None:
        if current.status == "published":
            return None
        return revised(pages, current, merge_patch(current.page_input, {"is_published": True}))

    return _write(pages, slug, change, editor=editor, conditions=conditions)


def unpublish_page(
    pages: Pages, *, slug: str, editor: Editor, conditions: Conditions = NO_CONDITIONS
) -> StoredPage:
    """Take a page off /p/{slug} (DELETE); a no-op if it is already unpublished. A scheduled
    page's schedule is cancelled: it stays off until published again.

    Raises: NotFoundError, PreconditionFailedError, BusyError.
    """

    def change(current: StoredPage) -> StoredPage | None:
        if current.status == "unpublished":
            return None
        return without_schedule(unpublished(current, now=pages.clock()))

    return _write(pages, slug, change, editor=editor, conditions=conditions)


def restore_version(
    pages: Pages,
    *,
    slug: str,
    version: int,
    editor: Editor,
    conditions: Conditions = NO_CONDITIONS,
) -> StoredPage:
    """Make kept version `version` the current one again, through today's check.

    Raises: NotFoundError (no such page or version), GateRefusedError (nothing changed),
    PreconditionFailedError, BusyError.
    """
    old = find_version(pages=pages.store, slug=slug, version=version, editor=editor)
    checked(pages, dict(old.page_input), kept_from=old)

    def change(current: StoredPage) -> StoredPage:
        # A restore brings back a version's content and whether it was live, not its schedule.
        return without_schedule(restored(current, old, ruleset=pages.ruleset, now=pages.clock()))

    return _write(pages, slug, change, editor=editor, conditions=conditions, source="restore")


def promote_content(
    pages: Pages, *, slug: str, content: Mapping[str, Any], editor: Editor
) -> StoredPage:
    """Make `content` (a variant's whole page input) the page's next version through today's
    check, keeping the page's slug and whether it is published; no new version when the page
    already holds that content.

    Raises: NotFoundError, GateRefusedError (nothing changed), BusyError.
    """

    def change(current: StoredPage) -> StoredPage | None:
        merged = {
            **content,
            "slug": current.slug,
            "is_published": current.page_input.get("is_published", True),
        }
        if merged == dict(current.page_input):
            return None
        return revised(pages, current, merged)

    return _write(pages, slug, change, editor=editor)


def _write(
    pages: Pages,
    slug: str,
    change: PageChange,
    *,
    editor: Editor,
    conditions: Conditions = NO_CONDITIONS,
    source: VersionSource = "api",
) -> StoredPage:
    """One change of a visible page through the write loop, in the unit."""
    return change_page(
        pages=pages.store,
        slug=slug,
        change=change,
        editor=editor,
        changed=pages.changed,
        source=source,
        conditions=conditions,
    )
