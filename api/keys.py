"""Partner keys: issue, parse, hash and verify. Secrets exist only in the caller's hands.

A key reads `fdk_<scope>_<key_id>_<secret>` (the scope may itself hold `_`, as in
`content_admin`); the store keeps the sha256 of the whole key
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

    @property
    def admin(self) -> bool:
        """A `content_admin` key: reads and changes every partner's pages (issue 14)."""
        return self.scope == "content_admin"


def hash_key(raw: str) -> str:
    """The at-rest form of a key."""
    return hashlib.sha256(raw.encode()).hexdigest()


def issue_key(
    store: KeyStore, *, partner: str, scope: Scope, now: datetime, bootstrap: bool = False
) -> tuple[str, ApiKeyRecord]:
    """Create and store a new key; the raw key is returned once and never stored."""
    key_id = secrets.token_hex(6)
    raw = f"{PREFIX}_{scope}_{key_id}_{secrets.token_urlsafe(32)}"
    record = ApiKeyRecord(
        key_id=key_id,
        partner=partner,
        scope=scope,
        secret_hash=hash_key(raw),
        created_at=now,
        bootstrap=bootstrap,
    )
    store.add_key(record)
    return raw, record


def parse_key_id(raw: str) -> tuple[Scope, str] | None:
    """The scope and key id a presented key names, or None if it is not one of ours."""
    # Longest scope first: `content_admin` before `content`.
    for scope in sorted(SCOPES, key=len, reverse=True):
        head = f"{PREFIX}_{scope}_"
        if raw.startswith(head):
            key_id, sep, secret = raw[len(head) :].partition("_")
            return (scope, key_id) if sep and key_id and secret else None
    return None


def generate_raw_key(scope: Scope) -> str:
    """A fresh bootstrap-style key for embedded mode."""
    return f"{PREFIX}_{scope}_local_{secrets.token_urlsafe(32)}"


class KeyRing:
    """Verifies a presented key against the bootstrap hashes and the key store."""

    def __init__(self, store: KeyStore, bootstrap: Mapping[Scope, str]) -> None:
        self._store = store
        self._bootstrap: dict[str, str] = {scope: hash_key(raw) for scope, raw in bootstrap.items()}

    def authenticate(
        self, raw: str | None, scope: Scope, *, also: tuple[Scope, ...] = ()
    ) -> Principal | None:
        """The principal for a key of this scope (or one of `also`); None if missing, wrong,
        revoked or of another scope."""
        if not raw:
            return None
        presented = hash_key(raw)
        for accepted in (scope, *also):
            boot = self._bootstrap.get(accepted)
            if boot is not None and hmac.compare_digest(presented, boot):
                return Principal(key_id=f"env-{accepted}", partner="bootstrap", scope=accepted)
        parsed = parse_key_id(raw)
        if parsed is None or parsed[0] not in (scope, *also):
            return None
        record = self._store.get_key(parsed[1])
        if record is None or not record.active or record.scope != parsed[0]:
            return None
        if not hmac.compare_digest(presented, record.secret_hash):
            return None
        return Principal(key_id=record.key_id, partner=record.partner, scope=record.scope)
