"""A ten-block landing page in the house voice, for the browser tests and the page bench."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from backends.ports import PageStatus, PageStore, StoredPage

STORED_AT = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
_FILE = Path(__file__).with_name("all_blocks_page.json")


def all_blocks_page(
    slug: str = "pipeline-audit", *, image_url: str | None = None
) -> dict[str, Any]:
    """A SitePageInput body that uses every block type once and passes the quality gate."""
    page: dict[str, Any] = json.loads(_FILE.read_text(encoding="utf-8"))
    page["slug"] = slug
    # The gate takes site paths and https URLs only, so the form's anchor goes on the page's path.
    page["cta_href"] = page["blocks"][0]["ctaHref"] = f"/p/{slug}#leadform"
    if image_url:
        alt = "A funnel chart with three stages marked for review"
        page["blocks"][0] |= {"imageUrl": image_url, "imageAlt": alt}
    return page


def store_page(
    pages: PageStore,
    slug: str,
    *,
    status: PageStatus = "published",
    page_input: dict[str, Any] | None = None,
    owner: str = "bootstrap",
    **changes: Any,
) -> StoredPage:
    """Write a page straight into the store (no gate), one version above what is there.

    `owner` defaults to the partner of the tests' environment content key.
    """
    current = pages.get_page(slug)
    version = current.version if current else 0
    page = StoredPage(
        slug=slug,
        version=version + 1,
        status=status,
        source="api",
        page_input=(page_input or all_blocks_page(slug)) | changes,
        created_at=STORED_AT,
        updated_at=STORED_AT,
        published_at=STORED_AT if status == "published" else None,
        owner=current.owner if current else owner,
        editor=owner,
    )
    return pages.save_page(page, expected_version=version)
