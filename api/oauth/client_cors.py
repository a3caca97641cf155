"""CORS for the authorization server's client endpoints (/token, /register, /revoke), which
browser-based MCP clients call from their own origin."""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ClientCors", "open_cors"]


class ClientCors:
    """CORS preflights of /token, /register and /revoke answered by a policy that allows the
    `Authorization` header (client_secret_basic, RFC 6749 §2.3.1, sent by browser-based MCP
    clients); the SDK's own policy there allows only `MCP-Protocol-Version` beyond the
    safelisted headers. Every other request goes to `app`, whose SDK route adds the open
    `Access-Control-Allow-Origin`; the refusals our wrappers send before it (a missing or
    unserved grant type, a body over the limit, too many registrations) get it here."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.preflight = CORSMiddleware(
            app,
            allow_origins=["*"],
            allow_methods=["POST", "OPTIONS"],
            allow_headers=["Authorization", "MCP-Protocol-Version"],
            max_age=86400,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        if (
            scope["method"] == "OPTIONS"
            and "origin" in headers
            and "access-control-request-method" in headers
        ):
            await self.preflight(scope, receive, send)
        elif "origin" in headers:
            await self.app(scope, receive, open_cors(send))
        else:
            await self.app(scope, receive, send)


def open_cors(send: Send) -> Send:
    """A send that opens an answer that has no `Access-Control-Allow-Origin` to any origin,
    its `Retry-After` (a 429's or 503's) readable too."""

    async def with_origin(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            if "access-control-allow-origin" not in headers:
                headers["Access-Control-Allow-Origin"] = "*"
            if "access-control-expose-headers" not in headers:
                headers["Access-Control-Expose-Headers"] = "Retry-After"
        await send(message)

    return with_origin
