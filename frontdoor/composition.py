"""One WSGI process, two apps: Flask natively, and an ASGI app bridged in at its own paths.

notes/serving.md: Flask inside an ASGI server runs at about a quarter of its native WSGI
speed, so the WSGI side leads and only the ASGI paths pay the a2wsgi bridge. The bridge runs
no ASGI lifespan, so LifespanBridge drives the lifespan protocol itself, on the event loop
that a2wsgi then uses for every request.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, MutableMapping
from typing import Any

from a2wsgi import ASGIMiddleware

Environ = dict[str, Any]
StartResponse = Callable[..., Any]
WsgiApp = Callable[[Environ, StartResponse], Iterable[bytes]]
AsgiApp = Callable[..., Any]
Message = MutableMapping[str, Any]


class LifespanError(RuntimeError):
    """The ASGI app refused to start."""


class LifespanBridge:
    """Runs an ASGI app's lifespan on a private event loop and serves it as WSGI on that loop."""

    def __init__(self, app: AsgiApp, *, timeout: float = 30.0) -> None:
        self._app = app
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="asgi-bridge", daemon=True
        )
        self._thread.start()
        self._inbox: asyncio.Queue[Message] | None = None
        self._outbox: asyncio.Queue[Message] | None = None
        self._task: asyncio.Future[None] | None = None
        try:
            asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout)
        except BaseException:
            self._stop_loop(timeout)
            raise
        # a2wsgi types environ as its own TypedDict; servers hand over a plain dict.
        self.wsgi_app: WsgiApp = ASGIMiddleware(app, loop=self._loop)  # type: ignore[assignment]

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
        await self._inbox.put({"type": "lifespan.shutdown"})
        await self._outbox.get()

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
            body = self._asgi(environ, start_response)
            # A list means start_response already ran (PEP 3333), and granian sends a list
            # in one write instead of iterating it (the /mcp fast path answers with one).
            return body if isinstance(body, list) else _Primed(body)
        return self._wsgi(environ, start_response)


class _Primed:
    """A WSGI body advanced to its first chunk, so start_response has run before we return.

    a2wsgi calls start_response from inside its body generator, but granian takes the status
    and headers as soon as the app returns: unprimed, every bridged response left as a bare 200
    with no headers (measured: /mcp's 401 and its WWW-Authenticate were lost).
    """

    def __init__(self, body: Iterable[bytes]) -> None:
        self._body = body
        self._iterator = iter(body)
        self._first: list[bytes] = []
        for chunk in self._iterator:
            self._first.append(chunk)
            break

    def __iter__(self) -> Iterator[bytes]:
        yield from self._first
        yield from self._iterator

    def close(self) -> None:
        close = getattr(self._body, "close", None)
        if close is not None:
            close()
