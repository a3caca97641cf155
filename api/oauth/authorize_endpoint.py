"""/authorize (RFC 6749 §4.1.1, by GET or POST): a plain endpoint that checks the request and
hands it to the provider, which stores it and sends the person to sign in.

Every refusal is answered here, 400 (401 for an unknown client, which then registers again),
and never redirected to the client's redirect URI: no person has confirmed that URI yet
(anyone may register one), so redirecting would make this server an open redirector
(RFC 9700 §4.11.2). Only consent, which names the redirect host, sends the person back.
"""

from __future__ import annotations

from mcp.server.auth.provider import AuthorizationParams, AuthorizeError
from mcp.shared.auth import InvalidRedirectUriError, InvalidScopeError
from pydantic import AnyUrl, ValidationError
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from api.oauth.clients import RegisteredClient
from api.oauth.form_input import missing, parameters, read_form
from api.oauth.provider import BuiltinOAuthProvider
from api.oauth.refusals import NO_STORE, OAuthError

REQUIRED = ("client_id", "response_type", "code_challenge")


class AuthorizeEndpoint:
    """/authorize of one provider."""

    def __init__(self, provider: BuiltinOAuthProvider) -> None:
        self.provider = provider

    async def authorize(self, request: Request) -> Response:
        """302 to the sign-in page, or the refusal."""
        try:
            if request.method == "POST":
                query = await read_form(request)
            else:
                query = parameters(request.query_params.multi_items())
            client = await self._client(query)
            target = await self.provider.authorize(client, _authorization(client, query))
        except OAuthError as refusal:
            return refusal.answer()
        except AuthorizeError as err:
            return OAuthError(400, err.error, err.error_description or err.error).answer()
        return RedirectResponse(target, status_code=302, headers=NO_STORE)

    async def _client(self, query: dict[str, str]) -> RegisteredClient:
        if "client_id" not in query:
            missing(query, REQUIRED)  # names client_id and every other one absent
        client = await self.provider.get_client(query["client_id"])
        if client is None:
            raise OAuthError(401, "invalid_client", "unknown client_id; register again")
        missing(query, REQUIRED)
        return client


def _authorization(client: RegisteredClient, query: dict[str, str]) -> AuthorizationParams:
    """The request as the provider takes it. Raises: OAuthError (400)."""
    if query["response_type"] != "code":
        raise OAuthError(400, "unsupported_response_type", "response_type must be code")
    method = query.get("code_challenge_method")
    if method is None:
        raise OAuthError(
            400,
            "invalid_request",
            "code_challenge_method is required and must be S256 (RFC 7636 section 4.3: "
            "without it the method is plain, which this server does not accept)",
        )
    if method != "S256":
        raise OAuthError(400, "invalid_request", "code_challenge_method must be S256")
    try:
        sent = AnyUrl(query["redirect_uri"]) if "redirect_uri" in query else None
        redirect_uri = client.validate_redirect_uri(sent)
    except ValidationError as err:
        raise OAuthError(400, "invalid_request", "redirect_uri is not a URL") from err
    except InvalidRedirectUriError as err:
        raise OAuthError(400, "invalid_request", err.message) from err
    try:
        scopes = client.validate_scope(query.get("scope"))
    except InvalidScopeError as err:
        raise OAuthError(400, "invalid_scope", err.message) from err
    return AuthorizationParams(
        state=query.get("state"),
        scopes=scopes,
        code_challenge=query["code_challenge"],
        redirect_uri=redirect_uri,
        redirect_uri_provided_explicitly=sent is not None,
        resource=query.get("resource"),
    )
