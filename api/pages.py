"""Published landing pages at /p/{slug}, the on-brand 404 for /p/..., and the design assets.

Rendered HTML is kept per (slug, version, thank-you state) in a small LRU, so a page is
rendered once per version; a change of the stored page changes its version and so its key.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from flask import Blueprint, Response, request
from werkzeug.utils import get_content_type

from api.http_cache import Header, PreparedResponse
from api.previews import verify_preview_token
from backends.ports import PageStore, StoredPage
from renderers.assets import Asset
from renderers.page_html import FormState, RenderedPage, Site, render_not_found, render_page
from renderers.sitemap import SitemapEntry
from schemas.content import SLUG_PATTERN, SitePageInput

logger = logging.getLogger(__name__)

_SLUG = re.compile(SLUG_PATTERN)
HTML_UTF8 = "text/html; charset=utf-8"
PAGE_CACHE_CONTROL = "public, max-age=300, s-maxage=3600"
PREVIEW_CACHE_CONTROL = "private, no-store"
NOT_FOUND_CACHE_CONTROL = "public, max-age=60, s-maxage=60"
ASSET_CACHE_CONTROL = "public, max-age=31536000, immutable"
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
}


@dataclass(frozen=True)
class CachedPage:
    """A prepared body (a rendered page or an asset): bytes, ETag, the 200 and 304 headers."""

    body: bytes
    etag: str
    status: int
    headers: tuple[Header, ...]
    not_modified_headers: tuple[Header, ...]

    @classmethod
    def of(
        cls, rendered: RenderedPage, *, cache_control: str, noindex: bool, status: int = 200
    ) -> CachedPage:
        """Encode, hash and fix the headers once, as api.http_cache does for public reads."""
        body = rendered.html.encode()
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        validators = (("ETag", etag), ("Cache-Control", cache_control))
        policy = (
            ("Content-Security-Policy", rendered.content_security_policy),
            *SECURITY_HEADERS.items(),
            *((("X-Robots-Tag", "noindex"),) if noindex else ()),
        )
        return cls(
            body=body,
            etag=etag,
            status=status,
            headers=(
                *validators,
                *policy,
                ("Content-Type", HTML_UTF8),
                ("Content-Length", str(len(body))),
            ),
            not_modified_headers=validators,
        )

    def response(self) -> Response:
        """200 (or the page's status), or 304 when If-None-Match names the ETag."""
        if self.status == 200 and _etag_matches(
            request.environ.get("HTTP_IF_NONE_MATCH"), self.etag
        ):
            return PreparedResponse(status=304, headers=self.not_modified_headers)
        return PreparedResponse(self.body, status=self.status, headers=self.headers)


class PageCache:
    """A bounded, thread-safe LRU of rendered pages keyed by (slug, version, form state)."""

    def __init__(self, capacity: int = 256) -> None:
        self._capacity = capacity
        self._items: OrderedDict[tuple[str, int, str], CachedPage] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, int, str]) -> CachedPage | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple[str, int, str], page: CachedPage) -> None:
        with self._lock:
            self._items[key] = page
            self._items.move_to_end(key)
            while len(self._items) > self._capacity:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


def create_pages_blueprint(
    *,
    site: Site,
    pages: PageStore,
    clock: Callable[[], datetime],
    preview_secret: bytes = b"",
    cache_size: int = 256,
) -> Blueprint:
    """GET /p/{slug} for published pages (drafts with a valid preview token), and /static/."""
    bp = Blueprint("pages", __name__)
    cache = PageCache(cache_size)
    not_found = CachedPage.of(
        render_not_found(site=site), cache_control=NOT_FOUND_CACHE_CONTROL, noindex=True, status=404
    )
    assets = {name: _asset_body(asset) for name, asset in site.assets.by_name().items()}

    def rendered(stored: StoredPage, *, form_state: FormState, preview: bool) -> CachedPage:
        """The page from the cache, or rendered now (previews are never kept)."""
        key = (stored.slug, stored.version, form_state)
        found = None if preview else cache.get(key)
        if found is None:
            page = SitePageInput.model_validate(stored.page_input)
            found = CachedPage.of(
                render_page(
                    page,
                    site=site,
                    hero_image_url=stored.hero_image_url,
                    preview=preview,
                    form_state=form_state,
                ),
                cache_control=PREVIEW_CACHE_CONTROL if preview else PAGE_CACHE_CONTROL,
                noindex=preview or page.noindex,
            )
            if not preview:
                cache.put(key, found)
        return found

    @bp.get("/p/<slug>")
    def show_page(slug: str) -> Response:
        # A slug no page can have never reaches the store (Firestore refuses some ids outright).
        stored = pages.get_page(slug) if _SLUG.match(slug) else None
        if stored is None:
            return not_found.response()
        # Most requests carry no query: skip parsing one.
        query = bool(request.environ.get("QUERY_STRING"))
        form_state = _form_state() if query else "open"
        token = request.args.get("preview") if query else None
        if token is not None:
            if not verify_preview_token(
                token, slug=stored.slug, version=stored.version, now=clock(), secret=preview_secret
            ):
                return not_found.response()
            return rendered(stored, form_state=form_state, preview=True).response()
        if stored.status != "published":
            return not_found.response()
        return rendered(stored, form_state=form_state, preview=False).response()

    @bp.get("/p")
    @bp.get("/p/")
    @bp.get("/p/<path:rest>")
    def no_page(rest: str = "") -> Response:
        return not_found.response()

    @bp.get("/static/<name>")
    def asset(name: str) -> Response:
        found = assets.get(name)
        return found.response() if found is not None else not_found.response()

    return bp


def _form_state() -> FormState:
    """The lead form's state after the collect endpoint's 303 back to the page."""
    if request.args.get("submitted") == "1":
        return "submitted"
    if request.args.get("error") == "invalid_email":
        return "invalid_email"
    return "open"


def _asset_body(asset: Asset) -> CachedPage:
    """A stylesheet or icon with its hashed name: cached for a year, never revalidated."""
    validators = (("ETag", asset.etag), ("Cache-Control", ASSET_CACHE_CONTROL))
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


def _etag_matches(header: str | None, etag: str) -> bool:
    """If-None-Match uses the weak comparison (RFC 9110 13.1.2): W/"x" matches "x"."""
    if not header:
        return False
    if header.strip() == "*":
        return True
    return etag in (tag.strip().removeprefix("W/") for tag in header.split(","))


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
