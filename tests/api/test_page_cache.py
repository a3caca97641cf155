"""The finished-page cache behind /p/ (api/rest/page_cache.py): bounded, one version per page,
headers checked once when a page is cached (DESIGN pages)."""

from __future__ import annotations

import pytest

from api.rest.page_cache import CachedPage, PageCache
from renderers.page_html import RenderedPage


def cached(html: str) -> CachedPage:
    return CachedPage.of(
        RenderedPage(html=html, content_security_policy=""), cache_control="", noindex=False
    )


@pytest.mark.spec("pages.serve")
def test_response_cache_stays_within_its_entry_bound() -> None:
    """DESIGN pages: the per-version response cache is a bounded LRU."""
    cache = PageCache(capacity=2)
    page = cached("x")
    for n in range(5):
        cache.put(f"s{n}", 1, "open", page)
    cache.get("s3", 1, "open")  # served recently: s4, the newer one, goes first
    cache.put("s5", 1, "open", page)

    assert len(cache) == 2
    assert cache.get("s3", 1, "open") is page
    assert cache.get("s5", 1, "open") is page
    assert cache.get("s4", 1, "open") is None
    assert cache.get("s0", 1, "open") is None


@pytest.mark.spec("pages.serve")
def test_response_cache_stays_within_its_byte_bound() -> None:
    """DESIGN pages: the bodies held never pass max_bytes, however many slugs are served."""
    cache = PageCache(capacity=1000, max_bytes=10_000)
    for n in range(50):
        cache.put(f"s{n}", 1, "open", cached("x" * 1_000))

    assert cache.body_bytes <= 10_000
    assert len(cache) == 10
    assert cache.get("s49", 1, "open") is not None
    assert cache.get("s39", 1, "open") is None


@pytest.mark.spec("pages.serve")
def test_a_new_version_replaces_the_cached_one() -> None:
    """A page's old version is neither served nor kept once its new version is cached."""
    cache = PageCache()
    first, second = cached("first"), cached("second")
    cache.put("audit", 1, "open", first)
    cache.put("audit", 1, "submitted", first)
    cache.put("audit", 2, "open", second)

    assert cache.get("audit", 1, "open") is None
    assert cache.get("audit", 2, "open") is second
    assert cache.get("audit", 1, "submitted") is first
    assert len(cache) == 2
    assert cache.body_bytes == len(b"second") + len(b"first")


def test_cached_headers_are_checked_once_when_the_page_is_cached() -> None:
    """A header werkzeug would refuse (a newline) is refused when cached, not when served."""
    with pytest.raises(ValueError, match="newline"):
        CachedPage.of(
            RenderedPage(html="x", content_security_policy="default-src 'none'\r\nX-Evil: 1"),
            cache_control="",
            noindex=False,
        )
