"""The ASGI side of the served process: /mcp, its discovery documents and the OAuth routes.

One Starlette app holds the authorization server's endpoints over our provider (built-in
mode only; api/oauth/routes.py), the sign-in pages, the protected-resource metadata at both
well-known paths, and the MCP route, flattened so `/mcp` is an exact route
(notes/mcp-sdk.md §1.3c). The wrappers here close the SDK's gaps on /mcp: `scope=` on the
403 insufficient_scope challenge, CORS, and its plain-text refusals as JSON-RPC errors; across
the app, an OAuth store outage is a 503 and a 405 has RFC 6749's shape.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from mcp.server.auth.handlers.metadata import ProtectedResourceMetadataHandler
from mcp.server.auth.provider import ProviderTokenVerifier, TokenVerifier
from mcp.server.auth.routes import build_resource_metadata_url, cors_middleware
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.auth import ProtectedResourceMetadata
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.oauth.address_limits import AddressLimit
from api.oauth.config import OAuthConfig
from api.oauth.endpoint_guards import StoreOutage, oauth_method_refusal
from api.oauth.jwt_verifier import JwtTokenVerifier
from api.oauth.provider import BuiltinOAuthProvider
from api.oauth.routes import authorization_server_routes
from api.oauth.signin import Brand, create_signin_routes
from api.tools.mcp_paths import PRM_ROOT
from api.tools.mcp_tools import create_mcp_server
from api.tools.page_tools import PagePorts
from api.tools.staff_tools import TOOL_SCOPES, StaffPorts
from api.tools.tool_scopes import ToolScopeChallenge
from backends.ports import Mailer, OAuthStore, SignalStore
from domain.staff import PUBLIC_SCOPES, STAFF_SCOPES, StaffDirectory
from schemas.catalog import Catalog

SCOPES = PUBLIC_SCOPES
INVALID_REQUEST = -32600  # JSON-RPC 2.0
LOOPBACK_HOSTS = ("127.0.0.1:*", "localhost:*", "[::1]:*")
MCP_ALLOW_HEADERS = [
    "Authorization",
    "Content-Type",
    "Accept",
    "Last-Event-ID",
    "Mcp-Session-Id",
    "MCP-Protocol-Version",
    "Mcp-Method",
    "Mcp-Name",
]


@dataclass(frozen=True)
class McpConfig:
    """What the ASGI side needs of the deployment (frontdoor builds it from Settings)."""

    base_url: str
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()  # browser origins besides our own (MCP_ALLOWED_ORIGINS)
    local: bool = True
    oauth: OAuthConfig | None = None
    external_issuer: str | None = None
    jwks_url: str | None = None
    audience: str | None = None
    staff: StaffDirectory = field(default_factory=StaffDirectory)

    @property
    def resource(self) -> str:
        return f"{self.base_url}/mcp"


@dataclass(frozen=True)
class McpAsgiApp:
    """The Starlette app, the exact paths it serves and the MCP server inside it."""

    app: Starlette
    paths: frozenset[str]
    mcp: MCPServer


def create_mcp_asgi_app(
    config: McpConfig,
    *,
    catalog: Catalog,
    oauth_store: OAuthStore,
    mailer: Mailer,
    clock: Callable[[], datetime],
    signin_limit: AddressLimit | None = None,
    signals: SignalStore | None = None,
    pages: PagePorts | None = None,
) -> McpAsgiApp:
    """Built-in authorization server unless `external_issuer` is set; then JWTs from the IdP.
    `signin_limit` counts requests to /authorize and the sign-in pages per client address;
    `signals` and `pages` serve the staff toolsets."""
    routes: list[BaseRoute] = []
    verifier: TokenVerifier
    if config.external_issuer:
        issuer = config.external_issuer
        verifier = JwtTokenVerifier(
            issuer=issuer,
            resource=config.resource,
            audience=config.audience,
            jwks_url=config.jwks_url,
            staff=config.staff,
        )
    else:
        oauth = config.oauth or OAuthConfig(
            issuer=config.base_url, resource=config.resource, staff=config.staff
        )
        issuer = oauth.issuer
        provider = BuiltinOAuthProvider(oauth_store, oauth, clock=clock)
        verifier = ProviderTokenVerifier(provider)  # type: ignore[arg-type]  # our provider is structurally one
        routes += authorization_server_routes(provider, request_limit=signin_limit)
        brand = Brand(catalog.company.name, catalog.brand.palette, catalog.brand.font_stack)
        routes += create_signin_routes(provider, mailer, brand, request_limit=signin_limit)
    auth = AuthSettings(
        issuer_url=issuer,  # a str keeps the issuer exact (no trailing slash)
        resource_server_url=config.resource,
        required_scopes=list(SCOPES),
        validate_token_resource=True,
        service_documentation_url=f"{config.base_url}/developers",
    )
    staff = StaffPorts(signals=signals, clock=clock, pages=pages) if signals is not None else None
    mcp = create_mcp_server(
        catalog, token_verifier=verifier, auth=auth, website_url=config.base_url, staff=staff
    )
    # The SDK logs every stateless request at INFO ("Terminating session: None").
    logging.getLogger("mcp.server.streamable_http").setLevel(logging.WARNING)
    mcp_app = mcp.streamable_http_app(
        stateless_http=True, json_response=True, transport_security=_transport_security(config)
    )
    prm = _prm_endpoint(config.resource, issuer, catalog.company.name)
    for route in mcp_app.routes:
        if isinstance(route, Route) and route.path == "/mcp":
            gated = ToolScopeChallenge(
                route.app,
                TOOL_SCOPES,
                resource_metadata_url=str(build_resource_metadata_url(AnyHttpUrl(config.resource))),
            )
            route = Route("/mcp", endpoint=_mcp_cors(_JsonRefusals(_ScopeChallenge(gated))))
        elif isinstance(route, Route) and route.path.startswith(PRM_ROOT):
            route = Route(route.path, endpoint=prm, methods=["GET", "OPTIONS"])
        routes.append(route)
    routes.append(Route(PRM_ROOT, endpoint=prm, methods=["GET", "OPTIONS"]))

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        async with mcp.session_manager.run():
            yield

    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(StoreOutage),
            Middleware(_JsonRefusals, statuses=range(405, 406), shape=oauth_method_refusal),
            *mcp_app.user_middleware,
        ],
        lifespan=lifespan,
    )
    paths = frozenset(r.path for r in routes if isinstance(r, Route))
    return McpAsgiApp(app=app, paths=paths, mcp=mcp)


def _prm_endpoint(resource: str, issuer: str, name: str) -> ASGIApp:
    """RFC 9728 metadata, the same at both well-known paths; built from strings so that
    `authorization_servers` keeps the issuer exact (no trailing slash)."""
    metadata = ProtectedResourceMetadata.model_validate(
        {
            "resource": resource,
            "authorization_servers": [issuer],
            "scopes_supported": [*SCOPES, *STAFF_SCOPES],
            "resource_name": f"{name} MCP tools",
        }
    )
    handler = ProtectedResourceMetadataHandler(metadata)
    return cors_middleware(handler.handle, ["GET", "OPTIONS"])


def _transport_security(config: McpConfig) -> TransportSecuritySettings:
    """Hosts: the base URL's, the configured ones, and loopback in local runs (DNS rebinding)."""
    base = urlsplit(config.base_url)
    hosts: list[str] = [base.netloc]
    origins: list[str] = [f"{base.scheme}://{base.netloc}"]
    for host in config.allowed_hosts:
        hosts.append(host)
        origins.append(f"https://{host}")
    hosts += [f"{h}:*" for h in list(hosts) if ":" not in h.rsplit("]", 1)[-1]]
    origins += config.allowed_origins
    if config.local:
        hosts += LOOPBACK_HOSTS
        origins += [f"http://{h}" for h in LOOPBACK_HOSTS]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def _mcp_cors(app: ASGIApp) -> ASGIApp:
    return CORSMiddleware(
        app,
        allow_origins=["*"],
        allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
        allow_headers=MCP_ALLOW_HEADERS,
        expose_headers=["Mcp-Session-Id", "WWW-Authenticate", "MCP-Protocol-Version"],
        max_age=86400,
    )


class _ScopeChallenge:
    """Adds `scope="..."` to the SDK's 403 insufficient_scope challenge (MCP authorization spec)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.scope_param = f', scope="{" ".join(SCOPES)}"'.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_scope(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 403:
                # The SDK's challenge for the sign-in scopes lacks `scope=`; a tool's own
                # challenge (api/tools/tool_scopes.py) already names it.
                message = {
                    **message,
                    "headers": [
                        (
                            k,
                            v + self.scope_param
                            if k == b"www-authenticate"
                            and b"insufficient_scope" in v
                            and b' scope="' not in v
                            else v,
                        )
                        for k, v in message["headers"]
                    ],
                }
            await send(message)

        await self.app(scope, receive, send_with_scope)


def _json_rpc_refusal(text: str, _scope: Scope, _headers: Headers) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": text}}


class _JsonRefusals:
    """Plain-text refusals as JSON, status and other headers unchanged: by default the SDK's
    on /mcp (its Host, Origin, Content-Type and body-size checks) as the JSON-RPC error body
    it sends for its other refusals; with `statuses` and `shape`, others (the 405 Starlette
    answers for a method a route does not take, in RFC 6749's shape)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        statuses: range = range(400, 600),
        shape: Callable[[str, Scope, Headers], dict[str, Any]] = _json_rpc_refusal,
    ) -> None:
        self.app = app
        self.statuses = statuses
        self.shape = shape

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        held: Message | None = None
        text: list[bytes] = []

        async def send_json(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start":
                content_type = Headers(raw=message["headers"]).get("content-type", "")
                if message["status"] in self.statuses and not content_type.startswith(
                    "application/json"
                ):
                    held = message
                    return
            elif held is not None and message["type"] == "http.response.body":
                text.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                document = self.shape(
                    b"".join(text).decode("utf-8", "replace"), scope, Headers(raw=held["headers"])
                )
                body = json.dumps(document).encode()
                kept = [
                    (k, v)
                    for k, v in held["headers"]
                    if k.lower() not in (b"content-type", b"content-length")
                ]
                headers = [
                    *kept,
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ]
                await send({**held, "headers": headers})
                message = {"type": "http.response.body", "body": body}
            await send(message)

        await self.app(scope, receive, send_json)
