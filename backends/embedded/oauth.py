"""SqliteOAuthStore: the built-in authorization server's state in the embedded database."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, fields
from datetime import datetime
from typing import Any, TypeVar

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
"""

R = TypeVar("R")


class SqliteOAuthStore:
    """OAuthStore on SQLite: one JSON document per row, keyed columns for the writes."""

    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db
        db.ensure_schema("oauth", _DDL)

    def save_client(self, record: OAuthClientRecord) -> None:
        self._upsert("oauth_clients", "client_id", record.client_id, record)

    def get_client(self, client_id: str) -> OAuthClientRecord | None:
        return self._get("oauth_clients", "client_id", client_id, OAuthClientRecord)

    def save_pending(self, pending: PendingAuthorization) -> None:
        self._upsert("oauth_pending", "tx_id", pending.tx_id, pending)

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
                (now.isoformat(), code_hash),
            )
        return _code({"used_at": now.isoformat(), "doc": row["doc"]})

    def add_token(self, record: OAuthTokenRecord) -> None:
        try:
            with self._db.transaction() as conn:
                conn.execute(
                    "INSERT INTO oauth_tokens VALUES (?, ?, NULL, ?)",
                    (record.token_hash, record.grant_id, _dump(record)),
                )
        except sqlite3.IntegrityError as err:
            raise ConflictError(record.token_hash) from err

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
                (now.isoformat(), token_hash),
            )

    def revoke_grant(self, grant_id: str, *, now: datetime) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE oauth_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL",
                (now.isoformat(), grant_id),
            )

    def count_hit(self, bucket: str, *, window_start: datetime) -> int:
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO oauth_hits VALUES (?, ?, 1) ON CONFLICT (bucket, window_start) "
                "DO UPDATE SET hits = hits + 1",
                (bucket, window_start.isoformat()),
            )
            row = conn.execute(
                "SELECT hits FROM oauth_hits WHERE bucket = ? AND window_start = ?",
                (bucket, window_start.isoformat()),
            ).fetchone()
        hits: int = row["hits"]
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
    return json.dumps({k: v.isoformat() if isinstance(v, datetime) else v for k, v in doc.items()})


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
