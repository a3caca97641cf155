"""Published landing pages at /p/{slug}, the on-brand 404 for /p/..., and the design assets.

The finished response (body, strong ETag, every header) is kept per (slug, version, form state)
in a bounded LRU, so a page is rendered, hashed and its headers checked once per version (a
draft's preview too, in an LRU of its own); store
lookups are remembered for a second (api/rest/page_cache.py), and a write in this process (the
Content API, a generation worker; services/pages.py tells `PageChanges`) forgets them at once,
so the next request reads the new version.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from flask import Blueprint, Response, request
from werkzeug.utils import get_content_type

from api.errors import RETRY_AFTER_SECONDS
from api.rest.page_cache import SECURITY_HEADERS, CachedPage, PageCache, PageLookup
from api.rest.variant_serving import (
    ASSIGNMENT_COOKIE,
    EXPERIMENT_CACHE_CONTROL,
    EXPERIMENT_VARY,
    Experiment,
    ExperimentLookup,
    Split,
    assign,
    assignment_cookie,
)
from backends.ports import PageStore, StoredPage, StoredVariant, UnavailableError, VariantStore
from schemas.catalog import Brand
from schemas.content.pages import SLUG_PATTERN, SitePageInput
from services.page_changes import PageChanges
from services.pages import page_warnings
from services.previews import verify_preview_token

if TYPE_CHECKING:
    from renderers.assets import Asset
    from renderers.page_html import FormState
    from renderers.site import Site
    from renderers.sitemap import SitemapEntry

logger = logging.getLogger(__name__)


class _SiteServed:
    """The site's shared facts and what this blueprint serves from them (the hashed assets, the
    beacon, the on-brand 404 and 503), built by the first request that needs one (others
    wait): reading the assets and compiling the error pages' templates are a noticeable part of
    a cold start (bench/bench_startup.py), which pays neither."""

    def __init__(self, build_site: Callable[[], Site]) -> None:
        self._build_site = build_site
        self._lock = threading.Lock()
        # The site, its assets' bodies by hashed name, the beacon's body.
        self._built: tuple[Site, dict[str, CachedPage], CachedPage] | None = None
        self._error_pages: dict[int, CachedPage] = {}  # the 404 and the 503, by status

    def _parts(self) -> tuple[Site, dict[str, CachedPage], CachedPage]:
        built = self._built
        if built is None:
            with self._lock:
                if self._built is None:
                    site = self._build_site()
                    assets = {name: _asset_body(a) for name, a in site.assets.by_name().items()}
                    beacon = _asset_body(site.assets.beacon, cache_control=BEACON_CACHE_CONTROL)
                    self._built = (site, assets, beacon)
                built = self._built
        return built

    def site(self) -> Site:
        return self._parts()[0]

    def asset(self, name: str) -> CachedPage | None:
        return self._parts()[1].get(name)

    def beacon(self) -> CachedPage:
        return self._parts()[2]

    def not_found(self) -> Response:
        return self._error_page(404).response()

    def unavailable(self) -> Response:
        """The on-brand 503 while the page store is down: never cached, retried after 5 s."""
        response = self._error_page(503).response()
        response.headers["Retry-After"] = RETRY_AFTER_SECONDS
        return response

    def _error_page(self, status: int) -> CachedPage:
        """The on-brand 404 or 503, rendered by the first request that needs it."""
        page = self._error_pages.get(status)
        if page is None:
            site = self.site()
            with self._lock:
                page = self._error_pages.get(status)
                if page is None:
                    # Loaded with the first error page, as rendered() loads the renderer.
                    from renderers.page_html import render_not_found, render_unavailable

                    render, cache_control = (
                        (render_not_found, NOT_FOUND_CACHE_CONTROL)
                        if status == 404
                        else (render_unavailable, UNAVAILABLE_CACHE_CONTROL)
                    )
                    page = CachedPage.of(
                        render(site=site), cache_control=cache_control, noindex=True, status=status
                    )
                    self._error_pages[status] = page
        return page


_SLUG = re.compile(SLUG_PATTERN)
# A change purges /p/{slug} at once; s-maxage bounds the rare case where another instance's
# 1 s lookup memo (api/rest/page_cache.py) hands the CDN the old version just after that purge.
PAGE_CACHE_CONTROL = "public, max-age=60, s-maxage=300"
PREVIEW_CACHE_CONTROL = "private, no-store"
NOT_FOUND_CACHE_CONTROL = "public, max-age=60, s-maxage=60"
UNAVAILABLE_CACHE_CONTROL = "no-store"
ASSET_CACHE_CONTROL = "public, max-age=31536000, immutable"
BEACON_CACHE_CONTROL = "public, max-age=3600"
# Drafts' previews, each for its current version; fewer than live pages are read at once.
PREVIEW_CACHE_SIZE = 64
PREVIEW_CACHE_BYTES = 8 * 1024 * 1024


def create_pages_blueprint(
    *,
    site: Callable[[], Site],
    pages: PageStore,
    clock: Callable[[], datetime],
    preview_secret: bytes = b"",
    cache_size: int = 256,
    freshness_seconds: float = 1.0,
    monotonic: Callable[[], float] = time.monotonic,
    page_changes: PageChanges | None = None,
    brand: Brand | None = None,
    variants: VariantStore | None = None,
    split: Split | None = None,
) -> Blueprint:
    """GET /p/{slug} for published pages (drafts with a valid preview token), and /static/.

    `brand`: the rules a draft preview's banner judges the page by (its gate warnings).
    `split`: the shares an experiment's visitors are split by (an adaptive allocation's brought
    up to date first); without it, the allocation's own.

    `site` builds the site's shared facts, once, for the first request that needs them.
    `page_changes`: told of every page write in this process (services/pages.py), so the
    lookup memo forgets at once and the next request reads the new version.
    """
    bp = Blueprint("pages", __name__)
    cache = PageCache(cache_size)
    previews = PageCache(PREVIEW_CACHE_SIZE, max_bytes=PREVIEW_CACHE_BYTES)
    lookup = PageLookup(pages, freshness=freshness_seconds, monotonic=monotonic)
    experiments = (
        ExperimentLookup(
            variants,
            freshness=freshness_seconds,
            monotonic=monotonic,
            split=split,
            clock=clock,
        )
        if variants is not None
        else None
    )
    if page_changes is not None:
        page_changes.listen(lambda _slug: lookup.forget_all())
        if experiments is not None:
            page_changes.listen(lambda _slug: experiments.forget_all())
    served = _SiteServed(site)

    def rendered(
        stored: StoredPage,
        *,
        form_state: FormState,
        preview: bool,
        arm: str | None = None,
        variant: StoredVariant | None = None,
    ) -> CachedPage:
        """The finished response for this version, rendered once: by the first request that
        needs it, while others for the same version wait (a preview link is opened by anyone
        who has it, so previews are kept as published pages are, in a cache of their own).

        `arm`: the arm of the page's experiment served (`variant` its content, None for the
        control), kept apart from the page without one and from the other arms."""

        def render() -> CachedPage:
            # The renderer loads with the first page rendered, not with the app (bench_startup).
            from renderers.page_html import render_page

            content = variant.page_input if variant is not None else stored.page_input
            page = SitePageInput.model_validate(content)
            warnings = (
                page_warnings(page=stored, brand=brand) if preview and brand is not None else []
            )
            cache_control = PREVIEW_CACHE_CONTROL if preview else PAGE_CACHE_CONTROL
            return CachedPage.of(
                render_page(
                    page,
                    site=served.site(),
                    # A generated hero image is the page's own; a variant brings its own.
                    hero_image_url=stored.hero_image_url if variant is None else None,
                    preview=preview,
                    form_state=form_state,
                    warnings=warnings,
                    variant=arm,
                ),
                cache_control=EXPERIMENT_CACHE_CONTROL if arm is not None else cache_control,
                noindex=preview or page.noindex,
            )

        kept = previews if preview else cache
        if arm is None:
            return kept.get_or_render(stored.slug, stored.version, form_state, render)
        # A variant deleted and made again restarts at version 1: its creation tells them apart.
        made = variant.created_at.isoformat() if variant is not None else ""
        key = f"{stored.slug}\x00{arm}\x00{made}"
        version = variant.version if variant is not None else stored.version
        return kept.get_or_render(key, version, form_state, render)

    def served_arm(stored: StoredPage, experiment: Experiment, form_state: FormState) -> Response:
        """The visitor's arm of the page's experiment (api/rest/variant_serving.py)."""
        site_facts = served.site()
        environ = request.environ
        assignment = assign(
            experiment,
            slug=stored.slug,
            cookie=request.cookies.get(ASSIGNMENT_COOKIE),
            opted_out=environ.get("HTTP_SEC_GPC") == "1" or environ.get("HTTP_DNT") == "1",
            consent_required=site_facts.beacon_consent,
        )
        variant = experiment.variants.get(assignment.arm)
        response = rendered(
            stored, form_state=form_state, preview=False, arm=assignment.arm, variant=variant
        ).response()
        response.headers["Vary"] = EXPERIMENT_VARY
        if assignment.new_assignment_id is not None:
            secure = site_facts.base_url.startswith("https://")
            response.headers["Set-Cookie"] = assignment_cookie(
                assignment.new_assignment_id,
                arm=assignment.arm,
                slug=stored.slug,
                secure=secure,
                http_only=not site_facts.beacon_consent,
            )
        return response

    @bp.get("/p/<slug>")
    def show_page(slug: str) -> Response:
        # A slug no page can have never reaches the store (Firestore refuses some ids outright).
        if not _SLUG.match(slug):
            return served.not_found()
        # Most requests carry no query: skip parsing one.
        query = bool(request.environ.get("QUERY_STRING"))
        token = request.args.get("preview") if query else None
        # A preview names one version, so it reads the store, never the memo.
        stored = lookup.get(slug) if token is None else lookup.get_fresh(slug)
        if stored is None:
            return served.not_found()
        form_state = _form_state() if query else "open"
        if token is not None:
            if verify_preview_token(
                token, slug=stored.slug, version=stored.version, now=clock(), secret=preview_secret
            ):
                return rendered(stored, form_state=form_state, preview=True).response()
            if stored.status != "published":
                return served.not_found()
            # A preview link of an earlier version (the draft it showed has since gone live, or
            # been changed again): send its readers to the live page rather than to a 404.
            return _live_page_redirect(stored.slug)
        if stored.status != "published":
            return served.not_found()
        experiment = experiments.get(stored.slug) if experiments is not None else None
        if experiment is not None:
            return served_arm(stored, experiment, form_state)
        return rendered(stored, form_state=form_state, preview=False).response()

    @bp.errorhandler(UnavailableError)
    def store_down(err: UnavailableError) -> Response:
        # A visitor gets a page, not a problem document; the CDN keeps none of it.
        logger.warning("page store unavailable on %s: %s", request.path, err)
        return served.unavailable()

    @bp.get("/p")
    @bp.get("/p/")
    @bp.get("/p/<path:rest>")
    @bp.get("/p//<path:rest>")  # the app does not merge slashes (api/app.py)
    def no_page(rest: str = "") -> Response:
        return served.not_found()

    @bp.get("/static/<name>")
    def asset(name: str) -> Response:
        found = served.asset(name)
        return found.response() if found is not None else served.not_found()

    @bp.get("/beacon.js")
    def beacon() -> Response:
        # The stable address other sites' pages load (content/docs/signals-api.md).
        return served.beacon().response()

    return bp


def _live_page_redirect(slug: str) -> Response:
    """302 to /p/{slug} with the request's other query parameters; never cached."""
    rest = urlencode([(k, v) for k, v in request.args.items(multi=True) if k != "preview"])
    location = f"/p/{slug}" + (f"?{rest}" if rest else "")
    return Response(status=302, headers={"Location": location, "Cache-Control": "no-store"})


def _form_state() -> FormState:
    """The lead form's state after the collect endpoint's 303 back to the page."""
    if request.args.get("submitted") == "1":
        return "submitted"
    match request.args.get("error"):  # the field collect refused (api/rest/collect.py)
        case "invalid_email":
            return "invalid_email"
        case "invalid_name":
            return "invalid_name"
        case "invalid_company":
            return "invalid_company"
        case "rate_limited":
            return "rate_limited"
        case "unavailable":
            return "unavailable"
    return "open"


def _asset_body(asset: Asset, *, cache_control: str = ASSET_CACHE_CONTROL) -> CachedPage:
    """A stylesheet, icon or script with its hashed name: cached for a year, never revalidated."""
    validators = (("ETag", asset.etag), ("Cache-Control", cache_control))
    return CachedPage(
        body=asset.data,
        etag=asset.etag,
        status=200,
        headers=(
            *validators,
            *SECURITY_HEADERS.items(),
            ("Content-Type", get_content_type(asset.mimetype, "utf-8")),
            ("Content-Length", str(len(asset.data))),
        ),
        not_modified_headers=validators,
    )


def published_page_entries(pages: PageStore, *, base_url: str) -> Callable[[], list[SitemapEntry]]:
    """For the sitemaps: every published, indexable page with its images, read on each call."""

    def entries() -> list[SitemapEntry]:
        found: list[SitemapEntry] = []
        cursor: str | None = None
        while True:
            listing = pages.list_pages(status="published", cursor=cursor, limit=200)
            found += [_sitemap_entry(p, base_url) for p in listing.pages if _indexable(p)]
            cursor = listing.next_cursor
            if cursor is None:
                return found

    return entries


def _indexable(stored: StoredPage) -> bool:
    return not stored.page_input.get("noindex")


def _sitemap_entry(stored: StoredPage, base_url: str) -> SitemapEntry:
    from renderers.sitemap import SitemapEntry  # with the first sitemap, not at start

    blocks = stored.page_input.get("blocks") or [{}]
    hero = blocks[0] if isinstance(blocks[0], dict) else {}
    candidates = (
        stored.page_input.get("og_image_url"),
        hero.get("imageUrl"),
        stored.hero_image_url,
    )
    images: list[str] = []
    for url in candidates:
        absolute = _absolute_image(url, base_url)
        if absolute and absolute not in images:
            images.append(absolute)
    changed = stored.updated_at.astimezone(UTC).date().isoformat()
    return SitemapEntry(loc=f"{base_url}/p/{stored.slug}", lastmod=changed, images=tuple(images))


def _absolute_image(url: object, base_url: str) -> str | None:
    if not isinstance(url, str) or not url:
        return None
    if url.startswith("/") and not url.startswith("//"):
        return base_url + url
    return url if url.startswith(("https://", base_url + "/")) else None
