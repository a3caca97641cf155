"""Which link and image URLs a page may carry: site paths, in-page anchors and https only.

The quality gate refuses unsafe URLs on write; the renderer checks again, since a page can
reach the store by other paths. Pure.
"""

from __future__ import annotations

import re

__all__ = ["absolute_url", "image_src", "is_https", "safe_href"]

_SAFE_PATH = re.compile(r"^/(?!/)[^\s\\<>\"'`]*$")
_SAFE_HTTPS = re.compile(r"^https://[^\s/\\<>\"'`@]+(?:/[^\s\\<>\"'`]*)?$", re.IGNORECASE)
_SAFE_FRAGMENT = re.compile(r"^#[A-Za-z][\w-]*$")


def safe_href(value: str | None) -> str | None:
    """The link if it is a site path, an in-page anchor or an absolute https URL; else None."""
    if not value:
        return None
    if _SAFE_PATH.match(value) or _SAFE_HTTPS.match(value) or _SAFE_FRAGMENT.match(value):
        return value
    return None


def is_https(url: str | None) -> bool:
    """An absolute https URL with no whitespace, quotes, backslashes or credentials."""
    return bool(url and _SAFE_HTTPS.match(url))


def image_src(url: str | None, *, base_url: str) -> str | None:
    """An https image, or one of our own (a site path or under the public origin, e.g. /assets/)."""
    if not url:
        return None
    if _SAFE_HTTPS.match(url) or _SAFE_PATH.match(url):
        return url
    own = base_url + "/"
    return url if url.startswith(own) and _SAFE_PATH.match(url[len(base_url) :]) else None


def absolute_url(url: str | None, *, base_url: str) -> str | None:
    """A site path made absolute on the public origin; other URLs unchanged."""
    return base_url + url if url and url.startswith("/") else url
