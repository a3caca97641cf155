"""Landing pages (issue 4): stored pages and their versioned writes.

Protocols and value types only; nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol

PageStatus = Literal["draft", "published", "unpublished"]
PAGE_STATUSES: tuple[PageStatus, ...] = ("draft", "published", "unpublished")
PageSource = Literal["api", "generate"]


@dataclass(frozen=True)
class StoredPage:
    """A landing page as stored: its validated input as JSON plus what the service adds.

    `page_input` is the SitePageInput as plain JSON (a dict), kept exactly as merged so that a
    PATCH (JSON merge patch) applies over it. `version` starts at 1 and grows by one per write.
    """

    slug: str
    version: int
    status: PageStatus
    source: PageSource
    page_input: Mapping[str, Any]
    created_at: datetime
    updated_at: datetime
    published_at: datetime | None = None
    hero_image_url: str | None = None
    gate_passed: bool = True
    gate_ruleset: str = ""


@dataclass(frozen=True)
class PageList:
    """One page of a listing, newest first; `next_cursor` is None on the last page."""

    pages: tuple[StoredPage, ...]
    next_cursor: str | None = None


class PageStore(Protocol):
    """Landing pages by slug, with optimistic concurrency on `version`."""

    def get_page(self, slug: str) -> StoredPage | None:
        """The page with this slug, in any status."""

    def list_pages(
        self, *, status: PageStatus | None = None, cursor: str | None = None, limit: int = 50
    ) -> PageList:
        """Pages newest first (by `updated_at`, then slug). Raises: ValueError on a bad cursor."""

    def save_page(self, page: StoredPage, *, expected_version: int) -> StoredPage:
        """Create or replace atomically if the stored version is `expected_version` (0: absent).

        Raises: ConflictError if another write got there first; nothing is changed then.
        """
