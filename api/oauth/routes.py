"""The SDK's authorization-server routes around our provider, each in its guards
(api/oauth/endpoint_guards.py), with RFC 8414 metadata that says what we serve."""

from __future__ import annotations

from mcp.server.auth.routes import build_metadata, cors_middleware, create_auth_routes
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from pydantic import AnyHttpUrl
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from api.oauth.client_cors import ClientCors
from api.oauth.endpoint_guards import (
    AuthorizeRequest,
    BodyLimit,
    FormRequest,
    JsonRefusalText,
    RegistrationLimit,
)
from api.oauth.provider import BuiltinOAuthProvider


def authorization_server_routes(provider: BuiltinOAuthProvider) -> list[BaseRoute]:
    oauth = provider.config
    registration = ClientRegistrationOptions(
        enabled=True,
        valid_scopes=list(oauth.supported_scopes),
        default_scopes=list(oauth.scopes),
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
                BodyLimit(AuthorizeRequest(JsonRefusalText(route.app), provider)),
                methods=methods,
            )
        elif route.path == "/token":
            token = BodyLimit(FormRequest(JsonRefusalText(route.app)))
            route = Route(route.path, ClientCors(token), methods=methods)
        elif route.path == "/revoke":
            revoke = JsonRefusalText(route.app, revoke=True)
            route = Route(
                route.path, ClientCors(BodyLimit(FormRequest(revoke, revoke=True))), methods=methods
            )
        elif route.path == "/register":
            registering = RegistrationLimit(JsonRefusalText(route.app), provider)
            route = Route(route.path, ClientCors(BodyLimit(registering)), methods=methods)
        wrapped.append(route)
    return wrapped
