"""The response cache of /p/{slug}: finished responses per (slug, version, form state), and a
short memo of store lookups so a hot page costs no store read on every request.

A hit is the memo's lookup of the page's current version plus one dict lookup: the body's bytes,
its strong ETag and every header (CSP, Cache-Control, security headers, Content-Length) were
fixed and checked when the page was rendered, so a request renders, hashes and checks nothing.

A lookup is kept `freshness` seconds (default 1): a change made by another process shows within
that time, and a change made through this process's Content API clears the memo at once.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cachetools import LRUCache, TTLCache
from flask import Response, request
from werkzeug.datastructures import Headers

from api.rest.http_cache import Header, PreparedResponse
from backends.ports import PageStore, StoredPage
from domain.etags import etag_listed

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIEnvironment

    from renderers.page_html import RenderedPage

__all__ = [
    "HTML_UTF8",
    "SECURITY_HEADERS",
    "CachedPage",
    "PageCache",
    "PageLookup",
    "PageResponse",
]

HTML_UTF8 = "text/html; charset=utf-8"
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
}


@dataclass(frozen=True)
class CachedPage:
    """A finished response (a rendered page or an asset): bytes, ETag, the 200 and 304 headers."""

    body: bytes
    etag: str
    status: int
    headers: tuple[Header, ...]
    not_modified_headers: tuple[Header, ...]

    def __post_init__(self) -> None:
        # werkzeug's checks (no newline in a name or value), once here instead of per request.
        Headers(self.headers)
        Headers(self.not_modified_headers)

    @classmethod
    def of(
        cls, rendered: RenderedPage, *, cache_control: str, noindex: bool, status: int = 200
    ) -> CachedPage:
        """Encode, hash and fix the headers once, as api.rest.http_cache does for public reads."""
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
        if self.status == 200 and etag_listed(request.environ.get("HTTP_IF_NONE_MATCH"), self.etag):
            return PageResponse(status=304, headers=self.not_modified_headers)
        # A fresh Headers per response: hooks may add to it.
        return PageResponse(self.body, status=self.status, headers=self.headers)


class PageResponse(PreparedResponse):
    """A finished page: its checked headers as they are, its body handed over as one list.

    granian writes a list body in one call but pulls any other iterable chunk by chunk
    (granian/wsgi.py), and werkzeug wraps a body in an iterator unless `direct_passthrough`.
    """

    # The prepared headers carry Content-Length (a hook that replaced the body would set it).
    automatically_set_content_length = False

    def get_app_iter(self, environ: WSGIEnvironment) -> Iterable[bytes]:
        # HEAD and 304 carry the headers only (RFC 9110 9.3.2, 15.4.5).
        if environ["REQUEST_METHOD"] == "HEAD" or self.status_code == 304:
            return []
        body: list[bytes] = self.response  # type: ignore[assignment]  # set_data made it [bytes]
        return body


@dataclass(frozen=True)
class _Entry:
    version: int
    page: CachedPage


class PageCache:
    """Finished pages by (slug, form state), each for one version: a bounded, thread-safe LRU.

    A page's new version replaces the old one in place. Beyond `capacity` entries or `max_bytes`
    of bodies, the least recently served go first (defaults: 256 entries and 32 MiB; a
    ten-block page is about 17 KB). cachetools' LRUCache keeps the byte bound (each entry
    weighs its body); the entry bound evicts through its `popitem`, least recent first.
    """

    def __init__(self, capacity: int = 256, *, max_bytes: int = 32 * 1024 * 1024) -> None:
        self._capacity = capacity
        self._items: LRUCache[tuple[str, str], _Entry] = LRUCache(
            maxsize=max_bytes, getsizeof=_body_size
        )
        self._lock = threading.Lock()
        # One lock per page being rendered now: (slug, version, form state).
        self._rendering: dict[tuple[str, int, str], threading.Lock] = {}

    def get(self, slug: str, version: int, form_state: str) -> CachedPage | None:
        """The page as prepared for this version, or None (absent, or an older version)."""
        with self._lock:
            found = self._items.get((slug, form_state))  # a hit counts as recently served
        if found is None or found.version != version:
            return None
        return found.page

    def put(self, slug: str, version: int, form_state: str, page: CachedPage) -> None:
        """Keep the page for this version; evict the least recently served beyond the bounds.

        A body larger than the whole byte bound is served but not kept."""
        key = (slug, form_state)
        with self._lock:
            self._items.pop(key, None)
            if len(page.body) > self._items.maxsize:
                return
            self._items[key] = _Entry(version, page)
            while len(self._items) > self._capacity:
                self._items.popitem()

    def get_or_render(
        self, slug: str, version: int, form_state: str, render: Callable[[], CachedPage]
    ) -> CachedPage:
        """The page for this version, rendered by the first request that needs it while others
        asking for the same one wait for it (a render that raises leaves nothing kept)."""
        found = self.get(slug, version, form_state)
        if found is not None:
            return found
        key = (slug, version, form_state)
        with self._lock:
            rendering = self._rendering.setdefault(key, threading.Lock())
        try:
            with rendering:
                found = self.get(slug, version, form_state)
                if found is None:
                    found = render()
                    self.put(slug, version, form_state, found)
        finally:
            with self._lock:
                if self._rendering.get(key) is rendering and not rendering.locked():
                    del self._rendering[key]
        return found

    def __len__(self) -> int:
        return len(self._items)

    @property
    def body_bytes(self) -> int:
        """The bytes of the bodies held now (at most `max_bytes`)."""
        return int(self._items.currsize)


def _body_size(entry: _Entry) -> int:
    return len(entry.page.body)


class PageLookup:
    """Stored pages by slug through a memo kept `freshness` seconds; `forget_all` empties it.

    The memo is cachetools' TTLCache on the given steady clock, bounded at `capacity` slugs
    (the least recently read go first); the store is read outside its lock.
    """

    def __init__(
        self,
        pages: PageStore,
        *,
        freshness: float = 1.0,
        monotonic: Callable[[], float] = time.monotonic,
        capacity: int = 4096,
    ) -> None:
        self._pages = pages
        self._memo: TTLCache[str, StoredPage | None] | None = (
            TTLCache(maxsize=capacity, ttl=freshness, timer=monotonic) if freshness > 0 else None
        )
        self._lock = threading.Lock()

    def get(self, slug: str) -> StoredPage | None:
        """The page (or its absence) as read at most `freshness` seconds ago."""
        if self._memo is None:
            return self._pages.get_page(slug)
        try:
            with self._lock:
                return self._memo[slug]
        except KeyError:  # not read yet, or read more than `freshness` seconds ago
            pass
        stored = self.get_fresh(slug)
        with self._lock:
            self._memo[slug] = stored
        return stored

    def get_fresh(self, slug: str) -> StoredPage | None:
        """The page as stored now (previews must match the latest version)."""
        return self._pages.get_page(slug)

    def forget_all(self) -> None:
        """Drop every remembered lookup (after a write through this process)."""
        if self._memo is not None:
            with self._lock:
                self._memo.clear()
