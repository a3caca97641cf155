"""The security headers of every answer the service sends, decided here and nowhere else.

`SecurityHeaders` wraps the whole served WSGI app (Flask and the MCP side bridged in), so a
surface cannot be missed; `security_headers` is the table itself, also used for the answers the
server front sends on its own (a body that timed out). A surface that sets a header itself keeps
its own value (a landing page's Content-Security-Policy carries the hash of its JSON-LD); this
adds what is missing. The README's "Security headers" table says what each surface gets and why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["HSTS", "HTML_POLICY", "OTHER_POLICY", "SecurityHeaders", "security_headers"]

Header = tuple[str, str]
WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

# A year, this host only: the company's other subdomains are not this service's to decide, and
# preloading is a choice for the domain's owner.
HSTS = "max-age=31536000"
# Pages without a policy of their own (/developers, the OAuth sign-in pages set theirs): no
# script at all, their one inline stylesheet, images from here, never framed.
HTML_POLICY = (
    "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
# Everything else (JSON, Markdown, static files, images, event streams): nothing in it may run
# or be framed if a browser is pointed at it directly (an SVG opened as a document, say).
OTHER_POLICY = "default-src 'none'; frame-ancestors 'none'; sandbox"
_ALWAYS: tuple[Header, ...] = (("X-Content-Type-Options", "nosniff"),)
_HTML: tuple[Header, ...] = (
    ("Content-Security-Policy", HTML_POLICY),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "strict-origin-when-cross-origin"),
)
_OTHER: tuple[Header, ...] = (("Content-Security-Policy", OTHER_POLICY),)


def security_headers(content_type: str, *, https: bool) -> tuple[Header, ...]:
    """The headers an answer of this Content-Type gets (HSTS only when served over https)."""
    html = content_type.lower().startswith("text/html")
    return (
        *_ALWAYS,
        *(_HTML if html else _OTHER),
        *((("Strict-Transport-Security", HSTS),) if https else ()),
    )


class SecurityHeaders:
    """WSGI middleware: every answer gets the headers `security_headers` names that it lacks.

    `https` is whether the service's public URL is https (behind the TLS proxy: Cloud Run, the
    load balancer); browsers ignore HSTS on plain http, so a local run sends none.
    """

    def __init__(self, app: WsgiApp, *, https: bool) -> None:
        self._app = app
        self._https = https
        self._by_type: dict[str, tuple[Header, ...]] = {}

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        def start(status: str, headers: list[Header], exc_info: Any = None) -> Any:
            # A 304 carries no headers of ours: a browser would store them over those of the
            # page it revalidated (a JSON policy over a page's own).
            if not status.startswith("304"):
                present = {name.lower() for name, _ in headers}
                content_type = next((v for n, v in headers if n.lower() == "content-type"), "")
                headers = list(headers)
                for name, value in self._for(content_type):
                    if name.lower() not in present:
                        headers.append((name, value))
            if exc_info is None:
                return start_response(status, headers)
            return start_response(status, headers, exc_info)

        return self._app(environ, start)

    def _for(self, content_type: str) -> tuple[Header, ...]:
        found = self._by_type.get(content_type)
        if found is None:
            found = security_headers(content_type, https=self._https)
            if len(self._by_type) < 64:  # a handful of types; never grown by what clients send
                self._by_type[content_type] = found
        return found
