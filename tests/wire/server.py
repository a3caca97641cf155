"""A real loopback HTTP server that answers scripted model-provider responses and counts calls.

Each provider module builds `Answer`s in that provider's documented wire format; the server
records every request (path, headers, JSON body) and can hold answers until released, so a
test can kill a worker while its model call is in flight.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Answer:
    """One HTTP answer: status, body (JSON object or raw bytes), extra headers."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)

    def encoded(self) -> tuple[bytes, str]:
        if isinstance(self.body, bytes):
            return self.body, self.headers.get("Content-Type", "application/json")
        return json.dumps(self.body).encode(), "application/json"


@dataclass(frozen=True)
class Recorded:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


Responder = Callable[[Recorded], Answer]


class WireServer:
    """ThreadingHTTPServer on 127.0.0.1; answers from a script, then from `default`."""

    def __init__(self, default: Responder) -> None:
        self.default = default
        self.script: list[Responder] = []
        self.requests: list[Recorded] = []
        self.release = threading.Event()
        self.release.set()
        self.arrived = threading.Event()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def calls(self) -> int:
        with self._lock:
            return len(self.requests)

    def start(self) -> WireServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def answer_next(self, *responders: Responder) -> None:
        """Answer the next requests with these, in order, before falling back to default."""
        with self._lock:
            self.script.extend(responders)

    def hold(self) -> None:
        """Keep every answer until `release.set()`; `arrived` is set when a request waits."""
        self.arrived.clear()
        self.release.clear()

    def _respond(self, recorded: Recorded) -> Answer:
        with self._lock:
            self.requests.append(recorded)
            responder = self.script.pop(0) if self.script else self.default
        self.arrived.set()
        self.release.wait(timeout=60)
        return responder(recorded)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except json.JSONDecodeError:
                    body = raw
                recorded = Recorded("POST", self.path, dict(self.headers.items()), body)
                answer = server._respond(recorded)
                data, content_type = answer.encoded()
                self.send_response(answer.status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:  # stdlib's name
                return

        return Handler
