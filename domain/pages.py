"""A landing page as stored: the record, its statuses and where it came from.

Pure values: the ports (backends/ports/pages.py) store them, schemas/content/changes.py moves them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

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
    `owner` is the partner whose key created the page (whoever edits it); `editor`, `editor_key_id`
    and `edit_source` say who wrote this version and how. Every saved version is kept as history.
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
