"""Pages: the unit every page use case works in, and the two rules every page write shares.

The unit holds what a write needs besides its own arguments: the store, the change listeners
(the CDN purge and the lookup memo), the brand and the gate's ruleset for it, the clock, and the
task queue a schedule is queued on. The REST views, the MCP tools, the schedule's task and the
operator CLI build one from their backends and pass it to the use cases
(services/page_writes.py, services/page_schedule.py, the variant and experiment use cases).

`checked` is the one judgement of a page's content: its bounds, its characters, the schema and
the quality gate, every issue at once. `revised` is the one way a stored page takes new content
(PATCH, publish, a scheduled publish, an experiment's winner): checked, then a new version,
or None when nothing would change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any

from backends.ports import DeliveryOptions, PageStore, StoredPage, TaskQueue
from gate.check import ruleset
from schemas.catalog import Brand
from schemas.content.changes import patched
from schemas.content.characters import character_issues
from schemas.content.pages import SitePageInput
from services.pages import GateRefusedError, PageChanged, bounded_page, gated

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
        return ruleset(self.brand)


def checked(pages: Pages, payload: object, *, kept_from: StoredPage | None = None) -> SitePageInput:
    """The page if its content may be stored: within the bounds, no control or invisible
    characters, and no schema or gate error (`kept_from`: see services/pages.py `gated`).

    Raises: GateRefusedError with every issue (the bounds' alone when a bound stops the
    reading).
    """
    try:
        payload, over = bounded_page(payload)
    except GateRefusedError as err:
        raise GateRefusedError(err.issues, OVER_BOUNDS) from err
    refused = over + character_issues(payload)
    try:
        page = gated(payload=payload, brand=pages.brand, kept_from=kept_from)
    except GateRefusedError as err:
        raise GateRefusedError(refused + list(err.issues)) from err
    if refused:
        raise GateRefusedError(refused)
    return page


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
