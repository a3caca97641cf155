"""A ten-block landing page in the house voice, for the browser tests and the page bench."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_FILE = Path(__file__).with_name("all_blocks_page.json")


def all_blocks_page(
    slug: str = "pipeline-audit", *, image_url: str | None = None
) -> dict[str, Any]:
    """A SitePageInput body that uses every block type once and passes the quality gate."""
    page: dict[str, Any] = json.loads(_FILE.read_text(encoding="utf-8"))
    page["slug"] = slug
    if image_url:
        alt = "A funnel chart with three stages marked for review"
        page["blocks"][0] |= {"imageUrl": image_url, "imageAlt": alt}
    return page
