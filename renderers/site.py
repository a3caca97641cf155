"""The site's fixed facts every page shares (origin, company, customer logos, assets), built
once per process.

Apart from the page renderer (renderers/page_html.py) so that building them does not load it:
the pages blueprint needs them at start, the renderer only for the first page it renders.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from renderers.assets import SiteAssets, build_site_assets
from schemas.catalog import Catalog, Customer
from schemas.public import Company

__all__ = ["Site", "build_site"]


@dataclass(frozen=True)
class Site:
    """What every page shares: the public origin, the company record, logos and assets."""

    base_url: str
    company: Company
    customers: tuple[Customer, ...]
    logos: Mapping[str, str]
    assets: SiteAssets
    theme_color: str
    # BEACON_CONSENT=required: the beacon waits for the visitor's yes (renderers/static/beacon.js)
    beacon_consent: bool = False


def build_site(catalog: Catalog, *, base_url: str, beacon_consent: bool = False) -> Site:
    """The shared facts of every page, built once per process."""
    return Site(
        base_url=base_url.rstrip("/"),
        company=catalog.company,
        customers=tuple(catalog.customers),
        logos=dict(catalog.logos),
        assets=build_site_assets(catalog.brand),
        theme_color=catalog.brand.palette.get("paper", "#ffffff"),
        beacon_consent=beacon_consent,
    )
