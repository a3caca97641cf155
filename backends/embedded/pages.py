"""SqlitePageStore: landing pages in the embedded database, one row per slug, and their history.

Every save writes the page and the same row into `page_versions` in one transaction. Opening a
data file from before pages had owners and history adds the columns (kept data is upgraded in
place, never by hand), gives every page the configured owner, starts each page's history at
its current version, and turns hero image URLs stored absolute on an old base URL into site
paths (`/assets/...`), so they serve right on whatever origin this process is configured with.
"""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import UTC, datetime

from backends.embedded.sqlite import SqliteDatabase
from backends.page_cursor import decode_cursor, decode_version_cursor, encode_cursor
from backends.ports import (
    ConflictError,
    PageList,
    PageStatus,
    QuotaExceededError,
    StoredPage,
    VersionList,
)

_COLUMNS = (
    "slug TEXT NOT NULL, version INTEGER NOT NULL, status TEXT NOT NULL, source TEXT NOT NULL,"
    " page_input TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,"
    " published_at TEXT, hero_image_url TEXT, gate_passed INTEGER NOT NULL,"
    " gate_ruleset TEXT NOT NULL"
)
# Owners and history came after the first data files; ALTER TABLE adds them to an older one.
_OWNERSHIP = {
    "owner": "TEXT NOT NULL DEFAULT ''",
    "editor": "TEXT NOT NULL DEFAULT ''",
    "editor_key_id": "TEXT NOT NULL DEFAULT ''",
    "edit_source": "TEXT NOT NULL DEFAULT 'api'",
}
_NAMES = (
    "slug",
    "version",
    "status",
    "source",
    "page_input",
    "created_at",
    "updated_at",
    "published_at",
    "hero_image_url",
    "gate_passed",
    "gate_ruleset",
    *_OWNERSHIP,
)
_INSERT_COLUMNS = ", ".join(_NAMES)
_PLACEHOLDERS = ", ".join("?" for _ in _NAMES)
# Column names are this module's constants; every value is bound.
_SAVE_PAGE = f"INSERT OR REPLACE INTO pages ({_INSERT_COLUMNS}) VALUES ({_PLACEHOLDERS})"  # noqa: S608  # constant columns
_SAVE_VERSION = f"INSERT OR REPLACE INTO page_versions ({_INSERT_COLUMNS}) VALUES ({_PLACEHOLDERS})"  # noqa: S608  # constant columns
_SEED_VERSIONS = (
    f"INSERT OR IGNORE INTO page_versions ({_INSERT_COLUMNS}) SELECT {_INSERT_COLUMNS} FROM pages"  # noqa: S608  # constant columns
)
_DDL = f"""
CREATE TABLE IF NOT EXISTS pages ({_COLUMNS}, PRIMARY KEY (slug));
CREATE INDEX IF NOT EXISTS pages_newest ON pages (updated_at DESC, slug DESC);
CREATE INDEX IF NOT EXISTS pages_status_newest ON pages (status, updated_at DESC, slug DESC);
CREATE TABLE IF NOT EXISTS page_versions (
    {_COLUMNS}, {", ".join(f"{name} {kind}" for name, kind in _OWNERSHIP.items())},
    PRIMARY KEY (slug, version)
);
"""
_OLD_ASSET_URL = re.compile(r"^https?://[^/]+(/assets/.+)$")
# What each partner's kept versions count against its storage quota, kept with every save.
_USAGE_DDL = (
    "CREATE TABLE IF NOT EXISTS page_usage (owner TEXT PRIMARY KEY, bytes INTEGER NOT NULL)"
)
# A data file from before the quota: count what its versions hold once, when the table is made.
_SEED_USAGE = (
    "INSERT OR IGNORE INTO page_usage (owner, bytes)"
    " SELECT owner, SUM(length(CAST(page_input AS BLOB))) FROM page_versions GROUP BY owner"
)
_FREED_BYTES = (
    "SELECT length(CAST(page_input AS BLOB)) AS size FROM page_versions"
    " WHERE slug = ? AND (version < ? OR version = ?)"
)


class SqlitePageStore:
    """PageStore on SQLite; the version check and the write share one IMMEDIATE transaction."""

    def __init__(
        self,
        db: SqliteDatabase,
        *,
        keep_versions: int = 0,
        quota_bytes: int = 0,
        existing_owner: str = "bootstrap",
    ) -> None:
        self._db = db
        self._keep = keep_versions
        self._quota = quota_bytes
        db.ensure_schema("pages", _DDL)
        _adopt_old_rows(db, existing_owner)
        _count_usage(db)

    def stored_bytes(self, owner: str) -> int:
        row = (
            self._db.connection()
            .execute("SELECT bytes FROM page_usage WHERE owner = ?", (owner,))
            .fetchone()
        )
        return int(row["bytes"]) if row else 0

    def get_page(self, slug: str) -> StoredPage | None:
        row = (
            self._db.connection().execute("SELECT * FROM pages WHERE slug = ?", (slug,)).fetchone()
        )
        return _page(row) if row else None

    def list_pages(
        self,
        *,
        status: PageStatus | None = None,
        cursor: str | None = None,
        limit: int = 50,
        owner: str | None = None,
    ) -> PageList:
        where: list[str] = []
        args: list[object] = []
        if owner is not None:
            where.append("owner = ?")
            args.append(owner)
        if status is not None:
            where.append("status = ?")
            args.append(status)
        if cursor is not None:
            after, slug = decode_cursor(cursor)
            where.append("(updated_at < ? OR (updated_at = ? AND slug < ?))")
            args += [_stamp(after), _stamp(after), slug]
        sql = "SELECT * FROM pages"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY updated_at DESC, slug DESC LIMIT ?"
        rows = self._db.connection().execute(sql, [*args, limit + 1]).fetchall()
        pages = tuple(_page(row) for row in rows[:limit])
        more = len(rows) > limit
        return PageList(
            pages=pages,
            next_cursor=encode_cursor(pages[-1].updated_at, pages[-1].slug) if more else None,
        )

    def save_page(self, page: StoredPage, *, expected_version: int) -> StoredPage:
        with self._db.transaction() as conn:
            row = conn.execute("SELECT version FROM pages WHERE slug = ?", (page.slug,)).fetchone()
            current = row["version"] if row else 0
            if current != expected_version:
                raise ConflictError(f"{page.slug}: version {current}, expected {expected_version}")
            values = _row(page)
            oldest_kept = page.version - self._keep + 1 if self._keep else 0
            # The bytes this write adds, less the versions it deletes or replaces.
            freed = conn.execute(_FREED_BYTES, (page.slug, oldest_kept, page.version)).fetchall()
            delta = len(str(values[4]).encode()) - sum(int(r["size"]) for r in freed)
            self._check_quota(conn, page.owner, delta)
            conn.execute(_SAVE_PAGE, values)
            conn.execute(_SAVE_VERSION, values)
            if self._keep:
                conn.execute(
                    "DELETE FROM page_versions WHERE slug = ? AND version < ?",
                    (page.slug, oldest_kept),
                )
            conn.execute(
                "INSERT INTO page_usage (owner, bytes) VALUES (?, ?)"
                " ON CONFLICT (owner) DO UPDATE SET bytes = bytes + excluded.bytes",
                (page.owner, delta),
            )
        return page

    def _check_quota(self, conn: sqlite3.Connection, owner: str, delta: int) -> None:
        """Raises: QuotaExceededError when a write that grows the owner's bytes passes the quota."""
        if not self._quota or delta <= 0:
            return
        row = conn.execute("SELECT bytes FROM page_usage WHERE owner = ?", (owner,)).fetchone()
        used = int(row["bytes"]) if row else 0
        if used + delta > self._quota:
            raise QuotaExceededError(owner, used=used, quota=self._quota)

    def list_versions(
        self, slug: str, *, cursor: str | None = None, limit: int = 50
    ) -> VersionList:
        below = decode_version_cursor(cursor) if cursor is not None else None
        sql = "SELECT * FROM page_versions WHERE slug = ?"
        args: list[object] = [slug]
        if below is not None:
            sql += " AND version < ?"
            args.append(below)
        sql += " ORDER BY version DESC LIMIT ?"
        rows = self._db.connection().execute(sql, [*args, limit + 1]).fetchall()
        versions = tuple(_page(row) for row in rows[:limit])
        more = len(rows) > limit
        return VersionList(
            versions=versions, next_cursor=str(versions[-1].version) if more else None
        )

    def get_version(self, slug: str, version: int) -> StoredPage | None:
        row = (
            self._db.connection()
            .execute("SELECT * FROM page_versions WHERE slug = ? AND version = ?", (slug, version))
            .fetchone()
        )
        return _page(row) if row else None


def _adopt_old_rows(db: SqliteDatabase, existing_owner: str) -> None:
    """Bring a data file from before owners and history up to date; a no-op on a current one."""
    conn = db.connection()
    if "owner" in _columns(conn, "pages") and not _has_old_asset_urls(conn):
        return
    with db.transaction() as conn:
        columns = _columns(conn, "pages")
        missing = [name for name in _OWNERSHIP if name not in columns]
        for name in missing:
            conn.execute(f"ALTER TABLE pages ADD COLUMN {name} {_OWNERSHIP[name]}")
        if missing:
            conn.execute(
                "UPDATE pages SET owner = ?, editor = ? WHERE owner = ''",
                (existing_owner, existing_owner),
            )
        for row in conn.execute(
            "SELECT slug, hero_image_url FROM pages"
            " WHERE source = 'generate' AND hero_image_url LIKE 'http%/assets/%'"
        ).fetchall():
            match = _OLD_ASSET_URL.match(row["hero_image_url"])
            if match:
                conn.execute(
                    "UPDATE pages SET hero_image_url = ? WHERE slug = ?", (match[1], row["slug"])
                )
        if missing:
            conn.execute(_SEED_VERSIONS)


def _count_usage(db: SqliteDatabase) -> None:
    """Make the usage table; a data file that had none gets what its versions hold."""
    conn = db.connection()
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'page_usage'"
    ).fetchone()
    if exists:
        return
    with db.transaction() as conn:
        conn.execute(_USAGE_DDL)
        conn.execute(_SEED_USAGE)


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row["name"] for row in conn.execute(f"PRAGMA table_info({table})").fetchall()}


def _has_old_asset_urls(conn: sqlite3.Connection) -> bool:
    found = conn.execute(
        "SELECT 1 FROM pages"
        " WHERE source = 'generate' AND hero_image_url LIKE 'http%/assets/%' LIMIT 1"
    ).fetchone()
    return found is not None


def _stamp(when: datetime) -> str:
    # Fixed width UTC, so text order is time order.
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _row(page: StoredPage) -> tuple[object, ...]:
    return (
        page.slug,
        page.version,
        page.status,
        page.source,
        json.dumps(page.page_input, ensure_ascii=False),
        _stamp(page.created_at),
        _stamp(page.updated_at),
        _stamp(page.published_at) if page.published_at else None,
        page.hero_image_url,
        int(page.gate_passed),
        page.gate_ruleset,
        page.owner,
        page.editor,
        page.editor_key_id,
        page.edit_source,
    )


def _page(row: sqlite3.Row) -> StoredPage:
    return StoredPage(
        slug=row["slug"],
        version=row["version"],
        status=row["status"],
        source=row["source"],
        page_input=json.loads(row["page_input"]),
        created_at=datetime.fromisoformat(row["created_at"]),
        updated_at=datetime.fromisoformat(row["updated_at"]),
        published_at=datetime.fromisoformat(row["published_at"]) if row["published_at"] else None,
        hero_image_url=row["hero_image_url"],
        gate_passed=bool(row["gate_passed"]),
        gate_ruleset=row["gate_ruleset"],
        owner=row["owner"],
        editor=row["editor"],
        editor_key_id=row["editor_key_id"],
        edit_source=row["edit_source"],
    )
