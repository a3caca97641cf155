"""The built-in authorization server's routes: RFC 8414 metadata that says what we serve, and
our plain endpoints over the provider (/authorize, /token, /revoke, /register)."""

from __future__ import annotations

from typing import Any

from mcp.server.auth.routes import build_metadata, cors_middleware
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from pydantic import AnyHttpUrl
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from api.oauth.address_limits import AddressLimit, AddressRateLimit
from api.oauth.authorize_endpoint import AuthorizeEndpoint
from api.oauth.config import OAuthConfig
from api.oauth.provider import BuiltinOAuthProvider
from api.oauth.register_endpoint import RegisterEndpoint
from api.oauth.token_endpoints import TokenEndpoints

CLIENT_AUTH_METHODS = ["none", "client_secret_post", "client_secret_basic"]
# Browser-based MCP clients call /token, /register and /revoke from their own origin, with
# the `Authorization` header when they authenticate with HTTP Basic (RFC 6749 §2.3.1); every
# answer, a 429's or 503's Retry-After included, is readable there.
CLIENT_CORS = Middleware(
    CORSMiddleware,
    allow_origins=["*"],
    allow_methods=["POST", "OPTIONS"],
    allow_headers=["Authorization", "MCP-Protocol-Version"],
    expose_headers=["Retry-After"],
    max_age=86400,
)


def authorization_server_routes(
    provider: BuiltinOAuthProvider, *, request_limit: AddressLimit | None = None
) -> list[BaseRoute]:
    """The routes; with `request_limit`, /authorize counted per client address."""
    metadata = server_metadata(provider.config)

    async def metadata_endpoint(_request: Request) -> JSONResponse:
        return JSONResponse(metadata, headers={"Cache-Control": "public, max-age=3600"})

    tokens = TokenEndpoints(provider)
    limited = (
        [
            Middleware(
                AddressRateLimit,
                limit=request_limit,
                forwarded_for_hops=provider.config.forwarded_for_hops,
            )
        ]
        if request_limit is not None
        else []
    )
    client_methods = ["POST", "OPTIONS"]
    return [
        Route(
            "/.well-known/oauth-authorization-server",
            cors_middleware(metadata_endpoint, ["GET", "OPTIONS"]),
            methods=["GET", "OPTIONS"],
        ),
        Route(
            "/authorize",
            AuthorizeEndpoint(provider).authorize,
            methods=["GET", "POST"],
            middleware=limited,
        ),
        Route("/token", tokens.token, methods=client_methods, middleware=[CLIENT_CORS]),
        Route("/revoke", tokens.revoke, methods=client_methods, middleware=[CLIENT_CORS]),
        Route(
            "/register",
            RegisterEndpoint(provider).register,
            methods=client_methods,
            middleware=[CLIENT_CORS],
        ),
    ]


def server_metadata(oauth: OAuthConfig) -> dict[str, Any]:
    """RFC 8414 metadata: the SDK's, with the issuer exact (no trailing slash) and what the
    SDK's leaves out (public clients, RFC 9207's `iss`, Client ID Metadata Documents)."""
    registration = ClientRegistrationOptions(
        enabled=True,
        valid_scopes=list(oauth.supported_scopes),
        default_scopes=list(oauth.scopes),
    )
    revocation = RevocationOptions(enabled=True)
    metadata = build_metadata(AnyHttpUrl(oauth.issuer), None, registration, revocation).model_dump(
        mode="json", exclude_none=True
    )
    metadata.update(
        issuer=oauth.issuer,
        token_endpoint_auth_methods_supported=CLIENT_AUTH_METHODS,
        revocation_endpoint_auth_methods_supported=CLIENT_AUTH_METHODS,
        authorization_response_iss_parameter_supported=True,
        client_id_metadata_document_supported=True,
    )
    return metadata
