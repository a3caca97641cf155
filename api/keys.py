"""Partner keys: issue, parse, hash and verify. Secrets exist only in the caller's hands.

A key reads `fdk_<scope>_<key_id>_<secret>`; the store keeps the sha256 of the whole key
(keys are 256-bit random, so a fast hash is the right tool, unlike passwords).
Bootstrap keys from the environment are arbitrary strings held only as hashes in memory.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from backends.ports import SCOPES, ApiKeyRecord, KeyStore, Scope

PREFIX = "fdk"


@dataclass(frozen=True)
class Principal:
    """Who a request authenticated as: never the secret."""

    key_id: str
    partner: str
    scope: Scope


def hash_key(raw: str) -> str:
    """The at-rest form of a key."""
    return hashlib.sha256(raw.encode()).hexdigest()


def issue_key(
    store: KeyStore, *, partner: str, scope: Scope, now: datetime
) -> tuple[str, ApiKeyRecord]:
    """Create and store a new key; the raw key is returned once and never stored."""
    key_id = secrets.token_hex(6)
    raw = f"{PREFIX}_{scope}_{key_id}_{secrets.token_urlsafe(32)}"
    record = ApiKeyRecord(
        key_id=key_id, partner=partner, scope=scope, secret_hash=hash_key(raw), created_at=now
    )
    store.add_key(record)
    return raw, record


def generate_raw_key(scope: Scope) -> str:
    """A fresh bootstrap-style key for embedded mode."""
    return f"{PREFIX}_{scope}_local_{secrets.token_urlsafe(32)}"


class KeyRing:
    """Verifies a presented key against the bootstrap hashes and the key store."""

    def __init__(self, store: KeyStore, bootstrap: Mapping[Scope, str]) -> None:
        self._store = store
        self._bootstrap = {scope: hash_key(raw) for scope, raw in bootstrap.items()}

    def authenticate(self, raw: str | None, scope: Scope) -> Principal | None:
        """The principal for a key of this scope; None if missing, wrong, revoked or other-scope."""
        if not raw:
            return None
        presented = hash_key(raw)
        boot = self._bootstrap.get(scope)
        if boot is not None and hmac.compare_digest(presented, boot):
            return Principal(key_id=f"env-{scope}", partner="bootstrap", scope=scope)
        parts = raw.split("_", 3)
        if len(parts) != 4 or parts[0] != PREFIX or parts[1] not in SCOPES:
            return None
        record = self._store.get_key(parts[2])
        if record is None or not record.active or record.scope != scope:
            return None
        if not hmac.compare_digest(presented, record.secret_hash):
            return None
        return Principal(key_id=record.key_id, partner=record.partner, scope=record.scope)
