"""SqliteOAuthStore: the built-in authorization server's state in the embedded database.

Expired rows are purged on later writes: at most once per `purge_every`, at most
`purge_limit` rows per table, so a write never pays for a large backlog at once.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import asdict, fields
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from backends.clock import utc_now
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import (
    AuthorizationCodeRecord,
    ConflictError,
    NotFoundError,
    OAuthClientRecord,
    OAuthTokenRecord,
    PendingAuthorization,
)

_DDL = """
CREATE TABLE IF NOT EXISTS oauth_clients (client_id TEXT PRIMARY KEY, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS oauth_pending (tx_id TEXT PRIMARY KEY, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS oauth_codes (
    code_hash TEXT PRIMARY KEY, used_at TEXT, doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS oauth_tokens (
    token_hash TEXT PRIMARY KEY,
    grant_id TEXT NOT NULL,
    revoked_at TEXT,
    doc TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS oauth_tokens_grant ON oauth_tokens (grant_id);
CREATE TABLE IF NOT EXISTS oauth_hits (
    bucket TEXT NOT NULL, window_start TEXT NOT NULL, hits INTEGER NOT NULL,
    PRIMARY KEY (bucket, window_start)
);
CREATE INDEX IF NOT EXISTS oauth_hits_window ON oauth_hits (window_start);
"""
# Tables whose document carries `expires_at` (UTC ISO 8601, so text order is time order),
# each with an index on it so the purge does not scan.
_EXPIRING = ("oauth_clients", "oauth_pending", "oauth_codes", "oauth_tokens")
_EXPIRY = "json_extract(doc, '$.expires_at')"
_DDL += "".join(f"CREATE INDEX IF NOT EXISTS {t}_expiry ON {t} ({_EXPIRY});\n" for t in _EXPIRING)
# Rate-limit windows are at most a day long (OAuthStore.count_hit).
HIT_RETENTION = timedelta(days=1)

R = TypeVar("R")


class SqliteOAuthStore:
    """OAuthStore on SQLite: one JSON document per row, keyed columns for the writes."""

    def __init__(
        self,
        db: SqliteDatabase,
        *,
        clock: Callable[[], datetime] = utc_now,
        purge_every: timedelta = timedelta(minutes=1),
        purge_limit: int = 500,
    ) -> None:
        self._db = db
        self._clock = clock
        self._purge_every = purge_every
        self._purge_limit = purge_limit
        self._next_purge: datetime | None = None
        db.ensure_schema("oauth", _DDL)

    def purge_expired(self) -> int:
        """Delete up to `purge_limit` expired rows per table; how many went."""
        now = self._clock().astimezone(UTC)
        cutoffs = [(table, _EXPIRY, now) for table in _EXPIRING]
        cutoffs.append(("oauth_hits", "window_start", now - HIT_RETENTION))
        deleted = 0
        with self._db.transaction() as conn:
            for table, column, cutoff in cutoffs:
                deleted += conn.execute(
                    f"DELETE FROM {table} WHERE rowid IN "  # noqa: S608  # fixed names
                    f"(SELECT rowid FROM {table} WHERE {column} < ? LIMIT ?)",
                    (cutoff.isoformat(), self._purge_limit),
                ).rowcount
        return deleted

    def _after_write(self) -> None:
        """Purge now and then: writes are where rows pile up, reads stay untouched."""
        now = self._clock()
        if self._next_purge is not None and now < self._next_purge:
            return
        self._next_purge = now + self._purge_every
        self.purge_expired()

    def save_client(self, record: OAuthClientRecord) -> None:
        self._upsert("oauth_clients", "client_id", record.client_id, record)
        self._after_write()

    def get_client(self, client_id: str) -> OAuthClientRecord | None:
        return self._get("oauth_clients", "client_id", client_id, OAuthClientRecord)

    def save_pending(self, pending: PendingAuthorization) -> None:
        self._upsert("oauth_pending", "tx_id", pending.tx_id, pending)
        self._after_write()

    def get_pending(self, tx_id: str) -> PendingAuthorization | None:
        return self._get("oauth_pending", "tx_id", tx_id, PendingAuthorization)

    def delete_pending(self, tx_id: str) -> None:
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM oauth_pending WHERE tx_id = ?", (tx_id,))

    def add_code(self, record: AuthorizationCodeRecord) -> None:
        try:
            with self._db.transaction() as conn:
                conn.execute(
                    "INSERT INTO oauth_codes VALUES (?, NULL, ?)",
                    (record.code_hash, _dump(record)),
                )
        except sqlite3.IntegrityError as err:
            raise ConflictError(record.code_hash) from err
        self._after_write()

    def get_code(self, code_hash: str) -> AuthorizationCodeRecord | None:
        row = (
            self._db.connection()
            .execute("SELECT used_at, doc FROM oauth_codes WHERE code_hash = ?", (code_hash,))
            .fetchone()
        )
        return _code(row) if row else None

    def use_code(self, code_hash: str, *, now: datetime) -> AuthorizationCodeRecord:
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT used_at, doc FROM oauth_codes WHERE code_hash = ?", (code_hash,)
            ).fetchone()
            if row is None:
                raise NotFoundError(code_hash)
            if row["used_at"] is not None:
                raise ConflictError(code_hash)
            conn.execute(
                "UPDATE oauth_codes SET used_at = ? WHERE code_hash = ?",
                (_iso(now), code_hash),
            )
        return _code({"used_at": _iso(now), "doc": row["doc"]})

    def add_token(self, record: OAuthTokenRecord) -> None:
        try:
            with self._db.transaction() as conn:
                conn.execute(
                    "INSERT INTO oauth_tokens VALUES (?, ?, NULL, ?)",
                    (record.token_hash, record.grant_id, _dump(record)),
                )
        except sqlite3.IntegrityError as err:
            raise ConflictError(record.token_hash) from err
        self._after_write()

    def get_token(self, token_hash: str) -> OAuthTokenRecord | None:
        row = (
            self._db.connection()
            .execute("SELECT revoked_at, doc FROM oauth_tokens WHERE token_hash = ?", (token_hash,))
            .fetchone()
        )
        if row is None:
            return None
        doc = json.loads(row["doc"])
        doc["revoked_at"] = row["revoked_at"]
        return _load(OAuthTokenRecord, doc)

    def revoke_token(self, token_hash: str, *, now: datetime) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE oauth_tokens SET revoked_at = ? "
                "WHERE token_hash = ? AND revoked_at IS NULL",
                (_iso(now), token_hash),
            )

    def replace_token(self, token_hash: str, *, now: datetime, replacement: str) -> None:
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT revoked_at, doc FROM oauth_tokens WHERE token_hash = ?", (token_hash,)
            ).fetchone()
            if row is None:
                raise NotFoundError(token_hash)
            if row["revoked_at"] is not None:
                raise ConflictError(token_hash)
            doc = {**json.loads(row["doc"]), "replaced_at": _iso(now), "replacement": replacement}
            conn.execute(
                "UPDATE oauth_tokens SET revoked_at = ?, doc = ? WHERE token_hash = ?",
                (_iso(now), json.dumps(doc), token_hash),
            )

    def revoke_grant(self, grant_id: str, *, now: datetime) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE oauth_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL",
                (_iso(now), grant_id),
            )

    def count_hit(self, bucket: str, *, window_start: datetime) -> int:
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO oauth_hits VALUES (?, ?, 1) ON CONFLICT (bucket, window_start) "
                "DO UPDATE SET hits = hits + 1",
                (bucket, _iso(window_start)),
            )
            row = conn.execute(
                "SELECT hits FROM oauth_hits WHERE bucket = ? AND window_start = ?",
                (bucket, _iso(window_start)),
            ).fetchone()
        hits: int = row["hits"]
        self._after_write()
        return hits

    def _upsert(self, table: str, key: str, value: str, record: object) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                f"INSERT INTO {table} ({key}, doc) VALUES (?, ?) "  # noqa: S608  # fixed names
                f"ON CONFLICT ({key}) DO UPDATE SET doc = excluded.doc",
                (value, _dump(record)),
            )

    def _get(self, table: str, key: str, value: str, kind: type[R]) -> R | None:
        row = (
            self._db.connection()
            .execute(f"SELECT doc FROM {table} WHERE {key} = ?", (value,))  # noqa: S608  # fixed names
            .fetchone()
        )
        return _load(kind, json.loads(row["doc"])) if row else None


def _dump(record: object) -> str:
    doc = asdict(record)  # type: ignore[call-overload]  # always one of the port's dataclasses
    return json.dumps({k: _iso(v) if isinstance(v, datetime) else v for k, v in doc.items()})


def _iso(value: datetime) -> str:
    """UTC, so that stored times sort as text (the purge compares them in SQL)."""
    return (value.astimezone(UTC) if value.tzinfo is not None else value).isoformat()


def _load(kind: type[R], doc: dict[str, Any]) -> R:
    """Rebuild a port dataclass: ISO strings back to datetimes, lists back to tuples."""
    values: dict[str, Any] = {}
    for f in fields(kind):  # type: ignore[arg-type]  # always one of the port's dataclasses
        value = doc.get(f.name)
        if isinstance(value, str) and f.name.endswith(("_at",)):
            value = datetime.fromisoformat(value)
        elif isinstance(value, list):
            value = tuple(value)
        if f.name in doc or value is not None:
            values[f.name] = value
    return kind(**values)


def _code(row: sqlite3.Row | dict[str, Any]) -> AuthorizationCodeRecord:
    doc = json.loads(row["doc"])
    doc["used_at"] = row["used_at"]
    return _load(AuthorizationCodeRecord, doc)
