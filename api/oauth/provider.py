"""The built-in authorization server's provider behind the SDK's OAuth handlers.

All state sits in the OAuthStore port (codes and tokens only as sha256 hashes), so any
process can answer any step. The SDK handlers validate requests; this provider adds what
they leave to it: the RFC 8707 `resource` checked at /authorize and /token and bound into
every token, single-use codes, rotating refresh tokens, revocation by grant, Client ID
Metadata Documents, loopback redirect ports and client secrets kept only as hashes.
Expired rows are treated as absent (stores delete them later). Clients live in
api.oauth.client_book, sign-in and consent in api.oauth.signin.
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TypeVar

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    TokenError,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl

from api.oauth.client_book import ClientBook
from api.oauth.clients import RegisteredClient
from api.oauth.config import OAuthConfig, call_store, sha256_hex
from backends.ports import (
    AuthorizationCodeRecord,
    ConflictError,
    NotFoundError,
    OAuthStore,
    OAuthTokenRecord,
    PendingAuthorization,
    UnavailableError,
)

logger = logging.getLogger(__name__)
T = TypeVar("T")
# BASE64URL(SHA256(verifier)) without padding is always 43 characters (RFC 7636 §4.2); a
# challenge of any other form could never be met at /token.
S256_CHALLENGE = re.compile(r"[A-Za-z0-9_-]{43}")

# The `resource` of the current /token request: the SDK's TokenHandler does not hand it to
# the provider, so the route wrapper in api.tools.mcp_app sets it here.
token_request_resource: ContextVar[str | None] = ContextVar("token_request_resource", default=None)
# Whether the current /authorize request named its code_challenge_method: the SDK's handler
# reads a missing one as S256, so the route wrapper in api.tools.mcp_app says so here.
authorize_method_named: ContextVar[bool] = ContextVar("authorize_method_named", default=True)

# An access token found valid is trusted this long without a store read, so /mcp's check on
# an agent's burst of stateless requests is a dict lookup (bench_mcp's tools/call: 811/s with
# it, 477/s without, on the embedded store; on Firestore each read is a round trip).
# A revocation through this process forgets them all at once; one made through another
# process takes effect here within this time.
VERIFIED_TOKEN_TTL = timedelta(seconds=1)
VERIFIED_TOKENS_MAX = 4096


class BuiltinOAuthProvider:
    """OAuthAuthorizationServerProvider on an OAuthStore."""

    def __init__(
        self, store: OAuthStore, config: OAuthConfig, *, clock: Callable[[], datetime]
    ) -> None:
        self.store = store
        self.config = config
        self.clock = clock
        self.clients = ClientBook(store, config, clock=clock)
        # token hash -> (the verified token, trusted until); dict reads need no lock
        self._verified: dict[str, tuple[AccessToken, datetime]] = {}

    async def io(self, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
        """Run a store call as config.offload_store_calls says (api.oauth.config.call_store)."""
        return await call_store(self.config.offload_store_calls, fn, *args, **kwargs)

    # --- clients (api.oauth.client_book) -----------------------------------------------

    async def get_client(self, client_id: str) -> RegisteredClient | None:
        return await self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        await self.clients.register(client_info)

    # --- authorization -----------------------------------------------------------------

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        if not authorize_method_named.get():
            raise AuthorizeError(
                "invalid_request",
                "code_challenge_method is required and must be S256 (RFC 7636 section 4.3: without "
                "it the method is plain, which this server does not accept)",
            )
        if not S256_CHALLENGE.fullmatch(params.code_challenge):
            raise AuthorizeError(
                "invalid_request",
                "code_challenge must be the 43-character base64url SHA-256 of the "
                "code_verifier (RFC 7636 section 4.2)",
            )
        resource = params.resource or self.config.resource
        if resource.rstrip("/") != self.config.resource:
            raise AuthorizeError(
                "invalid_target", f"this server issues tokens only for {self.config.resource}"
            )
        scopes = params.scopes or list(self.config.scopes)
        request = params.model_copy(update={"resource": self.config.resource, "scopes": scopes})
        pending = PendingAuthorization(
            tx_id=secrets.token_urlsafe(24),
            client_id=client.client_id,
            request=request.model_dump_json(),
            csrf_hash="",
            expires_at=self.clock() + self.config.signin_ttl,
        )
        try:
            await self.io(self.store.save_pending, pending)
        except UnavailableError as err:
            # The SDK's handler answers any other exception 400 server_error; this one goes
            # back to the client (RFC 6749 §4.1.2.1), which may retry.
            raise AuthorizeError(
                "temporarily_unavailable", "the authorization store is unavailable; retry"
            ) from err
        return f"{self.config.issuer}/oauth/signin?tx={pending.tx_id}"

    def issue_code(
        self, pending: PendingAuthorization, *, subject: str, scopes: Sequence[str]
    ) -> tuple[str, AuthorizationParams]:
        """Store a new authorization code for a consented request, carrying the scopes the
        person was granted (domain/staff.granted_scopes); the code and its request."""
        params = AuthorizationParams.model_validate_json(pending.request)
        code = secrets.token_urlsafe(32)
        self.store.add_code(
            AuthorizationCodeRecord(
                code_hash=sha256_hex(code),
                client_id=pending.client_id,
                subject=subject,
                scopes=tuple(scopes),
                code_challenge=params.code_challenge,
                redirect_uri=str(params.redirect_uri),
                redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
                resource=params.resource or self.config.resource,
                expires_at=self.clock() + self.config.code_ttl,
            )
        )
        return code, params

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        record = await self.io(self.store.get_code, sha256_hex(authorization_code))
        if record is None or record.client_id != client.client_id:
            return None
        if record.expires_at <= self.clock():
            return None  # as if already deleted, whether or not the store got to it yet
        if record.used_at is not None:
            # A replayed code: revoke whatever it already bought (RFC 6749 §4.1.2).
            await self._revoke_grant(record.code_hash)
            return None
        return AuthorizationCode(
            code=authorization_code,
            scopes=list(record.scopes),
            expires_at=record.expires_at.timestamp(),
            client_id=record.client_id,
            code_challenge=record.code_challenge,
            redirect_uri=AnyUrl(record.redirect_uri),
            redirect_uri_provided_explicitly=record.redirect_uri_provided_explicitly,
            resource=record.resource,
            subject=record.subject,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self._check_token_resource(authorization_code.resource)
        code_hash = sha256_hex(authorization_code.code)
        try:
            await self.io(self.store.use_code, code_hash, now=self.clock())
        except (ConflictError, NotFoundError) as err:
            raise TokenError("invalid_grant", "authorization code was already used") from err
        return await self._issue_tokens(
            client,
            subject=authorization_code.subject or "",
            scopes=authorization_code.scopes,
            grant_id=code_hash,
            parent_hash=None,
        )

    # --- tokens ------------------------------------------------------------------------

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        record = await self.io(self.store.get_token, sha256_hex(refresh_token))
        if record is None or record.kind != "refresh" or record.client_id != client.client_id:
            return None
        if record.expires_at <= self.clock():
            return None  # as if already deleted, whether or not the store got to it yet
        if record.revoked_at is not None:
            # A rotated-out refresh token came back: treat the grant as stolen.
            await self._revoke_grant(record.grant_id)
            return None
        return RefreshToken(
            token=refresh_token,
            client_id=record.client_id,
            scopes=list(record.scopes),
            expires_at=int(record.expires_at.timestamp()),
            resource=record.resource,
            subject=record.subject,
        )

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self._check_token_resource(refresh_token.resource)
        token_hash = sha256_hex(refresh_token.token)
        record = await self.io(self.store.get_token, token_hash)
        if record is None or record.revoked_at is not None:
            raise TokenError("invalid_grant", "refresh token is no longer valid")
        if record.parent_hash is not None:
            # The new token is in use: the one it replaced stops working now.
            await self.io(self.store.revoke_token, record.parent_hash, now=self.clock())
            self._verified.clear()
        return await self._issue_tokens(
            client,
            subject=record.subject,
            scopes=scopes,
            grant_id=record.grant_id,
            parent_hash=token_hash,
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        token_hash, now = sha256_hex(token), self.clock()
        verified = self._verified.get(token_hash)
        if verified is not None and now < verified[1]:
            return verified[0]
        record = await self.io(self.store.get_token, token_hash)
        if record is None or record.kind != "access" or record.revoked_at is not None:
            return None
        if record.expires_at <= now:
            return None
        access = AccessToken(
            token=token,
            client_id=record.client_id,
            scopes=list(record.scopes),
            expires_at=int(record.expires_at.timestamp()),
            resource=record.resource,
            subject=record.subject,
            claims={"iss": self.config.issuer},
        )
        if len(self._verified) >= VERIFIED_TOKENS_MAX:
            self._verified.clear()
        self._verified[token_hash] = (access, min(now + VERIFIED_TOKEN_TTL, record.expires_at))
        return access

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        record = await self.io(self.store.get_token, sha256_hex(token.token))
        if record is not None:
            await self._revoke_grant(record.grant_id)

    async def _revoke_grant(self, grant_id: str) -> None:
        await self.io(self.store.revoke_grant, grant_id, now=self.clock())
        self._verified.clear()  # revocations are rare: forget every verified token

    async def _issue_tokens(
        self,
        client: OAuthClientInformationFull,
        *,
        subject: str,
        scopes: list[str],
        grant_id: str,
        parent_hash: str | None,
    ) -> OAuthToken:
        now = self.clock()
        access = "fda_" + secrets.token_urlsafe(32)
        base = OAuthTokenRecord(
            token_hash=sha256_hex(access),
            kind="access",
            client_id=client.client_id,
            subject=subject,
            scopes=tuple(scopes),
            resource=self.config.resource,
            grant_id=grant_id,
            expires_at=now + self.config.access_token_ttl + self.config.access_token_grace,
        )
        await self.io(self.store.add_token, base)
        await self.clients.keep(client.client_id, now)
        refresh: str | None = None
        if "refresh_token" in client.grant_types:
            refresh = "fdr_" + secrets.token_urlsafe(32)
            await self.io(
                self.store.add_token,
                replace(
                    base,
                    token_hash=sha256_hex(refresh),
                    kind="refresh",
                    expires_at=now + self.config.refresh_token_ttl,
                    parent_hash=parent_hash,
                ),
            )
        return OAuthToken(
            access_token=access,
            expires_in=int(self.config.access_token_ttl.total_seconds()),
            scope=" ".join(scopes),
            refresh_token=refresh,
        )

    def _check_token_resource(self, bound: str | None) -> None:
        requested = token_request_resource.get()
        if requested is not None and requested.rstrip("/") != (bound or self.config.resource):
            raise TokenError("invalid_target", f"tokens here are only for {self.config.resource}")
