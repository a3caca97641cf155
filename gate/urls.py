"""Safe URL formats for pages: links are a site path or an absolute https URL; images https only.

An allow-list, not a deny-list: anything that is not plainly one of those shapes is refused, so
`javascript:`, `data:`, protocol-relative, backslash, whitespace, control-character, case and
entity-encoding tricks all fail for the same reason. The renderer may call these again.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import urlsplit

MAX_URL_LENGTH = 2048

_HOST = re.compile(r"^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(?:\.(?!-)[a-z0-9-]{1,63}(?<!-))+$")
_ENTITY = re.compile(r"&(?:#|[a-z][a-z0-9]*;)", re.IGNORECASE)
# Percent-encoded slash or backslash right after the leading slash could turn a path into //host.
_ENCODED_SLASH_START = re.compile(r"^/%(?:2f|5c)", re.IGNORECASE)


def link_problem(url: str) -> str | None:
    """Why a link (CTA href) is unsafe, or None when it is a site path or an https URL."""
    if (problem := _common_problem(url)) is not None:
        return problem
    if url.startswith("/"):
        if url.startswith("//"):
            return (
                "protocol-relative URLs are not allowed; use a site path like /pricing or https://"
            )
        if _ENCODED_SLASH_START.match(url):
            return "a site path may not start with an encoded slash"
        return None
    return _https_problem(url, what="a link")


def image_problem(url: str) -> str | None:
    """Why an image URL is unsafe, or None when it is an absolute https URL."""
    return _common_problem(url) or _https_problem(url, what="an image")


def _common_problem(url: str) -> str | None:
    if url == "":
        return "empty URL"
    if len(url) > MAX_URL_LENGTH:
        return f"longer than {MAX_URL_LENGTH} characters"
    for char in url:
        if char.isspace() or unicodedata.category(char) in {"Cc", "Cf", "Zs", "Zl", "Zp"}:
            return "whitespace or control characters are not allowed in a URL"
        if ord(char) > 0x7E:
            return "non-ASCII characters must be percent-encoded (and hosts punycode)"
    if "\\" in url:
        return "backslashes are not allowed in a URL"
    if _ENTITY.search(url):
        return "HTML character references are not allowed in a URL"
    return None


def _https_problem(url: str, *, what: str) -> str | None:
    expected = f"{what} must be an absolute https:// URL" + (
        " or a site path like /pricing" if what == "a link" else ""
    )
    scheme, sep, _rest = url.partition(":")
    if not sep or scheme != "https":
        return expected
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return expected
    del port
    if not url.startswith("https://") or "@" in parts.netloc:
        return expected
    host = parts.hostname or ""
    if not _HOST.match(host):
        return "the host must be a domain name"
    return None
