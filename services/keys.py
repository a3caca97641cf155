"""Partner key use cases: issue, revoke, verify (the CLI, the served process's start, every
keyed request); parse and hash. Secrets exist only in the caller's hands.

A key reads `fdk_<scope>_<key_id>_<secret>` (the scope may itself hold `_`, as in
`content_admin`); the store keeps the sha256 of the whole key
(keys are 256-bit random, so a fast hash is the right tool, unlike passwords).
Bootstrap keys from the environment are arbitrary strings held only as hashes in memory.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from backends.ports import SCOPES, UNLIMITED, ApiKeyRecord, KeyLimits, KeyStore, Scope
from domain.editors import Editor

PREFIX = "fdk"
BOOTSTRAP_PARTNER = "bootstrap"  # the partner of the keys set in the environment


@dataclass(frozen=True)
class Principal:
    """Who a request authenticated as: never the secret."""

    key_id: str
    partner: str
    scope: Scope
    limits: KeyLimits = UNLIMITED  # what a limited signals key may see

    @property
    def admin(self) -> bool:
        """A `content_admin` key: reads and changes every partner's pages (operators only)."""
        return self.scope == "content_admin"

    @property
    def editor(self) -> Editor:
        """Who writes, as the page and job use cases see it."""
        return Editor(partner=self.partner, key_id=self.key_id, admin=self.admin)


def hash_key(raw: str) -> str:
    """The at-rest form of a key."""
    return hashlib.sha256(raw.encode()).hexdigest()


def issue_key(
    *,
    keys: KeyStore,
    partner: str,
    scope: Scope,
    now: datetime,
    bootstrap: bool = False,
    limits: KeyLimits = UNLIMITED,
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
        limits=limits,
    )
    keys.add_key(record)
    return raw, record


def revoke_key(*, keys: KeyStore, key_id: str, now: datetime) -> ApiKeyRecord:
    """Revoke a key by its id; requests with it fail from now on. Raises: NotFoundError."""
    return keys.revoke_key(key_id, now=now)


def replace_bootstrap_keys(
    *, keys: KeyStore, scopes: Sequence[Scope], now: datetime
) -> tuple[dict[Scope, str], list[str]]:
    """Embedded start: a new local key (partner `local`, marked bootstrap) for each scope, and
    the bootstrap keys of earlier starts revoked. Keys issued otherwise are untouched.

    Returns the raw new keys by scope (shown once) and the ids of the keys revoked.
    """
    issued: dict[Scope, str] = {}
    new_ids: set[str] = set()
    for scope in scopes:
        raw, record = issue_key(keys=keys, partner="local", scope=scope, now=now, bootstrap=True)
        issued[scope] = raw
        new_ids.add(record.key_id)
    revoked: list[str] = []
    for old in keys.list_keys():
        if old.bootstrap and old.active and old.key_id not in new_ids:
            revoke_key(keys=keys, key_id=old.key_id, now=now)
            revoked.append(old.key_id)
    return issued, revoked


# What the operator CLI takes as a partner's name (pages and keys are owned by it).
PARTNER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_KEY_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,63}$")  # issued ids are 12 hex digits


def spelled_otherwise(*, keys: KeyStore, partner: str) -> str | None:
    """A known partner name (one with keys, or the environment keys' `bootstrap`) that differs
    from `partner` only in case, or None. Pages belong to a partner by its exact name, so a key
    for `ACME` would be a stranger to `acme`'s pages."""
    known = {record.partner for record in keys.list_keys()} | {BOOTSTRAP_PARTNER}
    folded = partner.casefold()
    return next(
        (name for name in sorted(known) if name != partner and name.casefold() == folded), None
    )


def parse_key_id(raw: str) -> tuple[Scope, str] | None:
    """The scope and key id a presented key names, or None if it is not one of ours."""
    # Longest scope first: `content_admin` before `content`.
    for scope in sorted(SCOPES, key=len, reverse=True):
        head = f"{PREFIX}_{scope}_"
        if raw.startswith(head):
            key_id, sep, secret = raw[len(head) :].partition("_")
            # An id no key can have never reaches the store: Firestore refuses `..` or `a/b`
            # as a document id with an error that is no "not found".
            return (scope, key_id) if sep and _KEY_ID.match(key_id) and secret else None
    return None


def key_id_named(argument: str) -> str | None:
    """The key id an operator names: a key id as `keys list` shows it, or a whole key (which
    carries its id); None when no key could have it."""
    parsed = parse_key_id(argument)
    if parsed is not None:
        return parsed[1]
    return argument if _KEY_ID.match(argument) else None


def generate_raw_key(scope: Scope) -> str:
    """A fresh bootstrap-style key for embedded mode."""
    return f"{PREFIX}_{scope}_local_{secrets.token_urlsafe(32)}"


class KeyRing:
    """Verifies a presented key against the bootstrap hashes and the key store."""

    def __init__(self, store: KeyStore, bootstrap: Mapping[Scope, str]) -> None:
        self._store = store
        self._bootstrap: dict[str, str] = {scope: hash_key(raw) for scope, raw in bootstrap.items()}
        self._environment: dict[Scope, Principal] = {}  # who each environment key is, once read

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
            if boot is not None and hmac.compare_digest(presented.encode(), boot.encode()):
                return self._environment_principal(accepted, raw, presented)
        parsed = parse_key_id(raw)
        if parsed is None or parsed[0] not in (scope, *also):
            return None
        record = self._store.get_key(parsed[1])
        if record is None or not record.active or record.scope != parsed[0]:
            return None
        if not hmac.compare_digest(presented.encode(), record.secret_hash.encode()):
            return None
        return Principal(
            key_id=record.key_id, partner=record.partner, scope=record.scope, limits=record.limits
        )

    def _environment_principal(self, scope: Scope, raw: str, presented: str) -> Principal:
        """Who an environment key is: partner `bootstrap`, unless it is a stored key (a start's
        printed key, exported as README suggests), which stays the partner and key id it had,
        revoked by a later start or not, so its pages and Idempotency-Keys stay its own. Read
        once per scope and process."""
        known = self._environment.get(scope)
        if known is None:
            parsed = parse_key_id(raw)
            record = self._store.get_key(parsed[1]) if parsed and parsed[0] == scope else None
            if record is not None and hmac.compare_digest(
                presented.encode(), record.secret_hash.encode()
            ):
                known = Principal(
                    key_id=record.key_id, partner=record.partner, scope=scope, limits=record.limits
                )
            else:
                known = Principal(key_id=f"env-{scope}", partner=BOOTSTRAP_PARTNER, scope=scope)
            self._environment[scope] = known
        return known
