"""/register: Dynamic Client Registration (RFC 7591) as a plain endpoint over the provider.

Open and cheap, but counted per client address per hour. A public client (`none`) gets no
secret; any other gets one, in this 201 only (never cached, never stored: the provider keeps
its sha256). The provider's client book refuses what this server does not serve.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import timedelta

from mcp.server.auth.provider import RegistrationError
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from api.oauth.address_limits import address_key
from api.oauth.form_input import read_body
from api.oauth.provider import BuiltinOAuthProvider
from api.oauth.refusals import NO_STORE, OAuthError


class RegisterEndpoint:
    """/register of one provider."""

    def __init__(self, provider: BuiltinOAuthProvider) -> None:
        self.provider = provider

    async def register(self, request: Request) -> Response:
        """201 with the client's record (and secret), or the refusal."""
        try:
            body = await read_body(request)
            await self._count(request)
            client = self._client(_metadata(body))
            await self.provider.register_client(client)
        except OAuthError as refusal:
            return refusal.answer()
        except RegistrationError as err:
            return OAuthError(400, err.error, err.error_description or err.error).answer()
        document = client.model_dump(mode="json", exclude_none=True)
        return JSONResponse(document, status_code=201, headers=NO_STORE)

    async def _count(self, request: Request) -> None:
        """Raises: OAuthError (429 with Retry-After) past the hour's registrations."""
        config, now = self.provider.config, self.provider.clock()
        window = now.replace(minute=0, second=0, microsecond=0)
        address = address_key(request.scope, forwarded_for_hops=config.forwarded_for_hops)
        hits = await self.provider.io(
            self.provider.store.count_hit, f"register:{address}", window_start=window
        )
        if hits > config.registrations_per_hour:
            retry = int((window + timedelta(hours=1) - now).total_seconds()) + 1
            raise OAuthError(
                429,
                "rate_limited",
                "too many registrations; retry later",
                headers={"Retry-After": str(retry)},
            )

    def _client(self, metadata: OAuthClientMetadata) -> OAuthClientInformationFull:
        """The record of a new client. Raises: OAuthError (400 invalid_client_metadata)."""
        method = metadata.token_endpoint_auth_method or "client_secret_post"
        if method == "private_key_jwt":
            # No client key is held here to check its assertions: every /token would fail.
            raise _invalid("token_endpoint_auth_method private_key_jwt is not supported")
        if metadata.scope is None:
            scope = " ".join(self.provider.config.scopes)
        else:
            unknown = set(metadata.scope.split()) - set(self.provider.config.supported_scopes)
            if unknown:
                raise _invalid(f"scopes not served here: {', '.join(sorted(unknown))}")
            scope = metadata.scope
        if "authorization_code" not in metadata.grant_types:
            raise _invalid("grant_types must include authorization_code")
        if "code" not in metadata.response_types:
            raise _invalid("response_types must include code")
        secret = None if method == "none" else secrets.token_hex(32)
        return OAuthClientInformationFull.model_validate(
            {
                **metadata.model_dump(),
                "token_endpoint_auth_method": method,
                "scope": scope,
                "client_id": str(uuid.uuid4()),
                "client_id_issued_at": int(self.provider.clock().timestamp()),
                "client_secret": secret,
                # RFC 7591 §3.2.1: with a secret, 0 says it never expires.
                "client_secret_expires_at": None if secret is None else 0,
            }
        )


def _metadata(body: bytes) -> OAuthClientMetadata:
    """The RFC 7591 §2 metadata sent. Raises: OAuthError naming every field that is wrong."""
    try:
        return OAuthClientMetadata.model_validate_json(body)
    except ValidationError as err:
        fields = "; ".join(
            f"{'.'.join(str(part) for part in e['loc']) or 'body'}: {e['msg']}"
            for e in err.errors()
        )
        raise _invalid(fields) from err


def _invalid(description: str) -> OAuthError:
    return OAuthError(400, "invalid_client_metadata", description)
