"""The built-in authorization server's state (sign-in for /mcp): clients, codes, tokens.

Protocols and value types only; nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

OAuthTokenKind = Literal["access", "refresh"]


@dataclass(frozen=True)
class OAuthClientRecord:
    """A registered OAuth client: its RFC 7591 information as a JSON document.

    `information` never holds the client secret: `secret_hash` is its sha256 hex digest.
    `expires_at` is when a cached Client ID Metadata Document goes stale, or when a
    registered client that got no token since is forgotten; stores may delete a row once it
    has passed.
    """

    client_id: str
    information: str
    created_at: datetime
    secret_hash: str | None = None
    expires_at: datetime | None = None


@dataclass(frozen=True)
class PendingAuthorization:
    """An /authorize request waiting for its person to sign in and consent.

    `request` is the validated authorization request as JSON; `otp_hash` and `csrf_hash`
    are sha256 hex digests, never the secrets themselves.
    """

    tx_id: str
    client_id: str
    request: str
    csrf_hash: str
    expires_at: datetime
    email: str | None = None
    otp_hash: str | None = None
    subject: str | None = None


@dataclass(frozen=True)
class AuthorizationCodeRecord:
    """An issued authorization code, stored by the sha256 of the code."""

    code_hash: str
    client_id: str
    subject: str
    scopes: tuple[str, ...]
    code_challenge: str
    redirect_uri: str
    redirect_uri_provided_explicitly: bool
    resource: str
    expires_at: datetime
    used_at: datetime | None = None


@dataclass(frozen=True)
class OAuthTokenRecord:
    """An access or refresh token, stored by the sha256 of the token.

    `grant_id` ties every token of one authorization together (revocation of one revokes
    all); `parent_hash` is the refresh token this one replaced. A refresh token exchanged for
    a successor has `replaced_at` (and `revoked_at`) set, and `replacement`: the answer that
    exchange gave, sealed with a key only the refresh token itself yields, so that the same
    client retrying the same exchange gets the same successor.
    """

    token_hash: str
    kind: OAuthTokenKind
    client_id: str
    subject: str
    scopes: tuple[str, ...]
    resource: str
    grant_id: str
    expires_at: datetime
    parent_hash: str | None = None
    revoked_at: datetime | None = None
    replaced_at: datetime | None = None
    replacement: str | None = None


class OAuthStore(Protocol):
    """All state of the built-in authorization server, shared by every process.

    Rows past their `expires_at` are deleted some time later (SQLite: on later writes;
    Firestore: TTL policies), so readers treat expired rows as absent.
    """

    def save_client(self, record: OAuthClientRecord) -> None:
        """Store or replace a client."""

    def get_client(self, client_id: str) -> OAuthClientRecord | None:
        """The client with this id, if registered."""

    def save_pending(self, pending: PendingAuthorization) -> None:
        """Store or replace a pending authorization."""

    def get_pending(self, tx_id: str) -> PendingAuthorization | None:
        """The pending authorization with this id (expired ones included)."""

    def delete_pending(self, tx_id: str) -> None:
        """Forget a pending authorization (idempotent)."""

    def add_code(self, record: AuthorizationCodeRecord) -> None:
        """Store a new code. Raises: ConflictError if its hash exists."""

    def get_code(self, code_hash: str) -> AuthorizationCodeRecord | None:
        """The code with this hash, used or not."""

    def use_code(self, code_hash: str, *, now: datetime) -> AuthorizationCodeRecord:
        """Mark a code used, atomically. Raises: NotFoundError; ConflictError if used."""

    def add_token(self, record: OAuthTokenRecord) -> None:
        """Store a new token. Raises: ConflictError if its hash exists."""

    def get_token(self, token_hash: str) -> OAuthTokenRecord | None:
        """The token with this hash, revoked or not."""

    def revoke_token(self, token_hash: str, *, now: datetime) -> None:
        """Revoke one token (idempotent; unknown hashes are ignored)."""

    def replace_token(self, token_hash: str, *, now: datetime, replacement: str) -> None:
        """Mark a live token replaced by its successor, atomically: `revoked_at` and
        `replaced_at` become `now`, `replacement` is kept. Of two calls at once, one wins.

        Raises: NotFoundError; ConflictError if it was already revoked or replaced.
        """

    def revoke_grant(self, grant_id: str, *, now: datetime) -> None:
        """Revoke every token of one grant (idempotent)."""

    def count_hit(self, bucket: str, *, window_start: datetime) -> int:
        """Count one hit in `bucket` for the window starting at `window_start`; the new total.

        Windows are at most a day long: a counter may be deleted a day after its start.
        """
