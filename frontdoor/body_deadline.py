"""BodyDeadline: the served app's read timeout for request bodies (granian has none).

granian times out only the request head (30 s); a body is read lazily by the WSGI app, in the
serving thread, for as long as the client takes. This middleware reads every body up front,
in pieces of READ_PIECE bytes, and answers 408 `request_timeout` (and closes the connection)
once BODY_READ_TIMEOUT seconds have passed since the request reached the app. The app then
reads the body from memory.

The deadline is checked as each piece arrives: granian cannot abandon a read in progress, and
reading from a helper thread while the serving thread answers wedges its worker (measured on
granian 2.8), so a client that stops sending altogether holds one of granian's blocking threads
(512 per worker) until it disconnects. Bodies over `max_bytes` are left to the app (its 413).
"""

from __future__ import annotations

import io
import json
import os
import time
from collections.abc import Callable, Iterable
from typing import Any

from frontdoor.composition import StartResponse, WsgiApp

BODY_READ_TIMEOUT = 10.0  # seconds; documented in content-api.md and signals-api.md
READ_PIECE = 4096


class BodyDeadline:
    """Wrap a WSGI app so each request body arrives within `timeout` seconds, or 408."""

    def __init__(
        self,
        app: WsgiApp,
        *,
        max_bytes: int,
        base_url: str = "",
        timeout: float = BODY_READ_TIMEOUT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.base_url = base_url
        self.timeout = timeout
        self.clock = clock

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        started = self.clock()
        length = _declared_length(environ)
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if length is None and not chunked:
            return self.app(environ, start_response)
        if length is not None and length > self.max_bytes:
            return self.app(environ, start_response)
        body = self._read(environ["wsgi.input"], length, deadline=started + self.timeout)
        if body is None:
            return self._timed_out(start_response)
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        return self.app(environ, start_response)

    def _read(self, stream: Any, length: int | None, *, deadline: float) -> bytes | None:
        """The body, or None once the deadline passed before it ended."""
        pieces: list[bytes] = []
        received = 0
        limit = length if length is not None else self.max_bytes + 1
        while received < limit:
            piece = stream.read(min(READ_PIECE, limit - received))
            if not piece:  # the client ended the body early; the app sees what came
                break
            pieces.append(piece)
            received += len(piece)
            if self.clock() > deadline and received < limit:
                return None
        return b"".join(pieces)

    def _timed_out(self, start_response: StartResponse) -> list[bytes]:
        """The problem body api.errors gives, built here: the app never saw this request."""
        message = f"The request body did not arrive within {self.timeout:g} seconds"
        body = json.dumps(
            {
                "ok": False,
                "error": "request_timeout",
                "message": message,
                "type": f"{self.base_url}/errors/request_timeout",
                "title": "Request body timed out",
                "status": 408,
                "detail": message,
                "instance": os.urandom(16).hex(),
            }
        ).encode()
        start_response(
            "408 Request Timeout",
            [
                ("Content-Type", "application/problem+json"),
                ("Content-Length", str(len(body))),
                ("Connection", "close"),
                ("Cache-Control", "no-store"),
            ],
        )
        return [body]


def _declared_length(environ: dict[str, Any]) -> int | None:
    raw = str(environ.get("CONTENT_LENGTH") or "").strip()
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 12:
        return None
    length = int(raw)
    return length if length > 0 else None
