"""The RSGI front (frontdoor/rsgi_front.py) seen from the WSGI app it serves: what reaches the
environ from granian's request, and what happens when the app fails while it streams.

Driven through `RsgiFront.__rsgi__` with an in-memory RSGI request and protocol that keep
granian's documented interface (scope attributes, `headers.items()`, the body as an async
iterator, `response_bytes` and `response_stream`); the served process runs the same front
under granian itself (tests/test_serving.py, tests/hostile/test_body_storm.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from frontdoor.rsgi_front import AppThreads, RsgiFront


@dataclass
class _Headers:
    pairs: list[tuple[str, str]]

    def get(self, key: str, default: Any = None) -> Any:
        return next((v for k, v in self.pairs if k == key), default)

    def items(self) -> list[tuple[str, str]]:
        return list(self.pairs)


@dataclass
class _Scope:
    headers: _Headers
    method: str = "GET"
    path: str = "/"
    proto: str = "http"
    query_string: str = ""
    server: str = "127.0.0.1:8080"
    client: str = "127.0.0.1:50000"
    http_version: str = "1.1"
    scheme: str = "http"


@dataclass
class _Transport:
    sent: list[bytes]

    async def send_bytes(self, data: bytes) -> None:
        self.sent.append(data)


@dataclass
class _Protocol:
    body: bytes = b""
    status: int | None = None
    sent: list[bytes] = field(default_factory=list)

    def __aiter__(self) -> Any:
        return self._pieces()

    async def _pieces(self) -> Any:
        if self.body:
            yield self.body

    def response_bytes(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self.status = status
        self.sent.append(body)

    def response_stream(self, status: int, headers: list[tuple[str, str]]) -> _Transport:
        self.status = status
        return _Transport(self.sent)


WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def _serve(app: WsgiApp, headers: list[tuple[str, str]], path: str = "/") -> _Protocol:
    proto = _Protocol()
    front = RsgiFront(app, threads=2)
    asyncio.run(front.__rsgi__(_Scope(_Headers(headers), path=path), proto))
    return proto


def test_cookie_fields_sent_apart_reach_the_app_as_one_cookie_header_joined_by_semicolons() -> None:
    """RFC 9113 8.2.3 (and RFC 6265 5.4: one Cookie header, pairs joined by "; ")."""
    seen: dict[str, Any] = {}

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        seen.update(environ)
        start_response("200 OK", [("Content-Length", "0")])
        return [b""]

    _serve(
        app,
        [("cookie", "a=1"), ("accept", "text/html"), ("cookie", "b=2"), ("accept", "*/*")],
    )

    assert seen["HTTP_COOKIE"] == "a=1; b=2"
    assert seen["HTTP_ACCEPT"] == "text/html,*/*"  # other repeated fields keep RFC 9110's ","


class _FailingStream:
    """An event stream that sends one event, then raises (a bug in the app)."""

    def __init__(self, secret: str) -> None:
        self.closed = False
        self._secret = secret

    def __iter__(self) -> Iterator[bytes]:
        yield b"data: first\n\n"
        raise RuntimeError(f"lost the token {self._secret}")

    def close(self) -> None:
        self.closed = True


def test_an_app_that_fails_while_streaming_is_logged_as_one_error_without_its_text(
    caplog: pytest.LogCaptureFixture,
) -> None:
    stream = _FailingStream("s3cr3t-value")

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        start_response("200 OK", [("Content-Type", "text/event-stream")])
        return stream

    with caplog.at_level(logging.INFO, logger="frontdoor.rsgi_front"):
        proto = _serve(app, [], path="/mcp")

    assert (proto.status, proto.sent) == (200, [b"data: first\n\n"])
    assert stream.closed
    (record,) = caplog.records
    assert record.levelno == logging.ERROR
    message = "GET /mcp: the app raised RuntimeError while streaming its response"
    assert record.getMessage() == message
    assert record.exc_info is None
    assert "s3cr3t" not in caplog.text


def test_a_client_that_goes_away_mid_stream_is_not_logged_as_an_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    closed: list[bool] = []

    class _Gone(_Transport):
        async def send_bytes(self, data: bytes) -> None:
            raise RuntimeError("granian: the client went away")

    class _GoneProtocol(_Protocol):
        def response_stream(self, status: int, headers: list[tuple[str, str]]) -> _Transport:
            return _Gone(self.sent)

    class _Stream:
        def __iter__(self) -> Iterator[bytes]:
            yield b"data: one\n\n"

        def close(self) -> None:
            closed.append(True)

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        start_response("200 OK", [("Content-Type", "text/event-stream")])
        return _Stream()

    with caplog.at_level(logging.INFO, logger="frontdoor.rsgi_front"):
        front = RsgiFront(app, threads=2)
        asyncio.run(front.__rsgi__(_Scope(_Headers([])), _GoneProtocol()))

    assert closed == [True]
    assert caplog.records == []


def test_calls_that_finish_together_each_get_their_own_result_or_error() -> None:
    """Results handed back on one wake-up of the loop still reach each caller's own future."""
    threads = AppThreads(8)

    def work(n: int) -> int:
        if n % 10 == 3:
            raise ValueError(n)
        return n * n

    async def run_all() -> list[object]:
        loop = asyncio.get_running_loop()
        calls = [threads.run(loop, work, n) for n in range(200)]
        return await asyncio.gather(*calls, return_exceptions=True)

    outcomes = asyncio.run(run_all())

    for n, outcome in enumerate(outcomes):
        if n % 10 == 3:
            assert isinstance(outcome, ValueError)
            assert outcome.args == (n,)
        else:
            assert outcome == n * n
