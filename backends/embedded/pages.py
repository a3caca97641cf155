"""SqlitePageStore: landing pages in the embedded database, one row per slug."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

from backends.embedded.sqlite import SqliteDatabase
from backends.page_cursor import decode_cursor, encode_cursor
from backends.ports import ConflictError, PageList, PageStatus, StoredPage

_DDL = """
CREATE TABLE IF NOT EXISTS pages (
    slug TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    source TEXT NOT NULL,
    page_input TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    published_at TEXT,
    hero_image_url TEXT,
    gate_passed INTEGER NOT NULL,
    gate_ruleset TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS pages_newest ON pages (updated_at DESC, slug DESC);
CREATE INDEX IF NOT EXISTS pages_status_newest ON pages (status, updated_at DESC, slug DESC);
"""


class SqlitePageStore:
    """PageStore on SQLite; the version check and the write share one IMMEDIATE transaction."""

    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db
        db.ensure_schema("pages", _DDL)

    def get_page(self, slug: str) -> StoredPage | None:
        row = (
            self._db.connection().execute("SELECT * FROM pages WHERE slug = ?", (slug,)).fetchone()
        )
        return _page(row) if row else None

    def list_pages(
        self, *, status: PageStatus | None = None, cursor: str | None = None, limit: int = 50
    ) -> PageList:
        where: list[str] = []
        args: list[object] = []
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
            conn.execute(
                "INSERT OR REPLACE INTO pages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", _row(page)
            )
        return page


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
    )
