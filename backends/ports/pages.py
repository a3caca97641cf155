"""Landing pages (issue 4): stored pages and their versioned writes.

Protocols and value types only; nothing here does I/O. The page record itself is domain/pages.py
(re-exported here and from `backends.ports`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from domain.pages import PAGE_STATUSES, PageSource, PageStatus, StoredPage

__all__ = ["PAGE_STATUSES", "PageList", "PageSource", "PageStatus", "PageStore", "StoredPage"]


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
