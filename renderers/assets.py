"""The design system's static assets: the stylesheet (brand tokens + site.css), the favicon and
the first-party page-view beacon (static/beacon.js).

Each asset gets a content-hashed file name, so it can be cached for a year and a change of
brand.json or site.css changes its URL. Built from package files and the Brand; no clock.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources

from schemas.catalog import Brand

__all__ = [
    "ASSET_PREFIX",
    "Asset",
    "SiteAssets",
    "beacon_asset",
    "brand_tokens",
    "build_site_assets",
]

ASSET_PREFIX = "/static/"


@dataclass(frozen=True)
class Asset:
    """One static file: its hashed name, bytes and media type."""

    name: str
    data: bytes
    mimetype: str

    @property
    def href(self) -> str:
        return ASSET_PREFIX + self.name

    @property
    def etag(self) -> str:
        return '"' + hashlib.sha256(self.data).hexdigest()[:32] + '"'


@dataclass(frozen=True)
class SiteAssets:
    """The stylesheet, favicon and beacon script every page links to."""

    stylesheet: Asset
    favicon: Asset
    beacon: Asset

    def by_name(self) -> dict[str, Asset]:
        return {asset.name: asset for asset in (self.stylesheet, self.favicon, self.beacon)}


def brand_tokens(brand: Brand) -> str:
    """CSS custom properties from brand.json: --c-<colour>, and --fs-/--lh-/--fw-<step>."""
    lines = [f"  --c-{name}: {value};" for name, value in brand.palette.items()]
    for step in brand.type_scale:
        lines += [
            f"  --fs-{step.name}: {step.size_rem:g}rem;",
            f"  --lh-{step.name}: {step.line_height:g};",
            f"  --fw-{step.name}: {step.weight};",
        ]
    lines.append(f"  --font: {brand.font_stack};")
    return ":root {\n" + "\n".join(lines) + "\n}\n"


def build_site_assets(brand: Brand) -> SiteAssets:
    """The stylesheet for this brand, the favicon and the beacon, with hashed names."""
    css = (brand_tokens(brand) + _package_text("site.css")).encode()
    return SiteAssets(
        stylesheet=_hashed("site", "css", css, "text/css"),
        favicon=favicon_asset(),
        beacon=beacon_asset(),
    )


def favicon_asset() -> Asset:
    """The brand icon (the developer portal links it too, from the same hashed name)."""
    return _hashed("favicon", "svg", _package_text("favicon.svg").encode(), "image/svg+xml")


def beacon_asset() -> Asset:
    """The page-view beacon script (also served unhashed at /beacon.js for other sites)."""
    return _hashed("beacon", "js", _package_text("beacon.js").encode(), "text/javascript")


def _hashed(stem: str, suffix: str, data: bytes, mimetype: str) -> Asset:
    digest = hashlib.sha256(data).hexdigest()[:12]
    return Asset(name=f"{stem}.{digest}.{suffix}", data=data, mimetype=mimetype)


@cache
def _package_text(name: str) -> str:
    return resources.files("renderers").joinpath("static", name).read_text(encoding="utf-8")
