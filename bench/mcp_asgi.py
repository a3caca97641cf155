"""The ASGI side alone (MCP app, OAuth routes) under uvicorn, to compare with the bridge.

Bench only. notes/serving.md's fallback runs the MCP app as its own service; this measures
that shape on one worker, so the report can tell the bridge's cost from the SDK's.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse

from api.tools.mcp_app import create_mcp_asgi_app
from frontdoor.mcp_wiring import mcp_config
from frontdoor.settings import Settings
from frontdoor.wiring import build_backends


def create_asgi_app() -> Starlette:
    """`uvicorn --factory bench.mcp_asgi:create_asgi_app` (its lifespan runs under uvicorn)."""
    settings = Settings()
    backends = build_backends(settings)
    app = create_mcp_asgi_app(
        mcp_config(settings),
        catalog=backends.catalog,
        oauth_store=backends.oauth,
        mailer=backends.mailer,
        clock=backends.clock,
    ).app
    app.add_route("/healthz", _healthz)  # what bench's Served polls for readiness
    return app


async def _healthz(_request: Request) -> PlainTextResponse:
    return PlainTextResponse("ok")
