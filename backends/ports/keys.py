"""API keys: stored hashed, so a leaked store leaks no key; one scope each (domain/scopes.py).

Protocols and value types only; nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from domain.scopes import Scope


@dataclass(frozen=True)
class KeyLimits:
    """What a signals key may see (empty: no limit of that kind): event types, sources, and
    with `own_pages` only events on the pages its partner owns in the Content API."""

    types: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    own_pages: bool = False

    @property
    def limited(self) -> bool:
        """Whether any limit applies."""
        return bool(self.types or self.sources or self.own_pages)

    def describe(self) -> str:
        """One line for `keys list`: `types=lead_form sources=site own-pages`, or ``."""
        parts = []
        if self.types:
            parts.append("types=" + ",".join(self.types))
        if self.sources:
            parts.append("sources=" + ",".join(self.sources))
        if self.own_pages:
            parts.append("own-pages")
        return " ".join(parts)


UNLIMITED = KeyLimits()


@dataclass(frozen=True)
class ApiKeyRecord:
    """A partner key as stored: the secret only as its hash."""

    key_id: str
    partner: str
    scope: Scope
    secret_hash: str
    created_at: datetime
    revoked_at: datetime | None = None
    # Issued by a `make run` start (not the environment, not the CLI): the next start that
    # prints new keys revokes it.
    bootstrap: bool = False
    limits: KeyLimits = UNLIMITED

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
