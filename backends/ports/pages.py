"""Landing pages (issues 4, 14): stored pages, their versioned writes and their history.

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
# What wrote one version: a Content API write, a generation job, or a restore of an old version.
VersionSource = Literal["api", "generate", "restore"]
VERSION_SOURCES: tuple[VersionSource, ...] = ("api", "generate", "restore")


@dataclass(frozen=True)
class StoredPage:
    """A landing page as stored: its validated input as JSON plus what the service adds.

    `page_input` is the SitePageInput as plain JSON (a dict), kept exactly as merged so that a
    PATCH (JSON merge patch) applies over it. `version` starts at 1 and grows by one per write.
    `owner` is the partner whose key created the page (issue 14); `editor`, `editor_key_id` and
    `edit_source` say who wrote this version and how. Every saved version is kept as history.
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
    owner: str = ""
    editor: str = ""
    editor_key_id: str = ""
    edit_source: VersionSource = "api"


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
        and keep the page as version `page.version` of its history in the same write.

        Raises: ConflictError if another write got there first; nothing is changed then.
        """

    def list_versions(
        self, slug: str, *, cursor: str | None = None, limit: int = 50
    ) -> VersionList:
        """A page's kept versions, newest first. Raises: ValueError on a bad cursor."""

    def get_version(self, slug: str, version: int) -> StoredPage | None:
        """Version `version` of a page as it was saved, if kept."""
