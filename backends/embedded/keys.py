"""SqliteKeyStore: partner keys in the embedded database."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime

from backends.embedded.sqlite import SqliteDatabase
from backends.ports import ApiKeyRecord, ConflictError, KeyLimits, NotFoundError, Scope

_DDL = """
CREATE TABLE IF NOT EXISTS api_keys (
    key_id TEXT PRIMARY KEY,
    partner TEXT NOT NULL,
    scope TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
"""


class SqliteKeyStore:
    """KeyStore on SQLite."""

    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db
        db.ensure_schema("api_keys", _DDL)
        _add_bootstrap_column(db)
        _add_limits_column(db)

    def add_key(self, record: ApiKeyRecord) -> None:
        try:
            with self._db.transaction() as conn:
                conn.execute(
                    "INSERT INTO api_keys (key_id, partner, scope, secret_hash, created_at,"
                    " revoked_at, bootstrap, limits) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        record.key_id,
                        record.partner,
                        record.scope,
                        record.secret_hash,
                        record.created_at.isoformat(),
                        record.revoked_at.isoformat() if record.revoked_at else None,
                        int(record.bootstrap),
                        _limits_json(record.limits),
                    ),
                )
        except sqlite3.IntegrityError as err:
            raise ConflictError(record.key_id) from err

    def get_key(self, key_id: str) -> ApiKeyRecord | None:
        row = (
            self._db.connection()
            .execute("SELECT * FROM api_keys WHERE key_id = ?", (key_id,))
            .fetchone()
        )
        return _record(row) if row else None

    def revoke_key(self, key_id: str, *, now: datetime) -> ApiKeyRecord:
        with self._db.transaction() as conn:
            row = conn.execute("SELECT * FROM api_keys WHERE key_id = ?", (key_id,)).fetchone()
            if row is None:
                raise NotFoundError(key_id)
            if row["revoked_at"] is None:
                conn.execute(
                    "UPDATE api_keys SET revoked_at = ? WHERE key_id = ?", (now.isoformat(), key_id)
                )
        found = self.get_key(key_id)
        assert found is not None  # noqa: S101  # just read inside the transaction above
        return found

    def list_keys(self) -> list[ApiKeyRecord]:
        rows = (
            self._db.connection()
            .execute("SELECT * FROM api_keys ORDER BY created_at, key_id")
            .fetchall()
        )
        return [_record(row) for row in rows]


def _record(row: sqlite3.Row) -> ApiKeyRecord:
    scope: Scope = row["scope"]
    return ApiKeyRecord(
        key_id=row["key_id"],
        partner=row["partner"],
        scope=scope,
        secret_hash=row["secret_hash"],
        created_at=datetime.fromisoformat(row["created_at"]),
        revoked_at=datetime.fromisoformat(row["revoked_at"]) if row["revoked_at"] else None,
        bootstrap=bool(row["bootstrap"]),
        limits=_limits(row["limits"]),
    )


def _limits_json(limits: KeyLimits) -> str | None:
    if not limits.limited:
        return None
    return json.dumps(
        {"types": limits.types, "sources": limits.sources, "own_pages": limits.own_pages}
    )


def _limits(raw: str | None) -> KeyLimits:
    if not raw:
        return KeyLimits()
    held = json.loads(raw)
    return KeyLimits(
        types=tuple(held["types"]), sources=tuple(held["sources"]), own_pages=held["own_pages"]
    )


def _add_limits_column(db: SqliteDatabase) -> None:
    """A data file from before limited keys gets the column; its keys stay unlimited."""
    if _has_column(db.connection(), "limits"):
        return
    with db.transaction() as conn:
        if not _has_column(conn, "limits"):
            conn.execute("ALTER TABLE api_keys ADD COLUMN limits TEXT")


def _has_column(conn: sqlite3.Connection, name: str) -> bool:
    return any(row["name"] == name for row in conn.execute("PRAGMA table_info(api_keys)"))


def _add_bootstrap_column(db: SqliteDatabase) -> None:
    """A data file from before bootstrap keys were marked gets the column. Its keys of partner
    `local` are what earlier `make run` starts printed (frontdoor/serve.py), so they count as
    bootstrap keys."""
    if _has_bootstrap(db.connection()):
        return
    with db.transaction() as conn:
        if not _has_bootstrap(conn):
            conn.execute("ALTER TABLE api_keys ADD COLUMN bootstrap INTEGER NOT NULL DEFAULT 0")
            conn.execute("UPDATE api_keys SET bootstrap = 1 WHERE partner = 'local'")


def _has_bootstrap(conn: sqlite3.Connection) -> bool:
    rows = conn.execute("PRAGMA table_info(api_keys)").fetchall()
    return any(row["name"] == "bootstrap" for row in rows)
