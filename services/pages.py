"""Pages: who may see and change a page, the unit every page use case works in, and the rules
every page write shares. The whole write use cases are services/page_writes.py's.

A page belongs to the partner whose key created it (`owner`). Another partner's key sees no
such page (NotFoundError, as for a slug nobody has) and may not take its slug (SlugTakenError);
an admin editor (a `content_admin` key, or the operator CLI) sees and changes every page, and
the owner stays the owner. Every write stamps the version with who wrote it and how.

The Pages unit holds what a write needs besides its own arguments: the store, the change
listeners (the CDN purge and the lookup memo), the brand and the gate's ruleset for it, the
clock, and the task queue a schedule is queued on. `checked` is the one judgement of a page's
content (bounds, characters, schema, gate: every issue at once); `revised` the one way a stored
page takes new content (PATCH, publish, a scheduled publish, an experiment's winner); `_settle`
the one optimistic write loop, where the request's Conditions are checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cached_property
from typing import Any, TypeVar

from backends.ports import (
    ConflictError,
    DeliveryOptions,
    NotFoundError,
    PageList,
    PageStatus,
    PageStore,
    StoredPage,
    TaskQueue,
    VersionList,
    VersionSource,
)
from domain.editors import Editor
from domain.etags import etag_listed
from gate.check import PageVerdict, judge_page, rule_findings
from gate.check import ruleset as gate_ruleset
from schemas.catalog import Brand
from schemas.content.changes import (
    patched,
    replaced,
    stored_input,
)
from schemas.content.characters import character_issues
from schemas.content.pages import SLUG_MAX_LENGTH, SLUG_PATTERN, SitePageInput
from schemas.content.schedule import settled
from schemas.errors import Issue, errors_of, warnings_of
from services.page_records import etag
from services.payload_bounds import PAGE_BOUNDS, bound_payload

__all__ = [
    "NO_CONDITIONS",
    "BusyError",
    "Conditions",
    "Editor",
    "GateRefusedError",
    "PageChanged",
    "Pages",
    "PreconditionFailedError",
    "SlugTakenError",
    "bounded_page",
    "change_page",
    "check_slug_free",
    "checked",
    "find_page",
    "find_version",
    "list_history",
    "list_visible_pages",
    "page_warnings",
    "replace_page",
    "revised",
    "store_generated_page",
]

_SLUG = re.compile(SLUG_PATTERN)
ATTEMPTS = 5  # re-read and retry when another writer got there first (no precondition given)
PageChange = Callable[[StoredPage], StoredPage | None]
_Written = TypeVar("_Written", bound=StoredPage | None)
# Told the slug after every write, saved or a no-op: clears /p/{slug} from the CDN and from this
# process's lookup memo (services.page_changes.PageChanges).
PageChanged = Callable[[str], None]


class SlugTakenError(Exception):
    """The slug belongs to another partner's page; nothing was changed."""


class PreconditionFailedError(Exception):
    """If-Match / If-None-Match did not hold; `current` is the page as stored (if visible)."""

    def __init__(self, current: StoredPage | None) -> None:
        super().__init__("precondition failed")
        self.current = current


GATE_REFUSED = "The page failed the schema or the quality gate"


class GateRefusedError(Exception):
    """The page failed the bounds, the schema or the quality gate; nothing was changed.
    `message` says which, for the answer."""

    def __init__(self, issues: list[Issue], message: str = GATE_REFUSED) -> None:
        super().__init__(f"{len(issues)} issues")
        self.issues = issues
        self.message = message


class BusyError(Exception):
    """The page kept changing under this write; the caller may retry."""


@dataclass(frozen=True)
class Conditions:
    """A write's conditions on the page as stored (RFC 9110 13.1.1 and 13.1.2): `if_match`
    (compared strongly: a weak tag never matches) and `if_none_match` (weakly), each a list of
    tags or `*`, as the client sent them; None when not sent."""

    if_match: str | None = None
    if_none_match: str | None = None

    def check(self, current: StoredPage | None) -> None:
        """Raises: PreconditionFailedError when a condition does not hold for `current`
        (None: no page of the slug yet)."""
        if self.if_match is not None and (
            current is None or not etag_listed(self.if_match, etag(current), weak=False)
        ):
            raise PreconditionFailedError(current)
        if (
            self.if_none_match is not None
            and current is not None
            and etag_listed(self.if_none_match, etag(current))
        ):
            raise PreconditionFailedError(current)


NO_CONDITIONS = Conditions()


def find_page(*, pages: PageStore, slug: str, editor: Editor) -> StoredPage:
    """The page if this editor may see it. Raises: NotFoundError (absent or another's)."""
    # A slug no page can have never reaches the store: Firestore refuses some ids outright
    # (`__x__`, `..`, past 1500 bytes) with an error that is no "not found".
    if len(slug) > SLUG_MAX_LENGTH or not _SLUG.match(slug):
        raise NotFoundError(slug)
    page = pages.get_page(slug)
    if page is None or not editor.sees(page):
        raise NotFoundError(slug)
    return page


def check_slug_free(*, pages: PageStore, slug: str, editor: Editor) -> StoredPage | None:
    """The page of this slug if the editor may write it (None if there is none).

    Raises: SlugTakenError when another partner owns it.
    """
    page = pages.get_page(slug)
    if page is not None and not editor.sees(page):
        raise SlugTakenError(slug)
    return page


def list_visible_pages(
    *,
    pages: PageStore,
    editor: Editor,
    status: PageStatus | None = None,
    cursor: str | None = None,
    limit: int = 50,
    owner: str | None = None,
) -> PageList:
    """The editor's own pages, newest first; an admin sees every partner's (or one `owner`'s).

    A partner asking for another partner's pages gets none, as if that partner had none.
    """
    if not editor.admin and owner not in (None, editor.partner):
        return PageList(pages=())
    scope = owner if editor.admin else editor.partner
    return pages.list_pages(status=status, cursor=cursor, limit=limit, owner=scope)


def list_history(
    *, pages: PageStore, slug: str, editor: Editor, cursor: str | None = None, limit: int = 50
) -> VersionList:
    """A visible page's kept versions, newest first. Raises: NotFoundError, ValueError (cursor)."""
    find_page(pages=pages, slug=slug, editor=editor)
    return pages.list_versions(slug, cursor=cursor, limit=limit)


def find_version(*, pages: PageStore, slug: str, version: int, editor: Editor) -> StoredPage:
    """One kept version of a visible page. Raises: NotFoundError."""
    find_page(pages=pages, slug=slug, editor=editor)
    found = pages.get_version(slug, version)
    if found is None:
        raise NotFoundError(f"{slug} v{version}")
    return found


def stamp(
    page: StoredPage, *, editor: Editor, source: VersionSource, owner: str | None
) -> StoredPage:
    """The page as written by `editor`: a new page is the editor's own; its status as its
    schedule leaves it (schemas/content/schedule.py)."""
    return settled(
        replace(
            page,
            owner=owner or editor.partner,
            editor=editor.partner,
            editor_key_id=editor.key_id,
            edit_source=source,
        )
    )


def replace_page(
    *,
    pages: PageStore,
    page: SitePageInput,
    editor: Editor,
    changed: PageChanged,
    ruleset: str,
    clock: Callable[[], datetime],
    conditions: Conditions = NO_CONDITIONS,
    before_save: Callable[[StoredPage | None], None] | None = None,
) -> StoredPage:
    """Create or replace the page of `page.slug` (POST); `before_save` runs on the page as
    read, once the conditions hold (the schedule's tasks are queued there).

    Raises: SlugTakenError, PreconditionFailedError, BusyError, and what `before_save` raises.
    """

    def attempt() -> StoredPage:
        current = check_slug_free(pages=pages, slug=page.slug, editor=editor)
        conditions.check(current)
        if before_save is not None:
            before_save(current)
        new = replaced(current, page, source="api", ruleset=ruleset, now=clock())
        new = stamp(new, editor=editor, source="api", owner=current.owner if current else None)
        return pages.save_page(new, expected_version=current.version if current else 0)

    return _settle(page.slug, attempt, changed=changed)


def change_page(
    *,
    pages: PageStore,
    slug: str,
    change: PageChange,
    editor: Editor,
    changed: PageChanged,
    source: VersionSource = "api",
    conditions: Conditions = NO_CONDITIONS,
) -> StoredPage:
    """Read, check the conditions, change, save at the version read; retry lost races.
    `change` returning None leaves the page as it is (the caches are told all the same).

    Raises: NotFoundError, PreconditionFailedError, BusyError, and whatever `change` raises.
    """

    def attempt() -> StoredPage:
        current = find_page(pages=pages, slug=slug, editor=editor)
        conditions.check(current)
        new = change(current)
        if new is None:
            return current
        new = stamp(new, editor=editor, source=source, owner=current.owner)
        return pages.save_page(new, expected_version=current.version)

    return _settle(slug, attempt, changed=changed)


def store_generated_page(
    *,
    pages: PageStore,
    page: SitePageInput,
    editor: Editor,
    hero_image_url: str | None,
    ruleset: str,
    clock: Callable[[], datetime],
    changed: PageChanged,
) -> StoredPage | None:
    """Store a generation job's passed draft as the page of its slug (version source `generate`).

    A page an earlier delivery of the same job stored already counts as stored. None (nothing
    changed) when another partner owns the slug. Raises: ConflictError when the page kept
    changing under this write (the job is delivered again).
    """

    def attempt() -> StoredPage | None:
        existing = pages.get_page(page.slug)
        # Ownership first: another partner's job with the same brief writes the same page
        # (the writer is deterministic), which is theirs, never this job's "already stored".
        if existing is not None and not editor.sees(existing):
            return None
        if _stored_by_generation(existing, page, hero_image_url=hero_image_url):
            return existing
        new = replaced(
            existing,
            page,
            source="generate",
            ruleset=ruleset,
            now=clock(),
            hero_image_url=hero_image_url,
        )
        new = stamp(
            new, editor=editor, source="generate", owner=existing.owner if existing else None
        )
        return pages.save_page(new, expected_version=existing.version if existing else 0)

    try:
        # A page of this slug may have been cached while it was published: the caches hear.
        return _settle(page.slug, attempt, changed=changed)
    except BusyError:
        raise ConflictError(page.slug) from None


def _settle(slug: str, attempt: Callable[[], _Written], *, changed: PageChanged) -> _Written:
    """The optimistic write loop of every page write.

    `attempt` reads the page, checks who may write it and the caller's precondition, changes it
    and saves it at the version it read. When another writer got there first (ConflictError) it
    runs again, up to ATTEMPTS times, so the write answers as if it had come just after the
    other one: a stale If-Match 412 with the current page's ETag, a slug another partner just
    took 409 `slug_taken`, `If-Match: *` applied over the newest version. After a write (or a
    no-op) `changed` hears the slug; an attempt that returns None changed nothing.

    Raises: PreconditionFailedError, BusyError, and whatever `attempt` raises.
    """
    for _ in range(ATTEMPTS):
        try:
            result = attempt()
        except ConflictError:
            continue
        if result is not None:
            changed(slug)
        return result
    raise BusyError(slug)


def _stored_by_generation(
    existing: StoredPage | None, page: SitePageInput, *, hero_image_url: str | None
) -> bool:
    """An earlier delivery of the job wrote this very page, then died before recording it."""
    return (
        existing is not None
        and existing.source == "generate"
        and existing.hero_image_url == hero_image_url
        and dict(existing.page_input) == stored_input(page)
    )


def bounded_page(payload: object) -> tuple[object, list[Issue]]:
    """The page cut to the size and count bounds (services/payload_bounds.py), to be checked
    as usual, and the issues of what was cut.

    Raises: GateRefusedError when the page passes a bound nothing may be read past (with those
    issues alone: no other check reads it).
    """
    bounded = bound_payload(payload, PAGE_BOUNDS)
    if bounded.whole:
        raise GateRefusedError(list(bounded.issues))
    return bounded.payload, list(bounded.issues)


def page_warnings(*, page: StoredPage, brand: Brand) -> list[Issue]:
    """The gate's warnings on a stored page as it stands, judged without a brief.

    What a write answers as `warnings[]` and a draft's preview banner lists: the same judgement
    whenever it is asked, since a stored page keeps no brief to weigh claims against. Read from
    the rules alone: the bounds' and the schema's findings are all errors.
    """
    payload, _ = bounded_page(dict(page.page_input))
    return warnings_of(rule_findings(payload, brand=brand, kept_quotes=_kept_quotes(page)))


def _judged(payload: object, *, brand: Brand, kept_from: StoredPage | None) -> PageVerdict:
    """The gate's verdict on a page within the bounds (`kept_from`: see `checked`)."""
    verdict = judge_page(payload, brand=brand, kept_quotes=_kept_quotes(kept_from))
    kept = generated_hero_sub(kept_from)
    if kept is not None and hero_sub(payload) == kept:
        return replace(verdict, issues=[i for i in verdict.issues if i.code != "icp_missing"])
    return verdict


def _kept_quotes(kept_from: StoredPage | None) -> list[str]:
    """The quotes of a generated page, which its brief's proof allowed (see `checked`)."""
    # Here, not at the top: with the gate's rules (gate/check.py), the quote patterns compile
    # for the first page checked, not at start (bench/bench_startup.py).
    from gate.context import page_quotes

    if kept_from is None or kept_from.source != "generate":
        return []
    return page_quotes(dict(kept_from.page_input))


def hero_sub(page_input: object) -> str | None:
    """The first block's `sub`, if the page starts with a hero that has one."""
    blocks = page_input.get("blocks") if isinstance(page_input, dict) else None
    first = blocks[0] if isinstance(blocks, list) and blocks else None
    sub = first.get("sub") if isinstance(first, dict) and first.get("type") == "hero" else None
    return sub if isinstance(sub, str) else None


def generated_hero_sub(page: StoredPage | None) -> str | None:
    """The hero `sub` of a generated page (checked against its brief's ICP), else None."""
    if page is None or page.source != "generate":
        return None
    return hero_sub(dict(page.page_input))


OVER_BOUNDS = "The page is over a size or count limit"


@dataclass(frozen=True)
class Pages:
    """The page store and what every write on it needs."""

    store: PageStore
    changed: PageChanged
    brand: Brand
    clock: Callable[[], datetime]
    tasks: TaskQueue
    options: DeliveryOptions

    @cached_property
    def ruleset(self) -> str:
        """The gate's version and the brand rules' digest, recorded on each version written."""
        return gate_ruleset(self.brand)


def checked(pages: Pages, payload: object, *, kept_from: StoredPage | None = None) -> SitePageInput:
    """The page if its content may be stored: within the bounds, no control or invisible
    characters, and no schema or gate error; read by the schema once, into the model every
    write goes on with. The gate's warnings never refuse a write (page_warnings gives them).

    `kept_from`: the stored page a change starts from. A generated page was gated against its
    brief: its hero `sub` names the brief's ICP (which the ICP vocabulary need not hold) and its
    quotes are the brief's proof (where a brand rule may allow a phrase). While a change keeps
    that `sub` and those quotes as written, they stand, so an edit, a publish or a restore of a
    generated page is not refused for copy it did not touch.

    Raises: GateRefusedError with every issue (the bounds' alone when a bound stops the
    reading).
    """
    try:
        payload, over = bounded_page(payload)
    except GateRefusedError as err:
        raise GateRefusedError(err.issues, OVER_BOUNDS) from err
    refused = over + character_issues(payload)
    verdict = _judged(payload, brand=pages.brand, kept_from=kept_from)
    errors = errors_of(verdict.issues)
    if refused or errors or verdict.page is None:
        raise GateRefusedError(refused + errors)
    return verdict.page


def revised(
    pages: Pages,
    current: StoredPage,
    content: dict[str, Any] | object,
    *,
    before: Callable[[SitePageInput], None] | None = None,
) -> StoredPage | None:
    """`current` with `content` as its next version, checked; None when nothing would change
    (a repeat, a sync sending what is there): no version is written and the ETag stays.
    `before` sees the checked page first (a schedule queues its tasks there).

    Raises: GateRefusedError, and what `before` raises.
    """
    page = checked(pages, content, kept_from=current)
    if before is not None:
        before(page)
    new = patched(current, page, ruleset=pages.ruleset, now=pages.clock())
    unchanged = (new.page_input, new.status, new.hero_image_url) == (
        current.page_input,
        current.status,
        current.hero_image_url,
    )
    return None if unchanged else new
