"""SqliteIdempotencyStore: Idempotency-Key records in the embedded database."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

from backends.embedded.sqlite import SqliteDatabase
from backends.ports import (
    IDEMPOTENCY_LEASE,
    IDEMPOTENCY_TTL,
    IdempotencyBegin,
    StoredResponse,
    entry_id,
)

_DDL = """
CREATE TABLE IF NOT EXISTS idempotency_keys (
    id TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL,
    status INTEGER,
    headers TEXT,
    body BLOB,
    started_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
"""


class SqliteIdempotencyStore:
    """IdempotencyStore on SQLite; `begin` reads and claims in one IMMEDIATE transaction."""

    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db
        db.ensure_schema("idempotency_keys", _DDL)

    def begin(self, *, scope: str, key: str, fingerprint: str, now: datetime) -> IdempotencyBegin:
        ident = entry_id(scope, key)
        with self._db.transaction() as conn:
            row = conn.execute("SELECT * FROM idempotency_keys WHERE id = ?", (ident,)).fetchone()
            found = _found(row, fingerprint=fingerprint, now=now) if row else None
            if found is not None:
                return found
            conn.execute(
                "INSERT OR REPLACE INTO idempotency_keys"
                " VALUES (?, ?, 'in_flight', NULL, NULL, NULL, ?, ?)",
                (ident, fingerprint, _stamp(now), _stamp(now + IDEMPOTENCY_TTL)),
            )
        return IdempotencyBegin(state="new")

    def complete(
        self, *, scope: str, key: str, fingerprint: str, response: StoredResponse, now: datetime
    ) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE idempotency_keys SET state = 'done', status = ?, headers = ?, body = ?"
                " WHERE id = ? AND fingerprint = ?",
                (
                    response.status,
                    json.dumps(response.headers),
                    response.body,
                    entry_id(scope, key),
                    fingerprint,
                ),
            )

    def release(self, *, scope: str, key: str, fingerprint: str) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "DELETE FROM idempotency_keys"
                " WHERE id = ? AND fingerprint = ? AND state = 'in_flight'",
                (entry_id(scope, key), fingerprint),
            )


def _found(row: sqlite3.Row, *, fingerprint: str, now: datetime) -> IdempotencyBegin | None:
    """What an existing row means now; None when it has expired or its claim lapsed."""
    if datetime.fromisoformat(row["expires_at"]) <= now:
        return None
    if row["fingerprint"] != fingerprint:
        return IdempotencyBegin(state="mismatch")
    if row["state"] == "in_flight":
        if datetime.fromisoformat(row["started_at"]) + IDEMPOTENCY_LEASE <= now:
            return None
        return IdempotencyBegin(state="in_flight")
    headers = tuple((str(name), str(value)) for name, value in json.loads(row["headers"]))
    return IdempotencyBegin(
        state="replay",
        response=StoredResponse(status=row["status"], body=bytes(row["body"]), headers=headers),
    )


def _stamp(when: datetime) -> str:
    return when.astimezone(UTC).isoformat()
