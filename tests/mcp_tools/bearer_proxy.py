"""A loopback forwarding proxy that adds one bearer token to every request: how a client that
cannot sign in (the MCP conformance suite's server runner takes only a URL) reaches the
OAuth-protected /mcp of a served process. Everything else passes through as sent, `Host` and
`Origin` included, so the server's own checks (DNS rebinding among them) see the client's
request. A JSON answer comes back whole; an event stream is passed on as it arrives, its
connection closed after it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2

from tests.local_server import serving

# Hop-by-hop headers (RFC 9110 section 7.6.1) and those the proxy recomputes.
_NOT_FORWARDED = frozenset(
    {
        "connection",
        "keep-alive",
        "transfer-encoding",
        "content-length",
        "content-encoding",
        "authorization",
    }
)


class _QuietServer(ThreadingHTTPServer):
    """Streams the client dropped, or still open when the proxy stops, end their threads
    without a traceback (the client's own checks report what it did not get)."""

    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: object, client_address: object) -> None:
        return


@contextmanager
def bearer_proxy(target: str, token: str) -> Iterator[str]:
    """Serve on a free loopback port, forwarding to `target` with `Authorization: Bearer
    token`; yields the proxy's base URL."""
    upstream = httpx2.Client(base_url=target, timeout=60)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _NOT_FORWARDED}
            headers["Authorization"] = f"Bearer {token}"
            request = upstream.build_request(self.command, self.path, headers=headers, content=body)
            answer = upstream.send(request, stream=True)
            try:
                self._answer(answer)
            finally:
                answer.close()

        def _answer(self, answer: httpx2.Response) -> None:
            self.send_response(answer.status_code)
            for name, value in answer.headers.multi_items():
                if name.lower() not in _NOT_FORWARDED:
                    self.send_header(name, value)
            if answer.headers.get("content-type", "").startswith("text/event-stream"):
                self.send_header("Connection", "close")
                self.close_connection = True
                self.end_headers()
                for chunk in answer.iter_bytes():
                    self.wfile.write(chunk)
                    self.wfile.flush()
                return
            content = answer.read()
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        do_GET = do_POST = do_DELETE = do_OPTIONS = _forward  # noqa: N815  # http.server's names

        def log_message(self, format: str, *args: object) -> None:
            return

    try:
        with serving(_QuietServer(("127.0.0.1", 0), Handler)) as url:
            yield url
    finally:
        upstream.close()
