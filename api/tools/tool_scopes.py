"""Tools behind scopes: a caller sees and calls only the tools its token's scopes allow.

Two places, one table (`TOOL_SCOPES` in api/tools/staff_tools.py):
- `ToolScopes`, the SDK's server middleware, is the rule: `tools/list` leaves out the tools the
  token may not call, and a `tools/call` of one answers an error result naming
  `insufficient_scope` and the scope it needs, in every protocol era;
- `ToolScopeChallenge`, on the /mcp route, answers such a call with HTTP 403 and
  `WWW-Authenticate: Bearer error="insufficient_scope", scope="..."` (RFC 6750 section 3.1)
  before the body is read, from the `Mcp-Method` and `Mcp-Name` headers the 2026-07-28 era
  sends (the SDK checks they match the body). That is what the SDK client's step-up
  re-authorization acts on. The scope asked for is the token's own plus the one needed, so a
  step-up never drops a toolset the person already granted.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.inbound import MCP_METHOD_HEADER, MCP_NAME_HEADER, decode_header_value
from mcp.types import CallToolResult, ListToolsResult, TextContent
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

logger = logging.getLogger(__name__)


def missing_scope_text(tool: str, needed: str) -> str:
    return (
        f"insufficient_scope: {tool} needs the {needed} scope, which this token was not "
        "granted; the person must connect again and allow that toolset (staff only)"
    )


class ToolScopes:
    """Server middleware: hide and refuse the tools a token's scopes do not allow."""

    def __init__(self, tool_scopes: Mapping[str, str]) -> None:
        self.tool_scopes = tool_scopes

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        token = get_access_token()
        held = frozenset(token.scopes) if token is not None else frozenset()
        if ctx.method == "tools/list":
            return self._allowed_only(await call_next(ctx), held)
        if ctx.method == "tools/call" and isinstance(ctx.params, Mapping):
            name = str(ctx.params.get("name", ""))
            needed = self.tool_scopes.get(name)
            if needed is not None:
                if needed not in held:
                    text = missing_scope_text(name, needed)
                    return CallToolResult(
                        is_error=True, content=[TextContent(type="text", text=text)]
                    )
                # Staff act on the company's data through their agents: say who did what.
                logger.info(
                    "staff tool %s called",
                    name,
                    extra={"actor": token.subject if token else None, "tool": name},
                )
        return await call_next(ctx)

    def _allowed_only(self, result: HandlerResult, held: frozenset[str]) -> HandlerResult:
        """The tools/list result without the tools `held` does not allow (the runner hands the
        result on as a dict; a model is filtered the same way)."""

        def allowed(name: object) -> bool:
            return self.tool_scopes.get(str(name), "") in {"", *held}

        if isinstance(result, ListToolsResult):
            return result.model_copy(update={"tools": [t for t in result.tools if allowed(t.name)]})
        if isinstance(result, dict) and isinstance(result.get("tools"), list):
            tools = [t for t in result["tools"] if isinstance(t, dict) and allowed(t.get("name"))]
            return {**result, "tools": tools}
        return result


class ToolScopeChallenge:
    """The /mcp route's 403 insufficient_scope for a tool call named in the request headers."""

    def __init__(
        self, app: ASGIApp, tool_scopes: Mapping[str, str], *, resource_metadata_url: str
    ) -> None:
        self.app = app
        self.tool_scopes = tool_scopes
        self.resource_metadata_url = resource_metadata_url

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user")
        if scope["type"] == "http" and isinstance(user, AuthenticatedUser):
            headers = Headers(scope=scope)
            name = decode_header_value(headers.get(MCP_NAME_HEADER)) or ""
            needed = self.tool_scopes.get(name)
            if headers.get(MCP_METHOD_HEADER) == "tools/call" and needed is not None:
                held = list(user.access_token.scopes)
                if needed not in held:
                    asked = " ".join(dict.fromkeys([*held, needed]))
                    challenge = (
                        f'Bearer error="insufficient_scope", error_description="{name} needs '
                        f'{needed}", scope="{asked}", resource_metadata='
                        f'"{self.resource_metadata_url}"'
                    )
                    body = {
                        "error": "insufficient_scope",
                        "error_description": missing_scope_text(name, needed),
                    }
                    response = JSONResponse(body, 403, headers={"WWW-Authenticate": challenge})
                    await response(scope, receive, send)
                    return
        await self.app(scope, receive, send)
