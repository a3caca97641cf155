"""What the whole ASGI side (api/tools/mcp_app.py) answers in RFC 6749's shape: an outage of
the OAuth store as 503 `temporarily_unavailable`, and a method a route does not take."""

from __future__ import annotations

import logging
from typing import Any

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.oauth.config import RETRY_AFTER_SECONDS
from backends.ports import UnavailableError

logger = logging.getLogger(__name__)


class StoreOutage:
    """An outage of the OAuth store (the port's UnavailableError) on any route answers 503
    `temporarily_unavailable` with Retry-After, RFC 6749's shape, instead of a 500: the
    OAuth endpoints, the sign-in pages and /mcp, whose token check reads the store. An
    agent backs off and retries; it must not take the answer for a bad token or client."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except UnavailableError as err:
            if started:
                raise
            logger.warning("oauth store unavailable on %s: %s", scope.get("path"), err)
            body = {
                "error": "temporarily_unavailable",
                "error_description": "the authorization store is unavailable; retry shortly",
            }
            headers = {"Retry-After": RETRY_AFTER_SECONDS, "Cache-Control": "no-store"}
            if "origin" in Headers(scope=scope):  # every route here is open to any origin
                headers["Access-Control-Allow-Origin"] = "*"
                headers["Access-Control-Expose-Headers"] = "Retry-After"
            await JSONResponse(body, status_code=503, headers=headers)(scope, receive, send)


def oauth_method_refusal(_text: str, scope: Scope, headers: Headers) -> dict[str, Any]:
    allowed = headers.get("allow", "")
    return {
        "error": "invalid_request",
        "error_description": f"{scope['method']} is not allowed on {scope['path']}; "
        f"allowed: {allowed}",
    }
