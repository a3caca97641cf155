"""SqliteSuppressionStore: erased addresses as keyed hashes in the embedded database."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from backends.embedded.sqlite import SqliteDatabase
from schemas.signals.suppression import address_digest

_DDL = """
CREATE TABLE IF NOT EXISTS signal_suppressions (
    digest TEXT PRIMARY KEY,
    suppressed_at TEXT NOT NULL
);
"""
_CHUNK = 500  # bound parameters per lookup, well under SQLite's limit


class SqliteSuppressionStore:
    """SuppressionStore on SQLite: one row per held address, keyed by its HMAC."""

    def __init__(self, db: SqliteDatabase, *, key: bytes) -> None:
        self._db = db
        self._key = key
        db.ensure_schema("signal_suppressions", _DDL)

    def suppress(self, email: str, *, now: datetime) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO signal_suppressions (digest, suppressed_at) VALUES (?, ?)",
                (address_digest(email, key=self._key), now.isoformat()),
            )

    def lift(self, email: str) -> bool:
        with self._db.transaction() as conn:
            cursor = conn.execute(
                "DELETE FROM signal_suppressions WHERE digest = ?",
                (address_digest(email, key=self._key),),
            )
            return cursor.rowcount > 0

    def suppressed(self, emails: Collection[str]) -> set[str]:
        by_digest = {address_digest(e, key=self._key): e for e in set(emails)}
        digests = list(by_digest)
        held: set[str] = set()
        conn = self._db.connection()
        for start in range(0, len(digests), _CHUNK):
            chunk = digests[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = conn.execute(
                f"SELECT digest FROM signal_suppressions WHERE digest IN ({marks})",  # noqa: S608  # only ? placeholders are formatted in
                chunk,
            ).fetchall()
            held |= {by_digest[row[0]] for row in rows}
        return held
