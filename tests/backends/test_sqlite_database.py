"""The embedded database helpers (backends/embedded/sqlite.py): insert_rows stores many rows in
few statements exactly as executemany does (ignored rows and total_changes included); writers
take turns on a lock of the process that keeps SQLite's answer to a nested transaction."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from backends.embedded.sqlite import (
    VALUES_PER_STATEMENT,
    SqliteDatabase,
    insert_rows,
    insert_statements,
)


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


def test_a_transaction_begun_inside_another_on_one_thread_fails_at_once(tmp_path: Path) -> None:
    """The writers' lock lets the thread that holds it through, so SQLite refuses at once."""
    db = SqliteDatabase(tmp_path / "a.db")

    def begin_another() -> None:
        with db.transaction():
            pass

    with db.transaction(), pytest.raises(sqlite3.OperationalError, match="within a transaction"):
        begin_another()

    with db.transaction() as conn:  # the lock was let go: the next writer goes on
        conn.execute("CREATE TABLE t (id INTEGER)")


def _count(path: Path) -> int:
    with sqlite3.connect(path) as other:  # another connection: sees committed rows only
        return int(other.execute("SELECT COUNT(*) FROM t").fetchone()[0])


def test_write_all_commits_one_statement_alone_all_of_it_or_none(tmp_path: Path) -> None:
    _table(tmp_path / "a.db").close()
    db = SqliteDatabase(tmp_path / "a.db")
    clash = insert_statements("INSERT INTO t", [(1, "one", None), (5, "taken", None)])

    db.write_all(insert_statements("INSERT INTO t", [(2, "two", None), (3, "three", None)]))
    with pytest.raises(sqlite3.IntegrityError):
        db.write_all(clash)  # id 5 is there: row 1 is not stored either

    assert _count(tmp_path / "a.db") == 3


def test_write_all_runs_several_statements_as_one_transaction(tmp_path: Path) -> None:
    _table(tmp_path / "a.db").close()
    db = SqliteDatabase(tmp_path / "a.db")

    with pytest.raises(sqlite3.IntegrityError):
        db.write_all(
            [
                ("INSERT INTO t VALUES (?, ?, ?)", (2, "two", None)),
                ("INSERT INTO t VALUES (5, 'x', NULL)", ()),
            ]
        )
    db.write_all(
        [("INSERT INTO t VALUES (?, ?, ?)", (2, "two", None)), ("DELETE FROM t WHERE id = 5", ())]
    )

    assert _count(tmp_path / "a.db") == 1


def test_a_new_file_and_an_existing_one_are_both_opened_in_wal_with_normal_syncs(
    tmp_path: Path,
) -> None:
    """A file the connection creates is turned to WAL without syncs (it holds nothing yet);
    every connection, to it or to a file that was there, then writes with NORMAL syncs."""
    path = tmp_path / "fresh.db"
    first = SqliteDatabase(path)
    new_conn = first.connection()
    new_conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
    new_conn.execute("INSERT INTO t VALUES (1)")
    again = SqliteDatabase(path).connection()  # another process's view: the file exists

    modes = [
        (
            conn.execute("PRAGMA journal_mode").fetchone()[0],
            conn.execute("PRAGMA synchronous").fetchone()[0],
        )
        for conn in (new_conn, again)
    ]
    assert modes == [("wal", 1), ("wal", 1)]  # 1: NORMAL
    assert [tuple(row) for row in again.execute("SELECT id FROM t")] == [(1,)]


def test_the_data_folder_and_database_files_are_readable_by_the_service_user_alone(
    tmp_path: Path,
) -> None:
    """README Data at rest: DATA_DIR 0700, the database and its -wal and -shm files 0600, files
    an earlier version made 0644 included."""
    data = tmp_path / "data"
    data.mkdir()
    os.chmod(data, 0o755)  # noqa: S103  # the mode an earlier version left
    old = data / "old.sqlite3"
    SqliteDatabase(old).connection().execute("CREATE TABLE t (x)")
    for made in (old, data / "old.sqlite3-wal", data / "old.sqlite3-shm"):
        os.chmod(made, 0o644)
    os.chmod(data, 0o755)  # noqa: S103  # the mode an earlier version left

    new = SqliteDatabase(data / "new.sqlite3")
    new.connection().execute("CREATE TABLE t (x)")
    SqliteDatabase(old).connection().execute("INSERT INTO t VALUES (1)")

    files = sorted(p.name for p in data.iterdir())
    assert files == [
        "new.sqlite3",
        "new.sqlite3-shm",
        "new.sqlite3-wal",
        "old.sqlite3",
        "old.sqlite3-shm",
        "old.sqlite3-wal",
    ]
    modes = {name: oct(stat.S_IMODE((data / name).stat().st_mode)) for name in files}
    assert modes == dict.fromkeys(files, "0o600")
    assert oct(stat.S_IMODE(data.stat().st_mode)) == "0o700"
