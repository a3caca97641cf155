"""frontdoor.body_deadline: request bodies must arrive within the read timeout, else 408.

Driven directly as a WSGI callable, with a stream that hands out pieces as the clock moves.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from frontdoor.body_deadline import BODY_READ_TIMEOUT, BodyDeadline
from schemas.errors import Problem


class SlowStream:
    """A body that advances the clock by `seconds_per_read` on every read."""

    def __init__(self, data: bytes, clock: list[float], seconds_per_read: float) -> None:
        self.data = io.BytesIO(data)
        self.clock = clock
        self.seconds = seconds_per_read

    def read(self, size: int = -1) -> bytes:
        self.clock[0] += self.seconds
        return self.data.read(size)


def echo(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
    """The app behind the guard: the body it could read, and its length header."""
    body = environ["wsgi.input"].read()
    start_response("200 OK", [("Content-Type", "application/json")])
    return [
        json.dumps({"length": environ.get("CONTENT_LENGTH", ""), "body": body.decode()}).encode()
    ]


@dataclass
class Answer:
    """What the guard answered: status, headers and the JSON body."""

    status: int
    headers: dict[str, str]
    body: Any


def _call(data: bytes, seconds_per_read: float, **environ: str) -> Answer:
    clock = [0.0]
    guard = BodyDeadline(echo, max_bytes=1024 * 1024, clock=lambda: clock[0])
    started: list[Any] = []
    chunks = guard(
        {"wsgi.input": SlowStream(data, clock, seconds_per_read), **environ},
        lambda status, headers: started.extend([status, dict(headers)]),
    )
    body = json.loads(b"".join(chunks))
    return Answer(int(started[0].split()[0]), started[1], body)


def test_a_body_that_arrives_in_time_reaches_the_app_whole() -> None:
    """content-api.md Limits: a body within the read timeout is read as sent."""
    body = b'{"a": "' + b"x" * 20_000 + b'"}'

    response = _call(body, 0.1, CONTENT_LENGTH=str(len(body)))

    assert response.status == 200
    assert response.body == {"length": str(len(body)), "body": body.decode()}


def test_a_body_still_arriving_at_the_read_timeout_is_408_and_the_connection_closes() -> None:
    """content-api.md Limits: 408 `request_timeout` once the read timeout has passed."""
    body = b"x" * 64 * 1024

    response = _call(body, BODY_READ_TIMEOUT / 4, CONTENT_LENGTH=str(len(body)))

    assert response.status == 408
    assert Problem.model_validate(response.body).error == "request_timeout"
    assert response.headers["Connection"] == "close"


def test_a_chunked_body_is_held_to_the_same_deadline() -> None:
    """signals-api.md Limits: bodies without a Content-Length are timed too."""
    response = _call(b"x" * 64 * 1024, BODY_READ_TIMEOUT / 4, HTTP_TRANSFER_ENCODING="chunked")

    assert response.status == 408


def test_a_request_without_a_body_passes_through_untouched() -> None:
    """The guard reads nothing when no body is announced."""
    response = _call(b"", 100.0, CONTENT_LENGTH="")

    assert (response.status, response.body["body"]) == (200, "")
