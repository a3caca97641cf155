"""Cacheable public responses: bytes, a strong ETag and headers prepared once; 304 on a match.

This is the hot path of every public read (bench/bench_public_read.py), so a body's headers
are built and checked when the body is, and a request only compares If-None-Match.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from flask import Response, request
from werkzeug.datastructures import Headers
from werkzeug.utils import get_content_type

from domain.etags import etag_listed

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIEnvironment

PUBLIC_CACHE_CONTROL = "public, max-age=300, s-maxage=3600"
# What a simple cross-origin GET needs; the preflight-only members go on OPTIONS answers.
# Beyond the CORS-safelisted ones, a page on another origin reads only the response headers
# listed here: the validator, what a 429 or 503 says about waiting, and the id to quote.
CORS_SIMPLE_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": "ETag, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id",
}
CORS_HEADERS = {
    **CORS_SIMPLE_HEADERS,
    "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
    "Access-Control-Allow-Headers": "If-None-Match, Content-Type",
    "Access-Control-Max-Age": "86400",
}

Header = tuple[str, str]


@dataclass(frozen=True)
class CachedBody:
    """A response body prepared once: its bytes, media type, strong ETag and headers."""

    data: bytes
    mimetype: str
    etag: str
    # RFC 9110 15.4.5: a 304 carries the validators and caching headers, not Content-*.
    not_modified_headers: tuple[Header, ...] = field(default=(), repr=False)
    headers: tuple[Header, ...] = field(default=(), repr=False)

    @classmethod
    def of(cls, data: bytes, mimetype: str) -> CachedBody:
        """Hash the bytes once into a strong ETag and fix the headers of both answers."""
        etag = '"' + hashlib.sha256(data).hexdigest()[:32] + '"'
        validators = (
            ("ETag", etag),
            ("Cache-Control", PUBLIC_CACHE_CONTROL),
            *CORS_SIMPLE_HEADERS.items(),
        )
        return cls(
            data=data,
            mimetype=mimetype,
            etag=etag,
            not_modified_headers=validators,
            # Content-Length comes from the body itself, when the response is made.
            headers=(*validators, ("Content-Type", get_content_type(mimetype, "utf-8"))),
        )


class PreparedResponse(Response):
    """A response whose headers were built and checked with its body, once.

    werkzeug copies and re-checks every header of every response in get_wsgi_headers (and
    filters a 304's list once more); hooks still add their headers to `headers` as usual.
    """

    default_mimetype = None  # the prepared headers carry Content-Type where one belongs

    def get_wsgi_headers(self, environ: WSGIEnvironment) -> Headers:
        return self.headers


def cached_response(body: CachedBody) -> Response:
    """200 with the body, or 304 (same validators, no body) when If-None-Match names its ETag."""
    if etag_listed(request.environ.get("HTTP_IF_NONE_MATCH"), body.etag):
        return PreparedResponse(status=304, headers=body.not_modified_headers)
    return PreparedResponse(body.data, headers=body.headers)
