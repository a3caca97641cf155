"""The ports: one small Protocol per need, their value types and the errors adapters raise.

Adapters translate client exceptions into these errors; nothing here does I/O.
Each section belongs to one capability; keep edits inside your section.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

__all__ = [
    "ApiKeyRecord",
    "Cdn",
    "ConflictError",
    "KeyStore",
    "Mailer",
    "NotFoundError",
    "PortError",
    "Scope",
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
# --- jobs, job queue, blobs, tasks (issue 5) -------------------------------------------
# --- signals (issue 6) -----------------------------------------------------------------
# --- oauth (issue 7) -------------------------------------------------------------------
