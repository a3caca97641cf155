"""SqliteVariantStore: a page's variants (one row per slug and variant id) and its allocation
(one row per slug) in the embedded database; each write checks the version in its transaction.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

from backends.embedded.sqlite import SqliteDatabase
from backends.ports import ConflictError, StoredAllocation, StoredVariant, VariantLimitError

_DDL = """
CREATE TABLE IF NOT EXISTS page_variants (
    slug TEXT NOT NULL, variant_id TEXT NOT NULL, version INTEGER NOT NULL,
    page_input TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    gate_ruleset TEXT NOT NULL, editor TEXT NOT NULL, editor_key_id TEXT NOT NULL,
    start_at TEXT,
    PRIMARY KEY (slug, variant_id)
);
CREATE TABLE IF NOT EXISTS page_allocations (
    slug TEXT PRIMARY KEY, version INTEGER NOT NULL, mode TEXT NOT NULL, shares TEXT NOT NULL,
    updated_at TEXT NOT NULL, editor TEXT NOT NULL, editor_key_id TEXT NOT NULL
);
"""
_SAVE_VARIANT = (
    "INSERT OR REPLACE INTO page_variants (slug, variant_id, version, page_input, created_at,"
    " updated_at, gate_ruleset, editor, editor_key_id, start_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_SAVE_ALLOCATION = (
    "INSERT OR REPLACE INTO page_allocations (slug, version, mode, shares, updated_at, editor,"
    " editor_key_id) VALUES (?, ?, ?, ?, ?, ?, ?)"
)


class SqliteVariantStore:
    """VariantStore on SQLite; the version check and the write share one IMMEDIATE transaction."""

    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db
        db.ensure_schema("variants", _DDL)
        _add_start_column(db)

    def get_variant(self, slug: str, variant_id: str) -> StoredVariant | None:
        row = (
            self._db.connection()
            .execute(
                "SELECT * FROM page_variants WHERE slug = ? AND variant_id = ?", (slug, variant_id)
            )
            .fetchone()
        )
        return _variant(row) if row else None

    def list_variants(self, slug: str) -> tuple[StoredVariant, ...]:
        rows = (
            self._db.connection()
            .execute("SELECT * FROM page_variants WHERE slug = ? ORDER BY variant_id", (slug,))
            .fetchall()
        )
        return tuple(_variant(row) for row in rows)

    def save_variant(
        self, variant: StoredVariant, *, expected_version: int, limit: int
    ) -> StoredVariant:
        with self._db.transaction() as conn:
            current = _version_of(
                conn,
                "SELECT version FROM page_variants WHERE slug = ? AND variant_id = ?",
                (variant.slug, variant.variant_id),
            )
            if current != expected_version:
                raise ConflictError(
                    f"{variant.slug}/{variant.variant_id}: version {current},"
                    f" expected {expected_version}"
                )
            if current == 0:
                count = conn.execute(
                    "SELECT COUNT(*) AS n FROM page_variants WHERE slug = ?", (variant.slug,)
                ).fetchone()
                if int(count["n"]) >= limit:
                    raise VariantLimitError(variant.slug, limit=limit)
            conn.execute(
                _SAVE_VARIANT,
                (
                    variant.slug,
                    variant.variant_id,
                    variant.version,
                    json.dumps(variant.page_input, ensure_ascii=False),
                    _stamp(variant.created_at),
                    _stamp(variant.updated_at),
                    variant.gate_ruleset,
                    variant.editor,
                    variant.editor_key_id,
                    None if variant.start_at is None else _stamp(variant.start_at),
                ),
            )
        return variant

    def delete_variant(self, slug: str, variant_id: str, *, expected_version: int) -> None:
        with self._db.transaction() as conn:
            current = _version_of(
                conn,
                "SELECT version FROM page_variants WHERE slug = ? AND variant_id = ?",
                (slug, variant_id),
            )
            if current == 0 or current != expected_version:
                raise ConflictError(
                    f"{slug}/{variant_id}: version {current}, expected {expected_version}"
                )
            conn.execute(
                "DELETE FROM page_variants WHERE slug = ? AND variant_id = ?", (slug, variant_id)
            )

    def get_allocation(self, slug: str) -> StoredAllocation | None:
        row = (
            self._db.connection()
            .execute("SELECT * FROM page_allocations WHERE slug = ?", (slug,))
            .fetchone()
        )
        return _allocation(row) if row else None

    def save_allocation(
        self, allocation: StoredAllocation, *, expected_version: int
    ) -> StoredAllocation:
        with self._db.transaction() as conn:
            current = _version_of(
                conn, "SELECT version FROM page_allocations WHERE slug = ?", (allocation.slug,)
            )
            if current != expected_version:
                raise ConflictError(
                    f"{allocation.slug}: allocation version {current}, expected {expected_version}"
                )
            conn.execute(
                _SAVE_ALLOCATION,
                (
                    allocation.slug,
                    allocation.version,
                    allocation.mode,
                    json.dumps(dict(allocation.shares)),
                    _stamp(allocation.updated_at),
                    allocation.editor,
                    allocation.editor_key_id,
                ),
            )
        return allocation


def _version_of(conn: sqlite3.Connection, sql: str, args: tuple[str, ...]) -> int:
    row = conn.execute(sql, args).fetchone()
    return int(row["version"]) if row else 0


def _stamp(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _variant(row: sqlite3.Row) -> StoredVariant:
    return StoredVariant(
        slug=row["slug"],
        variant_id=row["variant_id"],
        version=int(row["version"]),
        page_input=json.loads(row["page_input"]),
        created_at=datetime.fromisoformat(row["created_at"]),
        updated_at=datetime.fromisoformat(row["updated_at"]),
        gate_ruleset=row["gate_ruleset"],
        editor=row["editor"],
        editor_key_id=row["editor_key_id"],
        start_at=datetime.fromisoformat(row["start_at"]) if row["start_at"] else None,
    )


def _add_start_column(db: SqliteDatabase) -> None:
    """A data file from before variants could wait for a start gets the column (none wait)."""
    if _has_start(db.connection()):
        return
    with db.transaction() as conn:
        if not _has_start(conn):
            conn.execute("ALTER TABLE page_variants ADD COLUMN start_at TEXT")


def _has_start(conn: sqlite3.Connection) -> bool:
    columns = conn.execute("PRAGMA table_info(page_variants)").fetchall()
    return any(row["name"] == "start_at" for row in columns)


def _allocation(row: sqlite3.Row) -> StoredAllocation:
    return StoredAllocation(
        slug=row["slug"],
        version=int(row["version"]),
        mode=row["mode"],
        shares=json.loads(row["shares"]),
        updated_at=datetime.fromisoformat(row["updated_at"]),
        editor=row["editor"],
        editor_key_id=row["editor_key_id"],
    )
