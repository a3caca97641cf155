"""Landing pages: stored pages, their versioned writes and their history.

Protocols and value types only; nothing here does I/O. The page record itself is domain/pages.py
(re-exported here and from `backends.ports`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from domain.pages import (
    PAGE_STATUSES,
    VERSION_SOURCES,
    PageSource,
    PageStatus,
    StoredPage,
    VersionSource,
)

__all__ = [
    "PAGE_STATUSES",
    "VERSION_SOURCES",
    "PageList",
    "PageSource",
    "PageStatus",
    "PageStore",
    "StoredPage",
    "VersionList",
    "VersionSource",
]


@dataclass(frozen=True)
class PageList:
    """One page of a listing, newest first; `next_cursor` is None on the last page."""

    pages: tuple[StoredPage, ...]
    next_cursor: str | None = None


@dataclass(frozen=True)
class VersionList:
    """One page of a page's history, newest first; `next_cursor` is None on the last page."""

    versions: tuple[StoredPage, ...]
    next_cursor: str | None = None


class PageStore(Protocol):
    """Landing pages by slug, with optimistic concurrency on `version`."""

    def get_page(self, slug: str) -> StoredPage | None:
        """The page with this slug, in any status."""

    def list_pages(
        self,
        *,
        status: PageStatus | None = None,
        cursor: str | None = None,
        limit: int = 50,
        owner: str | None = None,
    ) -> PageList:
        """Pages newest first (by `updated_at`, then slug), of one owner if given.

        Raises: ValueError on a bad cursor.
        """

    def save_page(self, page: StoredPage, *, expected_version: int) -> StoredPage:
        """Create or replace atomically if the stored version is `expected_version` (0: absent),
        and keep the page as version `page.version` of its history in the same write; with a
        history limit N, versions older than the newest N of the page are deleted in it too.

        With a storage quota, the bytes of `page_input` (JSON, UTF-8) of every kept version of
        the owner's pages are counted in the same write: a write that would take them past the
        quota, and adds more than it deletes, is refused.

        Raises: ConflictError if another write got there first, QuotaExceededError past the
        owner's quota; nothing is changed then.
        """

    def stored_bytes(self, owner: str) -> int:
        """The bytes the owner's kept versions count against its storage quota."""

    def list_versions(
        self, slug: str, *, cursor: str | None = None, limit: int = 50
    ) -> VersionList:
        """A page's kept versions, newest first. Raises: ValueError on a bad cursor."""

    def get_version(self, slug: str, version: int) -> StoredPage | None:
        """Version `version` of a page as it was saved, if kept."""
