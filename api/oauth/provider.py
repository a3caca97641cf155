"""The built-in authorization server's provider behind its endpoints (api.oauth.routes).

All state sits in the OAuthStore port (codes and tokens only as sha256 hashes), so any
process can answer any step. The endpoints check requests and hand the provider what it
needs as arguments; the provider decides the RFC 8707 `resource` checked at /authorize and
/token and bound into every token, single-use codes, rotating refresh tokens, revocation by
grant, Client ID Metadata Documents, loopback redirect ports and client secrets kept only as
hashes. A refresh token is replaced the moment it is exchanged; presented again it ends its
whole grant (RFC 9700 §4.14.2), except for the same client retrying the same exchange within
`refresh_retry_grace`, which gets the same successor (api.oauth.sealed_answer). Expired rows
are treated as absent (stores delete them later). Clients live in api.oauth.client_book,
sign-in and consent in api.oauth.signin.
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Callable, Sequence
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
from api.oauth.clients import KnownClient, RegisteredClient
from api.oauth.config import OAuthConfig, call_store, sha256_hex
from api.oauth.sealed_answer import open_answer, seal_answer
from backends.ports import (
    AuthorizationCodeRecord,
    ConflictError,
    NotFoundError,
    OAuthStore,
    OAuthTokenRecord,
    PendingAuthorization,
)

logger = logging.getLogger(__name__)
T = TypeVar("T")
# BASE64URL(SHA256(verifier)) without padding is always 43 characters (RFC 7636 §4.2); a
# challenge of any other form could never be met at /token.
S256_CHALLENGE = re.compile(r"[A-Za-z0-9_-]{43}")

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

    async def find_client(self, client_id: str) -> KnownClient | None:
        """The client with its secret's hash, for client authentication (api.oauth.client_auth)."""
        return await self.clients.find(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        await self.clients.register(client_info)

    # --- authorization -----------------------------------------------------------------

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
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
        await self.io(self.store.save_pending, pending)
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
        self,
        client: OAuthClientInformationFull,
        authorization_code: AuthorizationCode,
        *,
        resource: str | None = None,
    ) -> OAuthToken:
        """Tokens for a loaded code, once; `resource` is the one the /token request named."""
        self._check_token_resource(authorization_code.resource, resource)
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
        if record.revoked_at is not None and not self._retrying(record):
            # A replaced or revoked refresh token came back: treat the grant as stolen.
            await self._end_reused_grant(record)
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
        self,
        client: OAuthClientInformationFull,
        refresh_token: RefreshToken,
        scopes: list[str],
        *,
        resource: str | None = None,
    ) -> OAuthToken:
        """The refresh token's successor; `resource` is the one the /token request named."""
        self._check_token_resource(refresh_token.resource, resource)
        token_hash = sha256_hex(refresh_token.token)
        record = await self.io(self.store.get_token, token_hash)
        if record is None:
            raise TokenError("invalid_grant", "refresh token is no longer valid")
        if record.revoked_at is None:
            answer = await self._issue_tokens(
                client,
                subject=record.subject,
                scopes=scopes,
                grant_id=record.grant_id,
                parent_hash=token_hash,
            )
            sealed = seal_answer(refresh_token.token, answer)
            try:
                # Replaced the moment it is exchanged: a second exchange is a retry or a theft.
                await self.io(
                    self.store.replace_token, token_hash, now=self.clock(), replacement=sealed
                )
            except (ConflictError, NotFoundError):
                # Exchanged at the same moment elsewhere, which won: withdraw ours.
                await self._withdraw(answer)
                record = await self.io(self.store.get_token, token_hash)
            else:
                if record.parent_hash is not None:
                    # A token rotated before replacement was recorded left its parent live.
                    await self.io(self.store.revoke_token, record.parent_hash, now=self.clock())
                return answer
        return await self._retried_answer(record, refresh_token.token, scopes)

    def _retrying(self, record: OAuthTokenRecord) -> bool:
        """Whether a replaced refresh token is still within the retry grace."""
        return (
            record.replaced_at is not None
            and record.replacement is not None
            and self.clock() - record.replaced_at <= self.config.refresh_retry_grace
        )

    async def _retried_answer(
        self, record: OAuthTokenRecord | None, refresh_token: str, scopes: list[str]
    ) -> OAuthToken:
        """The successor a replaced refresh token was exchanged for, to the same client
        retrying the same exchange within the grace while that successor is unused and its
        grant live; anything else is reuse, and ends the grant."""
        if record is None:
            raise TokenError("invalid_grant", "refresh token is no longer valid")
        answer = None
        if self._retrying(record) and record.replacement is not None:
            answer = open_answer(refresh_token, record.replacement)
        if (
            answer is None
            or set((answer.scope or "").split()) != set(scopes)
            or not await self._unused(answer)
        ):
            await self._end_reused_grant(record)
            raise TokenError("invalid_grant", "refresh token is no longer valid")
        logger.info(
            "refresh exchange retried: the same successor answered",
            extra={"client_id": record.client_id},
        )
        return answer

    async def _unused(self, answer: OAuthToken) -> bool:
        """Whether both tokens of an answer are still live (not replaced, not revoked)."""
        for token in (answer.access_token, answer.refresh_token):
            if token is None:
                continue
            issued = await self.io(self.store.get_token, sha256_hex(token))
            if issued is None or issued.revoked_at is not None:
                return False
        return True

    async def _withdraw(self, answer: OAuthToken) -> None:
        for token in (answer.access_token, answer.refresh_token):
            if token is not None:
                await self.io(self.store.revoke_token, sha256_hex(token), now=self.clock())

    async def _end_reused_grant(self, record: OAuthTokenRecord) -> None:
        """Revoke the whole grant of a refresh token presented after it was replaced or
        revoked (RFC 9700 §4.14.2), and log it as a security event, without token values."""
        logger.warning(
            "refresh token reuse: a %s refresh token was presented; its grant is revoked",
            "replaced" if record.replaced_at is not None else "revoked",
            extra={
                "security_event": "oauth_refresh_token_reuse",
                "client_id": record.client_id,
                "grant": record.grant_id[:16],
            },
        )
        await self._revoke_grant(record.grant_id)

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

    async def revoke_client_token(self, client_id: str, token: str) -> None:
        """End the grant of `token`, an access or refresh token, if it was issued to
        `client_id`; anything else changes nothing (RFC 7009 §2.2: no hint either way)."""
        record = await self.io(self.store.get_token, sha256_hex(token))
        if record is not None and record.client_id == client_id:
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

    def _check_token_resource(self, bound: str | None, requested: str | None) -> None:
        if requested is not None and requested.rstrip("/") != (bound or self.config.resource):
            raise TokenError("invalid_target", f"tokens here are only for {self.config.resource}")
