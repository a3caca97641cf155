"""The render cache of /p/{slug}: prepared bodies per (slug, version, form state), and a short
memo of store lookups so a hot page costs no store read on every request.

A lookup is kept `freshness` seconds (default 1): a change made by another process shows within
that time, and a change made through this process's Content API clears the memo at once.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from flask import Response, request

from api.http_cache import Header, PreparedResponse
from backends.ports import PageStore, StoredPage
from renderers.page_html import RenderedPage

__all__ = ["HTML_UTF8", "SECURITY_HEADERS", "CachedPage", "PageCache", "PageLookup"]

HTML_UTF8 = "text/html; charset=utf-8"
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


class PageLookup:
    """Stored pages by slug through a memo kept `freshness` seconds; `forget_all` empties it."""

    def __init__(
        self,
        pages: PageStore,
        *,
        freshness: float = 1.0,
        monotonic: Callable[[], float] = time.monotonic,
        capacity: int = 4096,
    ) -> None:
        self._pages = pages
        self._freshness = freshness
        self._monotonic = monotonic
        self._capacity = capacity
        # Replaced, never mutated in place while read: a dict read is atomic under the GIL.
        self._memo: dict[str, tuple[StoredPage | None, float]] = {}

    def get(self, slug: str) -> StoredPage | None:
        """The page (or its absence) as read at most `freshness` seconds ago."""
        if self._freshness <= 0:
            return self._pages.get_page(slug)
        now = self._monotonic()
        hit = self._memo.get(slug)
        if hit is not None and hit[1] > now:
            return hit[0]
        stored = self.get_fresh(slug)
        memo = self._memo if len(self._memo) < self._capacity else {}
        memo[slug] = (stored, now + self._freshness)
        self._memo = memo
        return stored

    def get_fresh(self, slug: str) -> StoredPage | None:
        """The page as stored now (previews must match the latest version)."""
        return self._pages.get_page(slug)

    def forget_all(self) -> None:
        """Drop every remembered lookup (after a write through this process)."""
        self._memo = {}


def _etag_matches(header: str | None, etag: str) -> bool:
    """If-None-Match uses the weak comparison (RFC 9110 13.1.2): W/"x" matches "x"."""
    if not header:
        return False
    if header.strip() == "*":
        return True
    return etag in (tag.strip().removeprefix("W/") for tag in header.split(","))
