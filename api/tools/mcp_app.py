"""The ASGI side of the served process: /mcp, its discovery documents and the OAuth routes.

One Starlette app holds the SDK's authorization-server routes around our provider (built-in
mode only), the sign-in pages, the protected-resource metadata at both well-known paths,
and the MCP route, flattened so `/mcp` is an exact route (notes/mcp-sdk.md §1.3c). Small
ASGI wrappers close the SDK's gaps: RFC 8414 metadata with `iss` support, `none` and CIMD;
`resource` checked at /token; 401 `invalid_client` for an unknown client at /authorize; a
rate limit on /register; `scope=` on the 403 insufficient_scope challenge; CORS on /mcp; open
CORS with the `Authorization` header on /token, /register and /revoke; a code_challenge
without its method refused; `iss` and RFC 6749's characters in every error; 405s in RFC
6749's shape.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit

from mcp.server.auth.handlers.metadata import ProtectedResourceMetadataHandler
from mcp.server.auth.provider import ProviderTokenVerifier, TokenVerifier
from mcp.server.auth.routes import build_metadata, cors_middleware, create_auth_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.auth import ProtectedResourceMetadata
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.oauth.clients import basic_client_id, presented_client_secrets, secrets_in_request
from api.oauth.config import RETRY_AFTER_SECONDS, OAuthConfig, sha256_hex
from api.oauth.jwt_verifier import JwtTokenVerifier
from api.oauth.provider import (
    BuiltinOAuthProvider,
    authorize_method_named,
    token_request_resource,
)
from api.oauth.signin import Brand, create_signin_routes
from api.tools.client_cors import ClientCors
from api.tools.mcp_paths import PRM_ROOT
from api.tools.mcp_tools import create_mcp_server
from backends.ports import Mailer, OAuthStore, UnavailableError
from schemas.catalog import Catalog

logger = logging.getLogger(__name__)
SCOPES = ("openid", "email", "profile")
GRANT_TYPES = ("authorization_code", "refresh_token")
FORM_LIMIT = 64 * 1024  # bytes of a POST to /authorize, /token, /revoke or /register
INVALID_REQUEST = -32600  # JSON-RPC 2.0
# What RFC 6749 §4.1.2.1 does not allow in an error_description.
_DESCRIPTION_UNSAFE = re.compile(r"[^\x20\x21\x23-\x5b\x5d-\x7e]")
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
) -> McpAsgiApp:
    """Built-in authorization server unless `external_issuer` is set; then JWTs from the IdP."""
    routes: list[BaseRoute] = []
    verifier: TokenVerifier
    if config.external_issuer:
        issuer = config.external_issuer
        verifier = JwtTokenVerifier(
            issuer=issuer,
            resource=config.resource,
            audience=config.audience,
            jwks_url=config.jwks_url,
        )
    else:
        oauth = config.oauth or OAuthConfig(issuer=config.base_url, resource=config.resource)
        issuer = oauth.issuer
        provider = BuiltinOAuthProvider(oauth_store, oauth, clock=clock)
        verifier = ProviderTokenVerifier(provider)  # type: ignore[arg-type]  # our provider is structurally one
        routes += _authorization_server_routes(provider)
        brand = Brand(catalog.company.name, catalog.brand.palette, catalog.brand.font_stack)
        routes += create_signin_routes(provider, mailer, brand)
    auth = AuthSettings(
        issuer_url=issuer,  # a str keeps the issuer exact (no trailing slash)
        resource_server_url=config.resource,
        required_scopes=list(SCOPES),
        validate_token_resource=True,
        service_documentation_url=f"{config.base_url}/developers",
    )
    mcp = create_mcp_server(
        catalog, token_verifier=verifier, auth=auth, website_url=config.base_url
    )
    # The SDK logs every stateless request at INFO ("Terminating session: None").
    logging.getLogger("mcp.server.streamable_http").setLevel(logging.WARNING)
    mcp_app = mcp.streamable_http_app(
        stateless_http=True, json_response=True, transport_security=_transport_security(config)
    )
    prm = _prm_endpoint(config.resource, issuer, catalog.company.name)
    for route in mcp_app.routes:
        if isinstance(route, Route) and route.path == "/mcp":
            route = Route("/mcp", endpoint=_mcp_cors(_JsonRefusals(_ScopeChallenge(route.app))))
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
            Middleware(_StoreOutage),
            Middleware(_JsonRefusals, statuses=range(405, 406), shape=_oauth_method_refusal),
            *mcp_app.user_middleware,
        ],
        lifespan=lifespan,
    )
    paths = frozenset(r.path for r in routes if isinstance(r, Route))
    return McpAsgiApp(app=app, paths=paths, mcp=mcp)


def _authorization_server_routes(provider: BuiltinOAuthProvider) -> list[BaseRoute]:
    oauth = provider.config
    registration = ClientRegistrationOptions(
        enabled=True, valid_scopes=list(oauth.scopes), default_scopes=list(oauth.scopes)
    )
    revocation = RevocationOptions(enabled=True)
    sdk_routes = create_auth_routes(
        provider,  # type: ignore[arg-type]  # structurally an OAuthAuthorizationServerProvider
        issuer_url=AnyHttpUrl(oauth.issuer),  # only read for the metadata, replaced below
        client_registration_options=registration,
        revocation_options=revocation,
    )
    metadata = build_metadata(AnyHttpUrl(oauth.issuer), None, registration, revocation).model_dump(
        mode="json", exclude_none=True
    )
    metadata.update(
        issuer=oauth.issuer,
        token_endpoint_auth_methods_supported=["none", "client_secret_post", "client_secret_basic"],
        revocation_endpoint_auth_methods_supported=[
            "none",
            "client_secret_post",
            "client_secret_basic",
        ],
        authorization_response_iss_parameter_supported=True,
        client_id_metadata_document_supported=True,
    )

    async def metadata_endpoint(_request: Request) -> JSONResponse:
        return JSONResponse(metadata, headers={"Cache-Control": "public, max-age=3600"})

    wrapped: list[BaseRoute] = []
    for route in sdk_routes:
        methods = list(route.methods or ())
        if route.path == "/.well-known/oauth-authorization-server":
            route = Route(
                route.path, cors_middleware(metadata_endpoint, ["GET", "OPTIONS"]), methods=methods
            )
        elif route.path == "/authorize":
            route = Route(
                route.path,
                _BodyLimit(_AuthorizeRequest(_JsonRefusalText(route.app), provider)),
                methods=methods,
            )
        elif route.path == "/token":
            route = Route(
                route.path, ClientCors(_FormRequest(_JsonRefusalText(route.app))), methods=methods
            )
        elif route.path == "/revoke":
            revoke = _JsonRefusalText(route.app, revoke=True)
            route = Route(
                route.path, ClientCors(_FormRequest(revoke, revoke=True)), methods=methods
            )
        elif route.path == "/register":
            registering = _RegistrationLimit(_JsonRefusalText(route.app), provider)
            route = Route(route.path, ClientCors(_BodyLimit(registering)), methods=methods)
        wrapped.append(route)
    return wrapped


def error_description(text: str) -> str:
    """`text` as RFC 6749 §4.1.2.1 allows an error_description: printable ASCII without `"`
    or `\\`; lines joined with `; `."""
    lines = (line.strip() for line in text.splitlines())
    joined = "; ".join(line for line in lines if line).replace('"', "'").replace("\\", "/")
    return _DESCRIPTION_UNSAFE.sub("", joined)


def _prm_endpoint(resource: str, issuer: str, name: str) -> ASGIApp:
    """RFC 9728 metadata, the same at both well-known paths; built from strings so that
    `authorization_servers` keeps the issuer exact (no trailing slash)."""
    metadata = ProtectedResourceMetadata.model_validate(
        {
            "resource": resource,
            "authorization_servers": [issuer],
            "scopes_supported": list(SCOPES),
            "resource_name": f"{name} MCP tools",
        }
    )
    handler = ProtectedResourceMetadataHandler(metadata)
    return cors_middleware(handler.handle, ["GET", "OPTIONS"])


class _StoreOutage:
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
                message = {
                    **message,
                    "headers": [
                        (
                            k,
                            v + self.scope_param
                            if k == b"www-authenticate" and b"insufficient_scope" in v
                            else v,
                        )
                        for k, v in message["headers"]
                    ],
                }
            await send(message)

        await self.app(scope, receive, send_with_scope)


def _json_rpc_refusal(text: str, _scope: Scope, _headers: Headers) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": text}}


def _oauth_method_refusal(_text: str, scope: Scope, headers: Headers) -> dict[str, Any]:
    allowed = headers.get("allow", "")
    return {
        "error": "invalid_request",
        "error_description": f"{scope['method']} is not allowed on {scope['path']}; "
        f"allowed: {allowed}",
    }


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


class _AuthorizeRequest:
    """/authorize, by GET or by POST: an unknown client_id gets 401 invalid_client, so the
    client registers again (the SDK answers a POST 400 invalid_request); a code_challenge
    sent without code_challenge_method (which RFC 7636 §4.3 reads as `plain`, and the SDK as
    S256) is marked for the provider, which refuses it back to the validated redirect URI;
    an error the SDK sends back to the client carries `iss` (RFC 9207 §2, which the metadata
    advertises; the SDK leaves it out) and an error_description in the characters RFC 6749
    allows. Mounted inside _BodyLimit, so a POST's body is at most FORM_LIMIT bytes here."""

    def __init__(self, app: ASGIApp, provider: BuiltinOAuthProvider) -> None:
        self.app = app
        self.provider = provider

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        method = scope.get("method")
        if method == "POST":
            body = await read_body(receive, FORM_LIMIT) or b""
            receive = replayed(body, receive)
            query = parse_qs(body.decode("latin-1"))
        elif method == "GET":
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        else:
            query = {}
        client_id = (query.get("client_id") or [""])[0]
        if client_id and await self.provider.get_client(client_id) is None:
            await oauth_error(
                scope, receive, send, 401, "invalid_client", "unknown client_id; register again"
            )
            return
        named = "code_challenge_method" in query or "code_challenge" not in query
        marked = authorize_method_named.set(named)
        try:
            await self.app(scope, receive, self._issuer_on_errors(send))
        finally:
            authorize_method_named.reset(marked)

    def _issuer_on_errors(self, send: Send) -> Send:
        issuer = self.provider.config.issuer

        async def with_issuer(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 302:
                headers = MutableHeaders(scope=message)
                target = urlsplit(headers.get("location", ""))
                query = parse_qsl(target.query, keep_blank_values=True)
                names = {name for name, _ in query}
                if "error" in names:
                    # RFC 6749 §4.1.2.1: printable ASCII, no `"` or `\` (the SDK joins its
                    # parser's messages with newlines)
                    query = [
                        (name, error_description(value) if name == "error_description" else value)
                        for name, value in query
                    ]
                    if "iss" not in names:
                        query.append(("iss", issuer))
                    headers["location"] = target._replace(query=urlencode(query)).geturl()
            await send(message)

        return with_issuer


async def read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole request body, or None once it passes `limit` bytes."""
    chunks: list[bytes] = []
    size, more = 0, True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        more = message.get("more_body", False)
        if size > limit:
            return None
    return b"".join(chunks)


def replayed(body: bytes, receive: Receive) -> Receive:
    """A receive that hands the handler `body` once, then the connection's own messages."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


async def oauth_error(
    scope: Scope, receive: Receive, send: Send, status: int, error: str, description: str
) -> None:
    """An RFC 6749 §5.2 error answer."""
    body = {"error": error, "error_description": description}
    await JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})(
        scope, receive, send
    )


async def too_large(scope: Scope, receive: Receive, send: Send, limit: int) -> None:
    await oauth_error(
        scope, receive, send, 413, "invalid_request", f"the request body is over {limit} bytes"
    )


class _BodyLimit:
    """A POST body over `limit` bytes gets 413 invalid_request before the handler reads it:
    the SDK's form parser answers a field past 1 MiB with 400 server_error (and logs an
    error), and a registration that large would not fit a Firestore document."""

    def __init__(self, app: ASGIApp, *, limit: int = FORM_LIMIT) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        body = await read_body(receive, self.limit)
        if body is None:
            await too_large(scope, receive, send, self.limit)
            return
        await self.app(scope, replayed(body, receive), send)


class _FormRequest:
    """Buffers a POSTed form, reads and amends it as below, then replays it to the handler.

    /token: the SDK handler drops `resource`, so it is handed to the provider here; a grant
    type it does not serve gets `unsupported_grant_type` (RFC 6749 §5.2), where the SDK
    answered invalid_request with its parser's words.
    /token and /revoke: the client secrets sent, for the provider's hash check; a client
    that authenticates with HTTP Basic alone (RFC 6749 §2.3.1) has its `client_id` added to
    the form, which the SDK reads it from.
    /revoke: the SDK requires a `client_secret` field even from public clients (RFC 7009
    sends none), so an absent one is added empty; its 401 says `unauthorized_client`, which
    RFC 7009 §2.2.1 (by RFC 6749 §5.2) and /token call `invalid_client` (_JsonRefusalText
    renames it).
    """

    def __init__(self, app: ASGIApp, *, revoke: bool = False, limit: int = FORM_LIMIT) -> None:
        self.app = app
        self.revoke = revoke
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        body = await read_body(receive, self.limit)
        if body is None:
            await too_large(scope, receive, send, self.limit)
            return
        form = parse_qs(body.decode("latin-1"))
        if not self.revoke:
            grant = (form.get("grant_type") or [""])[0]
            if not grant:
                await oauth_error(
                    scope, receive, send, 400, "invalid_request", "grant_type is required"
                )
                return
            if grant not in GRANT_TYPES:
                await oauth_error(
                    scope,
                    receive,
                    send,
                    400,
                    "unsupported_grant_type",
                    f"grant_type must be one of: {', '.join(GRANT_TYPES)}",
                )
                return
        if self.revoke and "client_secret" not in form:
            body += b"&client_secret=" if body else b"client_secret="
        authorization = Headers(scope=scope).get("authorization", "")
        basic_id = basic_client_id(authorization)
        if basic_id and not form.get("client_id"):
            body += (b"&" if body else b"") + urlencode({"client_id": basic_id}).encode()
        resources = form.get("resource") or []
        token = token_request_resource.set(resources[0] if resources else None)
        sent = presented_client_secrets.set(secrets_in_request(form, authorization))
        try:
            await self.app(scope, replayed(body, receive), send)
        finally:
            token_request_resource.reset(token)
            presented_client_secrets.reset(sent)


class _JsonRefusalText:
    """A 4xx JSON answer of an OAuth endpoint with its error_description in the characters
    RFC 6749 §5.2 allows (the SDK joins its parser's messages with newlines); with `revoke`,
    a 401 `unauthorized_client` renamed `invalid_client` (client authentication failed,
    RFC 6749 §5.2, as /token says)."""

    def __init__(self, app: ASGIApp, *, revoke: bool = False) -> None:
        self.app = app
        self.revoke = revoke

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        held: Message | None = None
        chunks: list[bytes] = []

        async def rewritten(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start" and 400 <= message["status"] < 500:
                held = message
                return
            if held is None or message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            body = self._body(b"".join(chunks), status=held["status"])
            headers = [(k, v) for k, v in held["headers"] if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
            await send({**held, "headers": headers})
            held = None
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, rewritten)

    def _body(self, body: bytes, *, status: int) -> bytes:
        try:
            doc = json.loads(body)
        except ValueError:
            return body
        if not isinstance(doc, dict):
            return body
        changed = dict(doc)
        if isinstance(doc.get("error_description"), str):
            changed["error_description"] = error_description(doc["error_description"])
        if self.revoke and status == 401 and doc.get("error") == "unauthorized_client":
            changed["error"] = "invalid_client"
        return body if changed == doc else json.dumps(changed).encode()


class _RegistrationLimit:
    """Registrations per client address per hour; DCR stays open and cheap below that."""

    def __init__(self, app: ASGIApp, provider: BuiltinOAuthProvider) -> None:
        self.app = app
        self.provider = provider

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") == "POST":
            now = self.provider.clock()
            window = now.replace(minute=0, second=0, microsecond=0)
            client: Any = scope.get("client") or ("unknown", 0)
            bucket = f"register:{sha256_hex(str(client[0]))[:16]}"
            hits = await self.provider.io(
                self.provider.store.count_hit, bucket, window_start=window
            )
            if hits > self.provider.config.registrations_per_hour:
                retry = int((window + timedelta(hours=1) - now).total_seconds()) + 1
                body = {
                    "error": "rate_limited",
                    "error_description": "too many registrations; retry later",
                }
                headers = {"Retry-After": str(retry), "Cache-Control": "no-store"}
                await JSONResponse(body, status_code=429, headers=headers)(scope, receive, send)
                return
        await self.app(scope, receive, send)
