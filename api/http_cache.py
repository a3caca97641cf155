"""Cacheable public responses: bytes and a strong ETag computed once, CORS open, 304 on a match."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from flask import Response, request

PUBLIC_CACHE_CONTROL = "public, max-age=300, s-maxage=3600"
CORS_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
    "Access-Control-Allow-Headers": "If-None-Match, Content-Type",
    "Access-Control-Expose-Headers": "ETag",
    "Access-Control-Max-Age": "86400",
}


@dataclass(frozen=True)
class CachedBody:
    """A response body prepared once: its bytes, media type and strong ETag."""

    data: bytes
    mimetype: str
    etag: str

    @classmethod
    def of(cls, data: bytes, mimetype: str) -> CachedBody:
        return cls(
            data=data, mimetype=mimetype, etag='"' + hashlib.sha256(data).hexdigest()[:32] + '"'
        )


def cached_response(body: CachedBody) -> Response:
    """200 with the body, or 304 when If-None-Match names its ETag."""
    headers = {
        "ETag": body.etag,
        "Cache-Control": PUBLIC_CACHE_CONTROL,
        "Vary": "Accept-Encoding",
        **CORS_HEADERS,
    }
    if _matches(request.headers.get("If-None-Match"), body.etag):
        return Response(status=304, headers=headers)
    return Response(body.data, mimetype=body.mimetype, headers=headers)


def _matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    if header.strip() == "*":
        return True
    # Weak comparison for If-None-Match (RFC 9110 13.1.2): W/"x" matches "x".
    candidates = (tag.strip().removeprefix("W/") for tag in header.split(","))
    return etag in candidates
