"""A generated hero image's renditions, read from its stored name: PNG and WebP, 1200 and 600 wide.

The generation pipeline stores `hero/<slug>/<digest>-1200x630.png` with `-600x315` and `.webp`
beside it (workers/imaging/base.py). Pages offer the 600-wide file to small screens through
`srcset`, WebP as an extra `<source>`, and the 1200x630 PNG as the share image, since link
previews may not show WebP. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["HeroSources", "hero_sources", "share_image"]

_STORED = re.compile(r"^(?P<stem>.+/hero/[^/]+/[0-9a-f]{6,64})-1200x630\.(?:png|webp)$")


@dataclass(frozen=True)
class HeroSources:
    """The renditions of one generated hero image."""

    png: str
    png_small: str
    webp: str
    webp_small: str
    width: int = 1200
    height: int = 630

    @property
    def png_srcset(self) -> str:
        return f"{self.png_small} 600w, {self.png} 1200w"

    @property
    def webp_srcset(self) -> str:
        return f"{self.webp_small} 600w, {self.webp} 1200w"


def hero_sources(url: str | None) -> HeroSources | None:
    """The renditions of a stored generated hero, or None for any other image URL."""
    match = _STORED.match(url or "")
    if match is None:
        return None
    stem = match.group("stem")
    return HeroSources(
        png=f"{stem}-1200x630.png",
        png_small=f"{stem}-600x315.png",
        webp=f"{stem}-1200x630.webp",
        webp_small=f"{stem}-600x315.webp",
    )


def share_image(url: str | None) -> str | None:
    """The image for og:image and twitter:image: a generated hero's PNG, else the URL as is."""
    sources = hero_sources(url)
    return sources.png if sources else url
