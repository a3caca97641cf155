"""RsgiFront: the served WSGI app behind granian's RSGI interface, bodies read under a deadline.

granian has no read timeout for request bodies (emmett-framework/granian#728, closed as
wontfix; it times out request heads only), and under its WSGI interface the app reads the body
in one of granian's blocking threads (512 per worker): a client that sent its head and part of
a body and then nothing held that thread until it went away, so a few hundred such clients
starved every other request (measured: 700 of them and GET /healthz timed out after 30 s).

Here granian serves RSGI and this front reads each body on granian's event loop, where a
waiting read costs no thread, under `asyncio.timeout`: a body not complete BODY_READ_TIMEOUT
seconds after its request arrived is answered 408 `request_timeout` and the connection closes.
Only then is the WSGI app (Flask, and the MCP side through its bridge) called, in a thread of
our pool, with the whole body in memory. A response with a length (or a list) is drained in
that thread and sent in one piece; one without (the /mcp event stream) is streamed, each
piece read in the pool; the app raising mid-stream is logged as an error (one line, the
exception type only) and ends the stream. Repeated Cookie fields join with "; " (RFC 9113
8.2.3), other repeated fields with ",". bench/bench_public_read.py measures what the front
costs a read: the company record against the same app bare on granian's WSGI interface.

Why this shape and not a standard one (measured side by side, wrk from outside, interleaved
rounds on one shared 2-core machine; medians of per-round ratios, noise about +-25%):
- granian's ASGI interface with Flask under a2wsgi's WSGIMiddleware: public reads at 0.37x
  the bare app (empty route 0.28x); a2wsgi also reads the body in its thread.
- This front with `loop.run_in_executor` instead of AppThreads: reads at 0.69x, 0.94x, 0.76x
  and 0.79x the bare app in four runs where this front had 0.91x, 1.09x, 0.76x and 0.88x (at
  best level with it), and on /mcp within the noise of it (1.00x, 1.12x and 1.04x of it).
- The MCP SDK's app called directly on the server's loop (granian's ASGI interface, a front
  reading bodies as this one does, the bridge's private loop gone): /mcp tools/call at 0.61x
  and 0.78x of the bridge (frontdoor/composition.py) in two runs.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import queue
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from api.errors import problem_body, request_timeout
from api.security_headers import security_headers
from domain.numbers import ascii_whole_number
from frontdoor.composition import MAX_BODY, Environ, WsgiApp

BODY_READ_TIMEOUT = 10.0  # seconds; documented in content-api.md and signals-api.md
# Threads that run the WSGI app: as many as granian's WSGI interface had per worker. A thread
# is held only while the app runs (or an event stream waits for its next event), never while a
# body arrives.
APP_THREADS = 512
logger = logging.getLogger(__name__)
T = TypeVar("T")
_Call = tuple[asyncio.AbstractEventLoop, "asyncio.Future[Any]", Callable[..., Any], tuple[Any, ...]]
_Outcome = tuple["asyncio.Future[Any]", Any, BaseException | None]
BODILESS = frozenset({204, 304}) | frozenset(range(100, 200))
WSGI_BASE: Environ = {
    "SCRIPT_NAME": "",
    "SERVER_SOFTWARE": "granian-rsgi",
    "wsgi.version": (1, 0),
    "wsgi.errors": sys.stderr,
    "wsgi.multithread": True,
    "wsgi.multiprocess": False,
    "wsgi.run_once": False,
    "wsgi.input_terminated": True,
}


class AppThreads:
    """Threads that run calls for the event loop, started as they are needed, `size` at most.

    Half the cost of `loop.run_in_executor` a call (measured: 16 against 35 microseconds): a
    plain queue in, the loop's own future out. Results that finish while the loop has not yet
    taken the ones before are handed back with them, on one wake-up of the loop: each wake-up
    is a write to its self-pipe, a system call that lets go of the interpreter lock (under
    page-view load, 10% of the app threads' time went to getting it back after that write).
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._calls: queue.SimpleQueue[_Call] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._started = 0
        self._idle = 0
        self._done: dict[asyncio.AbstractEventLoop, list[_Outcome]] = {}
        self._done_lock = threading.Lock()

    def run(
        self, loop: asyncio.AbstractEventLoop, fn: Callable[..., T], *args: Any
    ) -> asyncio.Future[T]:
        """`fn(*args)` in a thread; its result (or exception) in the returned future."""
        future: asyncio.Future[T] = loop.create_future()
        with self._lock:
            # An idle thread takes it, or a new one while there is room; else it waits its turn.
            # (Once all threads are started the count no longer matters.)
            if self._idle:
                self._idle -= 1
            elif self._started < self._size:
                self._started += 1
                name = f"wsgi-{self._started}"
                threading.Thread(target=self._serve, name=name, daemon=True).start()
        self._calls.put((loop, future, fn, args))
        return future

    def _serve(self) -> None:
        while True:
            loop, future, fn, args = self._calls.get()
            try:
                outcome: _Outcome = (future, fn(*args), None)
            except BaseException as err:  # noqa: BLE001  # handed to the awaiting coroutine
                outcome = (future, None, err)
            self._hand_back(loop, outcome)
            with self._lock:
                self._idle += 1

    def _hand_back(self, loop: asyncio.AbstractEventLoop, outcome: _Outcome) -> None:
        with self._done_lock:
            waiting = self._done.setdefault(loop, [])
            waiting.append(outcome)
            first = len(waiting) == 1
        if first:  # else the wake-up asked for by the first is still to run, and takes this too
            loop.call_soon_threadsafe(self._settle, loop)

    def _settle(self, loop: asyncio.AbstractEventLoop) -> None:
        """On the loop: every result handed back since the last wake-up, into its future."""
        with self._done_lock:
            outcomes = self._done.pop(loop, [])
        for future, result, err in outcomes:
            if future.done():  # its request was cancelled (the client went away)
                continue
            if err is None:
                future.set_result(result)
            else:
                future.set_exception(err)


class RsgiFront:
    """Serve `app` (WSGI) as an RSGI app: body first, under `timeout`; then the app in a thread."""

    def __init__(
        self,
        app: WsgiApp,
        *,
        base_url: str = "",
        timeout: float = BODY_READ_TIMEOUT,
        threads: int = APP_THREADS,
        read_cap: int = MAX_BODY,
    ) -> None:
        self.app = app
        self.base_url = base_url
        self.timeout = timeout
        self.read_cap = read_cap
        self._pool = AppThreads(threads)

    async def __rsgi__(self, scope: Any, proto: Any) -> None:
        if scope.proto != "http":  # websockets: none served
            return
        headers = scope.headers
        declared = _declared_length(headers.get("content-length"))
        chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        body = b""
        if declared or chunked:
            limit = min(declared, self.read_cap) if declared else self.read_cap
            try:
                async with asyncio.timeout(self.timeout):  # no task of its own, unlike wait_for
                    body = await _read(proto, limit)
            except TimeoutError:
                self._timed_out(proto)
                return
            except RuntimeError:  # granian's RSGIProtocolClosed: the client went away mid-body
                return
        environ = _environ(scope, body, declared)
        loop = asyncio.get_running_loop()
        status, response_headers, chunks, rest = await self._pool.run(
            loop, self._call, environ, scope.method == "HEAD"
        )
        if rest is None:
            proto.response_bytes(status, response_headers, b"".join(chunks))
            return
        request = f"{scope.method} {scope.path}"
        await self._stream(loop, proto, request, (status, response_headers), chunks, rest)

    def _call(
        self, environ: Environ, head: bool
    ) -> tuple[int, list[tuple[str, str]], list[bytes], Any]:
        """In a pool thread: the app's status, headers, the body so far, and what is left
        (None once the body is whole: a response with a length, or that can have no body)."""
        started: list[Any] = []

        def start_response(
            status: str, headers: list[tuple[str, str]], exc_info: Any = None
        ) -> Any:
            started[:] = [status, headers]
            return _no_write

        result = self.app(environ, start_response)
        chunks: list[bytes] = []
        if isinstance(result, (list, tuple)):
            chunks = list(result)
            return _status(started), started[1], chunks, None
        iterator = iter(result)
        if not started:  # a generator app calls start_response on its first piece
            chunks.append(next(iterator, b""))
        headers = started[1]
        status = _status(started)
        if (
            head
            or status in BODILESS
            or any(name.lower() == "content-length" for name, _ in headers)
        ):
            chunks.extend(iterator)
            _close(result)
            return status, headers, chunks, None
        return status, headers, chunks, (iterator, result)

    async def _stream(
        self,
        loop: asyncio.AbstractEventLoop,
        proto: Any,
        request: str,
        head: tuple[int, list[tuple[str, str]]],
        chunks: list[bytes],
        rest: tuple[Iterator[bytes], Iterable[bytes]],
    ) -> None:
        """An unsized response (an event stream): each piece sent as the app yields it.

        The app raising mid-stream is logged as an error (its type, not its text) and ends the
        stream; a failed send is the client gone. Either way the app's body is closed.
        """
        iterator, result = rest
        transport = proto.response_stream(*head)
        try:
            for chunk in chunks:
                if chunk:
                    await transport.send_bytes(chunk)
            while True:
                try:
                    chunk = await self._pool.run(loop, next, iterator, None)
                except Exception as err:  # noqa: BLE001  # the app failed, not the client
                    logger.error(
                        "%s: the app raised %s while streaming its response",
                        request,
                        type(err).__name__,
                    )
                    break
                if chunk is None:
                    break
                if chunk:
                    await transport.send_bytes(chunk)
        except Exception:  # noqa: BLE001, S110  # the client went away: the app is told below
            pass
        finally:
            await self._pool.run(loop, _close, result)

    def _timed_out(self, proto: Any) -> None:
        """api.errors' problem body, sent from here: the app never saw this request."""
        message = f"The request body did not arrive within {self.timeout:g} seconds"
        body = problem_body(
            request_timeout(message),
            base_url=self.base_url,
            instance=os.urandom(16).hex(),
        )
        proto.response_bytes(
            408,
            [
                ("content-type", "application/problem+json"),
                ("connection", "close"),
                ("cache-control", "no-store"),
                *security_headers(
                    "application/problem+json", https=self.base_url.startswith("https://")
                ),
            ],
            json.dumps(body).encode(),
        )


async def _read(proto: Any, limit: int) -> bytes:
    """The body as it arrives, `limit` bytes at most (the client may end it early)."""
    pieces: list[bytes] = []
    received = 0
    async for piece in proto:
        pieces.append(piece)
        received += len(piece)
        if received >= limit:
            break
    return b"".join(pieces)[:limit]


def _environ(scope: Any, body: bytes, declared: int | None) -> Environ:
    server_host, _, server_port = scope.server.rpartition(":")
    client_host, _, client_port = scope.client.rpartition(":")
    if not client_host:
        client_host, client_port = scope.client, ""
    environ: Environ = {
        **WSGI_BASE,
        "REQUEST_METHOD": scope.method,
        "PATH_INFO": scope.path.encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope.query_string,
        "SERVER_NAME": server_host,
        "SERVER_PORT": server_port,
        "SERVER_PROTOCOL": f"HTTP/{scope.http_version}",
        "REMOTE_ADDR": client_host.strip("[]"),
        # With it, the ASGI side's bridge (a2wsgi) gives a request its `client`: the
        # authorization server counts sign-ins and registrations per client address.
        "REMOTE_PORT": client_port,
        "wsgi.url_scheme": scope.scheme,
        "wsgi.input": io.BytesIO(body),
    }
    for name, value in scope.headers.items():
        key = name.upper().replace("-", "_")
        if key == "CONTENT_TYPE":
            environ["CONTENT_TYPE"] = value
            continue
        if key in ("CONTENT_LENGTH", "TRANSFER_ENCODING"):
            continue
        key = f"HTTP_{key}"
        if key in environ:
            # Cookie fields (HTTP/2 sends one per cookie) join as one header: RFC 9113 8.2.3.
            value = f"{environ[key]}{'; ' if key == 'HTTP_COOKIE' else ','}{value}"
        environ[key] = value
    if declared is not None or body:
        environ["CONTENT_LENGTH"] = str(declared if declared is not None else len(body))
    return environ


def _declared_length(raw: str | None) -> int | None:
    return ascii_whole_number((raw or "").strip(), max_digits=12)


def _status(started: list[Any]) -> int:
    return int(str(started[0]).split(" ", 1)[0])


def _close(result: Iterable[bytes]) -> None:
    close = getattr(result, "close", None)
    if close is not None:
        close()


def _no_write(_data: bytes) -> None:
    raise NotImplementedError("the write() callable of start_response is not supported")
