"""A webhook receiver for tests: a real HTTP server on a free loopback port, in a thread.

It records every request and answers with scripted statuses (then `default_status`).
Waiting is a bounded wait on a condition, never a sleep.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.local_server import serving


@dataclass(frozen=True)
class Received:
    """One request as the receiver saw it."""

    path: str
    headers: dict[str, str]
    body: bytes
    at: float  # time.time() on arrival
    status: int  # what the receiver answered


class Receiver:
    """Recorded requests and the statuses still to answer."""

    def __init__(
        self,
        statuses: list[int],
        default_status: int,
        on_request: Callable[[], None] | None = None,
    ) -> None:
        self.statuses = list(statuses)
        self.default_status = default_status
        self.on_request = on_request  # runs before each answer: a race a test stages
        self.requests: list[Received] = []
        self.url = ""
        self._cond = threading.Condition()

    def record(self, path: str, headers: dict[str, str], body: bytes) -> int:
        if self.on_request is not None:
            self.on_request()
        with self._cond:
            status = self.statuses.pop(0) if self.statuses else self.default_status
            self.requests.append(Received(path, headers, body, time.time(), status))
            self._cond.notify_all()
            return status

    def wait_for(self, count: int, *, timeout: float = 10.0) -> list[Received]:
        """The first `count` requests, waiting up to `timeout` seconds for them."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.requests) >= count, timeout=timeout):
                raise AssertionError(f"expected {count} requests, got {len(self.requests)}")
            return list(self.requests)


@contextmanager
def running_receiver(
    statuses: list[int] | None = None,
    *,
    default_status: int = 200,
    on_request: Callable[[], None] | None = None,
) -> Iterator[Receiver]:
    """A receiver listening on 127.0.0.1 for the duration of the block."""
    receiver = Receiver(statuses or [], default_status, on_request)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # the http.server naming
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            status = receiver.record(
                self.path, {k.lower(): v for k, v in self.headers.items()}, body
            )
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:  # the base signature
            return

    with serving(ThreadingHTTPServer(("127.0.0.1", 0), Handler)) as url:
        receiver.url = url
        yield receiver
