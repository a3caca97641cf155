"""A throwaway ASGI app at /mcp that answers only once its lifespan has started.

It proves the composition until the MCP issue bridges the real server in at the same place.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

PATHS = frozenset({"/mcp"})


def create_probe_app() -> Starlette:
    """Starlette app whose /mcp answers 200 after lifespan startup and 503 before it."""
    state = {"started": False}

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        state["started"] = True
        yield
        state["started"] = False

    async def probe(_request: Request) -> JSONResponse:
        if not state["started"]:
            return JSONResponse({"ok": False, "error": "lifespan_not_started"}, status_code=503)
        return JSONResponse({"ok": True, "lifespan": "started", "served_by": "asgi"})

    return Starlette(routes=[Route("/mcp", probe, methods=["GET", "POST"])], lifespan=lifespan)
