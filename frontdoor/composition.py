"""One WSGI process, two apps: Flask natively, and an ASGI app bridged in at its own paths.

notes/serving.md: Flask inside an ASGI server runs at about a quarter of its native WSGI
speed, so the WSGI side leads and only the ASGI paths pay the bridge. LifespanBridge runs the
ASGI app on a private event loop: the lifespan protocol first (no WSGI server runs it), then
each request as a task of its own that the bridge keeps until it has ended. The status and
headers go to the WSGI server as soon as the app sends them (a GET /mcp event stream gets its
headers at once, not with its first event), and a response the client stops reading tells the
app `http.disconnect`, so every request's context and tasks run to their end on the loop.

The private loop stays because it is faster: the same tools/call with the SDK's app on the
server's own loop answered 0.61x and 0.78x as many requests a second, measured beside this
bridge in the same rounds (frontdoor/rsgi_front.py).
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, MutableMapping
from http import HTTPStatus
from typing import Any

from api.built_once import BuiltOnce
from domain.numbers import ascii_whole_number

Environ = dict[str, Any]
StartResponse = Callable[..., Any]
WsgiApp = Callable[[Environ, StartResponse], Iterable[bytes]]
AsgiApp = Callable[..., Any]
Message = MutableMapping[str, Any]

logger = logging.getLogger(__name__)

# The most of a request body read before an app runs, by the front and then by the bridge:
# past the MCP SDK's 4 MiB (it answers 413 only if it sees more) and Flask's limit (which
# answers 413 from the declared length alone).
MAX_BODY = 4 * 1024 * 1024 + 1
# How long a request whose client went away may take to end after `http.disconnect`.
DISCONNECT_GRACE = 5.0
ERROR_BODY = b'{"error": "internal_error", "error_description": "the request failed"}'


class LifespanError(RuntimeError):
    """The ASGI app refused to start."""


class LifespanBridge:
    """Runs an ASGI app's lifespan on a private event loop and serves it as WSGI on that loop."""

    def __init__(self, app: AsgiApp, *, timeout: float = 30.0) -> None:
        # Here, not at the top: only a bridge needs a2wsgi, and it is built on first use.
        from a2wsgi.asgi import build_scope

        self._build_scope = build_scope
        self._app = app
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="asgi-bridge", daemon=True
        )
        self._thread.start()
        self._inbox: asyncio.Queue[Message] | None = None
        self._outbox: asyncio.Queue[Message] | None = None
        self._task: asyncio.Future[None] | None = None
        self._requests: set[asyncio.Task[None]] = set()  # held until each has ended
        try:
            asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout)
        except BaseException:
            self._stop_loop(timeout)
            raise
        self.wsgi_app: WsgiApp = self._respond

    async def _start(self) -> None:
        self._inbox, self._outbox = asyncio.Queue(), asyncio.Queue()
        scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}, "state": {}}
        self._task = asyncio.ensure_future(self._app(scope, self._inbox.get, self._outbox.put))
        await self._inbox.put({"type": "lifespan.startup"})
        replied = asyncio.ensure_future(self._outbox.get())
        # An app that raises or returns instead of answering would otherwise leave us waiting.
        await asyncio.wait({replied, self._task}, return_when=asyncio.FIRST_COMPLETED)
        if not replied.done():
            replied.cancel()
            raise LifespanError("the ASGI app ended its lifespan before startup completed")
        reply = replied.result()
        if reply["type"] != "lifespan.startup.complete":
            raise LifespanError(reply.get("message", "lifespan startup failed"))

    async def _stop(self) -> None:
        assert self._inbox is not None  # noqa: S101  # set by _start, for mypy
        assert self._outbox is not None  # noqa: S101  # set by _start, for mypy
        # Requests still open (an event stream) end as their clients' would on a disconnect.
        for task in list(self._requests):
            task.cancel()
        if self._requests:
            await asyncio.wait(list(self._requests))
        await self._inbox.put({"type": "lifespan.shutdown"})
        await self._outbox.get()

    def _respond(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        """One request: run it on the loop, hand its status and headers over, stream its body."""
        exchange = _Exchange(_read_body(environ))
        # a2wsgi types environ as its own TypedDict; servers hand over a plain dict.
        scope: dict[str, Any] = dict(self._build_scope(environ))  # type: ignore[arg-type]
        self._loop.call_soon_threadsafe(self._start_request, scope, exchange)
        first = exchange.outbox.get()
        if first[0] != "start":
            start_response(
                "500 Internal Server Error",
                [("Content-Type", "application/json"), ("Content-Length", str(len(ERROR_BODY)))],
            )
            return [ERROR_BODY]
        start_response(_status_line(first[1]), first[2])
        return _Body(exchange, self._loop)

    def _start_request(self, scope: dict[str, Any], exchange: _Exchange) -> None:
        task = self._loop.create_task(exchange.run(self._app, scope))
        exchange.task = task
        self._requests.add(task)
        task.add_done_callback(self._requests.discard)

    def close(self, timeout: float = 10.0) -> None:
        """Run the lifespan shutdown and stop the loop."""
        if not self._loop.is_running():
            return
        try:
            asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(timeout)
        finally:
            self._stop_loop(timeout)

    def _stop_loop(self, timeout: float) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout)
        if not self._thread.is_alive():
            self._loop.close()


class BuiltOnFirstUse:
    """A WSGI app built by `build` on its first request, once, however many threads ask.

    The served process routes the ASGI side's paths here, so a start does not import the MCP
    SDK nor run its lifespan (about half a second and 30 MB a process, bench/bench_startup.py);
    the first request to /mcp or an OAuth path pays that instead.
    """

    def __init__(self, build: Callable[[], WsgiApp]) -> None:
        self._app = BuiltOnce(build)

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        return self._app.get()(environ, start_response)

    @property
    def built(self) -> bool:
        return self._app.built


class PathDispatcher:
    """Sends exact paths and path prefixes to the ASGI side, the rest to Flask; paths unchanged."""

    def __init__(
        self,
        wsgi_app: WsgiApp,
        asgi_side: WsgiApp,
        *,
        exact: Collection[str],
        prefixes: tuple[str, ...],
    ) -> None:
        self._wsgi = wsgi_app
        self._asgi = asgi_side
        self._exact = frozenset(exact)
        self._prefixes = prefixes

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        path: str = environ.get("PATH_INFO", "")
        if path in self._exact or (self._prefixes and path.startswith(self._prefixes)):
            return self._asgi(environ, start_response)
        return self._wsgi(environ, start_response)


def _read_body(environ: Environ) -> bytes:
    """The request body, read in the WSGI thread before the app runs (MAX_BODY at most)."""
    stream = environ.get("wsgi.input")
    if stream is None:
        return b""
    declared = ascii_whole_number(environ.get("CONTENT_LENGTH") or "", max_digits=12)
    size = MAX_BODY if declared is None else min(declared, MAX_BODY)
    return stream.read(size) if size else b""


def _status_line(status: int) -> str:
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return f"{status} Unknown"


class _Exchange:
    """One request between the WSGI thread and the loop.

    The app's messages go to `outbox` (read by the WSGI thread): ("start", status, headers),
    ("body", bytes, more) and last ("end",). `receive` gives the body once, then waits until the
    response is complete or the client is gone and answers `http.disconnect`, as ASGI servers do.
    """

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.outbox: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self.task: asyncio.Task[None] | None = None
        self._done: asyncio.Event | None = None
        self._body_given = False

    async def run(self, app: AsgiApp, scope: dict[str, Any]) -> None:
        self._done = asyncio.Event()
        try:
            await app(scope, self.receive, self.send)
        except asyncio.CancelledError:
            pass
        except Exception:
            logger.exception("the ASGI app failed on %s %s", scope["method"], scope["path"])
        finally:
            self.outbox.put(("end",))

    async def receive(self) -> Message:
        if not self._body_given:
            self._body_given = True
            return {"type": "http.request", "body": self.body, "more_body": False}
        assert self._done is not None  # noqa: S101  # set by run, for mypy
        await self._done.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in message["headers"]]
            self.outbox.put(("start", message["status"], headers))
        elif message["type"] == "http.response.body":
            more = message.get("more_body", False)
            self.outbox.put(("body", message.get("body", b""), more))
            if not more:
                self.disconnect()

    def disconnect(self) -> None:
        """The response is complete or its client is gone: `receive` answers a disconnect."""
        if self._done is not None:
            self._done.set()


class _Body:
    """The response body as the WSGI server reads it; closed early, it tells the app the client
    left and cancels the request if it has not ended within DISCONNECT_GRACE."""

    def __init__(self, exchange: _Exchange, loop: asyncio.AbstractEventLoop) -> None:
        self._exchange = exchange
        self._loop = loop
        self._complete = False

    def __iter__(self) -> Iterator[bytes]:
        while not self._complete:
            item = self._exchange.outbox.get()
            if item[0] == "end":
                self._complete = True
            elif item[0] == "body":
                self._complete = not item[2]
                if item[1]:
                    yield item[1]

    def close(self) -> None:
        if not self._complete and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._abandon)

    def _abandon(self) -> None:
        self._exchange.disconnect()
        task = self._exchange.task
        if task is not None and not task.done():
            self._loop.call_later(DISCONNECT_GRACE, task.cancel)
