"""/token (RFC 6749 §4.1.3 and §6) and /revoke (RFC 7009): two plain endpoints over the
provider.

Each reads its form once (api.oauth.form_input), authenticates the client
(api.oauth.client_auth), checks the grant and calls the provider with what it needs,
`resource` (RFC 8707) included. Answers are RFC 6749 §5.1 / §5.2 JSON, never cached.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from mcp.server.auth.provider import TokenError
from mcp.shared.auth import OAuthToken
from pydantic import AnyUrl, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from api.oauth.client_auth import authenticate, credentials_of
from api.oauth.clients import RegisteredClient
from api.oauth.form_input import missing, read_form
from api.oauth.provider import BuiltinOAuthProvider
from api.oauth.refusals import NO_STORE, OAuthError

GRANT_TYPES = ("authorization_code", "refresh_token")


class TokenEndpoints:
    """/token and /revoke of one provider."""

    def __init__(self, provider: BuiltinOAuthProvider) -> None:
        self.provider = provider

    async def token(self, request: Request) -> Response:
        """A code or a refresh token exchanged for tokens."""
        try:
            form = await read_form(request)
            grant_type = _grant_type(form)
            client = await self._client(request, form)
            if grant_type not in client.grant_types:
                raise OAuthError(
                    400, "unauthorized_client", f"this client did not register {grant_type}"
                )
            if grant_type == "authorization_code":
                tokens = await self._code_exchanged(client, form)
            else:
                tokens = await self._refreshed(client, form)
        except OAuthError as refusal:
            return refusal.answer()
        except TokenError as err:
            return OAuthError(400, err.error, err.error_description or err.error).answer()
        return JSONResponse(tokens.model_dump(mode="json", exclude_none=True), headers=NO_STORE)

    async def revoke(self, request: Request) -> Response:
        """RFC 7009: 200 whether or not the token was known; a token of another client, or
        one already ended, changes nothing."""
        try:
            form = await read_form(request)
            client = await self._client(request, form)
            missing(form, ["token"])
        except OAuthError as refusal:
            return refusal.answer()
        await self.provider.revoke_client_token(client.client_id, form["token"])
        return Response(status_code=200, headers=NO_STORE)

    async def _client(self, request: Request, form: dict[str, str]) -> RegisteredClient:
        authorization = request.headers.get("authorization", "")
        return await authenticate(self.provider, credentials_of(form, authorization))

    async def _code_exchanged(self, client: RegisteredClient, form: dict[str, str]) -> OAuthToken:
        missing(form, ["code", "code_verifier"])
        code = await self.provider.load_authorization_code(client, form["code"])
        if code is None:
            raise OAuthError(
                400, "invalid_grant", "the code is unknown, used, expired or not yours"
            )
        # RFC 6749 §4.1.3: the redirect_uri of /authorize, sent again, exactly.
        expected = str(code.redirect_uri) if code.redirect_uri_provided_explicitly else None
        if _url_or_none(form.get("redirect_uri")) != expected:
            raise OAuthError(
                400, "invalid_grant", "redirect_uri is not the one the code was issued for"
            )
        if not _meets_challenge(form["code_verifier"], code.code_challenge):
            raise OAuthError(
                400, "invalid_grant", "code_verifier does not match the code_challenge"
            )
        return await self.provider.exchange_authorization_code(
            client, code, resource=form.get("resource")
        )

    async def _refreshed(self, client: RegisteredClient, form: dict[str, str]) -> OAuthToken:
        missing(form, ["refresh_token"])
        refresh = await self.provider.load_refresh_token(client, form["refresh_token"])
        if refresh is None:
            raise OAuthError(
                400, "invalid_grant", "the refresh token is unknown, ended, expired or not yours"
            )
        # RFC 6749 §6: a refresh may narrow the scope, never widen it.
        scopes = form["scope"].split() if "scope" in form else refresh.scopes
        wider = [scope for scope in scopes if scope not in refresh.scopes]
        if wider:
            raise OAuthError(
                400, "invalid_scope", f"not granted to this refresh token: {' '.join(wider)}"
            )
        return await self.provider.exchange_refresh_token(
            client, refresh, scopes, resource=form.get("resource")
        )


def _grant_type(form: dict[str, str]) -> str:
    grant_type = form.get("grant_type")
    if grant_type is None:
        raise OAuthError(400, "invalid_request", "grant_type is required")
    if grant_type not in GRANT_TYPES:
        raise OAuthError(
            400, "unsupported_grant_type", f"grant_type must be one of: {', '.join(GRANT_TYPES)}"
        )
    return grant_type


def _url_or_none(value: str | None) -> str | None:
    """`value` as /authorize's redirect_uri was kept (a URL's normal form), or as sent."""
    if value is None:
        return None
    try:
        return str(AnyUrl(value))
    except ValidationError:
        return value


def _meets_challenge(verifier: str, challenge: str) -> bool:
    """PKCE S256 (RFC 7636 §4.6): BASE64URL(SHA256(verifier)) equals the challenge."""
    digest = hashlib.sha256(verifier.encode()).digest()
    computed = base64.urlsafe_b64encode(digest).decode().rstrip("=")
    return hmac.compare_digest(computed.encode(), challenge.encode())
