"""The ports: one small Protocol per need, their value types and the errors adapters raise.

Adapters translate client exceptions into these errors; nothing here does I/O.
Each section belongs to one capability; keep edits inside your section.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal, Protocol

__all__ = [
    "ApiKeyRecord",
    "Cdn",
    "ConflictError",
    "IdempotencyBegin",
    "IdempotencyStore",
    "KeyStore",
    "Mailer",
    "NotFoundError",
    "PageList",
    "PageStatus",
    "PageStore",
    "PortError",
    "Scope",
    "StoredPage",
    "StoredResponse",
    "UnavailableError",
]


class PortError(Exception):
    """Base of every error an adapter raises."""


class NotFoundError(PortError):
    """The record asked for does not exist."""


class ConflictError(PortError):
    """The write lost a race or would overwrite what it must not (a version check failed)."""


class UnavailableError(PortError):
    """The backend cannot answer now; the caller may retry."""


# --- keys (issue 3) -------------------------------------------------------------------

Scope = Literal["content", "signals", "ingest"]
SCOPES: tuple[Scope, ...] = ("content", "signals", "ingest")


@dataclass(frozen=True)
class ApiKeyRecord:
    """A partner key as stored: the secret only as its hash."""

    key_id: str
    partner: str
    scope: Scope
    secret_hash: str
    created_at: datetime
    revoked_at: datetime | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class KeyStore(Protocol):
    """Partner API keys, hashed at rest."""

    def add_key(self, record: ApiKeyRecord) -> None:
        """Store a new key. Raises: ConflictError if the key id exists."""

    def get_key(self, key_id: str) -> ApiKeyRecord | None:
        """The key with this id, revoked or not."""

    def revoke_key(self, key_id: str, *, now: datetime) -> ApiKeyRecord:
        """Mark a key revoked (idempotent). Raises: NotFoundError."""

    def list_keys(self) -> list[ApiKeyRecord]:
        """Every key, oldest first."""


# --- cdn (issue 4; the Cloud CDN adapter comes with issue 8) ----------------------------


class Cdn(Protocol):
    """The cache in front of public pages."""

    def purge(self, path: str) -> None:
        """Invalidate one path, e.g. /p/launch."""


# --- mail (issue 7) --------------------------------------------------------------------


class Mailer(Protocol):
    """Outbound mail (sign-in codes)."""

    def send(self, *, to: str, subject: str, text: str) -> None:
        """Send one plain-text message."""


# --- pages, idempotency (issue 4) ------------------------------------------------------

PageStatus = Literal["draft", "published", "unpublished"]
PAGE_STATUSES: tuple[PageStatus, ...] = ("draft", "published", "unpublished")
PageSource = Literal["api", "generate"]


@dataclass(frozen=True)
class StoredPage:
    """A landing page as stored: its validated input as JSON plus what the service adds.

    `page_input` is the SitePageInput as plain JSON (a dict), kept exactly as merged so that a
    PATCH (JSON merge patch) applies over it. `version` starts at 1 and grows by one per write.
    """

    slug: str
    version: int
    status: PageStatus
    source: PageSource
    page_input: Mapping[str, Any]
    created_at: datetime
    updated_at: datetime
    published_at: datetime | None = None
    hero_image_url: str | None = None
    gate_passed: bool = True
    gate_ruleset: str = ""


@dataclass(frozen=True)
class PageList:
    """One page of a listing, newest first; `next_cursor` is None on the last page."""

    pages: tuple[StoredPage, ...]
    next_cursor: str | None = None


class PageStore(Protocol):
    """Landing pages by slug, with optimistic concurrency on `version`."""

    def get_page(self, slug: str) -> StoredPage | None:
        """The page with this slug, in any status."""

    def list_pages(
        self, *, status: PageStatus | None = None, cursor: str | None = None, limit: int = 50
    ) -> PageList:
        """Pages newest first (by `updated_at`, then slug). Raises: ValueError on a bad cursor."""

    def save_page(self, page: StoredPage, *, expected_version: int) -> StoredPage:
        """Create or replace atomically if the stored version is `expected_version` (0: absent).

        Raises: ConflictError if another write got there first; nothing is changed then.
        """


IDEMPOTENCY_TTL = timedelta(hours=24)
# A request that began but never completed (its process died) frees its key after this.
IDEMPOTENCY_LEASE = timedelta(minutes=5)

IdempotencyState = Literal["new", "in_flight", "replay", "mismatch"]


@dataclass(frozen=True)
class StoredResponse:
    """The first response to an idempotent request, replayed for repeats."""

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class IdempotencyBegin:
    """What `begin` found: go ahead (`new`), wait (`in_flight`), replay, or a different body."""

    state: IdempotencyState
    response: StoredResponse | None = None


class IdempotencyStore(Protocol):
    """Idempotency-Key records, scoped per partner key, kept IDEMPOTENCY_TTL from the first use."""

    def begin(self, *, scope: str, key: str, fingerprint: str, now: datetime) -> IdempotencyBegin:
        """Claim the key for this request fingerprint (atomically), or report what holds it."""

    def complete(
        self, *, scope: str, key: str, fingerprint: str, response: StoredResponse, now: datetime
    ) -> None:
        """Store the first response of a claimed key so repeats replay it."""

    def release(self, *, scope: str, key: str, fingerprint: str) -> None:
        """Give up a claim that produced no response to keep (a crash or a 5xx), so a retry runs."""


# --- jobs, job queue, blobs, tasks (issue 5) -------------------------------------------
# --- signals (issue 6) -----------------------------------------------------------------
# --- oauth (issue 7) -------------------------------------------------------------------

OAuthTokenKind = Literal["access", "refresh"]


@dataclass(frozen=True)
class OAuthClientRecord:
    """A registered OAuth client: its RFC 7591 information as a JSON document."""

    client_id: str
    information: str
    created_at: datetime


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
    otp_attempts: int = 0
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
    all); `parent_hash` is the refresh token this one replaced.
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


class OAuthStore(Protocol):
    """All state of the built-in authorization server, shared by every process."""

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

    def revoke_grant(self, grant_id: str, *, now: datetime) -> None:
        """Revoke every token of one grant (idempotent)."""

    def count_hit(self, bucket: str, *, window_start: datetime) -> int:
        """Count one hit in `bucket` for the window starting at `window_start`; the new total."""
