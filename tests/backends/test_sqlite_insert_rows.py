"""insert_rows (backends/embedded/sqlite.py): many rows in few statements, stored exactly as
executemany stores them, ignored rows included, and counted the same by total_changes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from backends.embedded.sqlite import VALUES_PER_STATEMENT, SqliteDatabase, insert_rows


def _table(path: Path) -> sqlite3.Connection:
    conn = SqliteDatabase(path).connection()
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, body BLOB)")
    conn.execute("INSERT INTO t VALUES (5, 'before', NULL)")
    return conn


def test_rows_past_one_statement_are_stored_as_executemany_stores_them(tmp_path: Path) -> None:
    rows = [(n, f"row {n}", bytes([n % 256])) for n in range(VALUES_PER_STATEMENT)]  # 3 a row
    with_rows, with_executemany = _table(tmp_path / "a.db"), _table(tmp_path / "b.db")
    before = with_rows.total_changes, with_executemany.total_changes

    insert_rows(with_rows, "INSERT OR IGNORE INTO t", rows)
    with_executemany.executemany("INSERT OR IGNORE INTO t VALUES (?, ?, ?)", rows)

    changed = (
        with_rows.total_changes - before[0],
        with_executemany.total_changes - before[1],
    )
    assert changed == (len(rows) - 1, len(rows) - 1)  # id 5 was there: ignored by both
    select = "SELECT id, name, body FROM t ORDER BY id"
    assert with_rows.execute(select).fetchall() == with_executemany.execute(select).fetchall()


def test_no_rows_runs_no_statement(tmp_path: Path) -> None:
    conn = _table(tmp_path / "a.db")
    before = conn.total_changes

    insert_rows(conn, "INSERT INTO t", [])

    assert conn.total_changes == before
