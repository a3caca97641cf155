"""One SQLite database file shared by the embedded adapters: WAL, one connection per thread.

Writers of this process take turns on a lock of ours before `BEGIN IMMEDIATE`: SQLite's busy
handler waits for the file's write lock by sleeping (1 ms, then up to 100 ms a try), so 32
threads contending for it left it unused while they slept (measured under page-view load:
requests waited up to 1.8 s for a commit of about 50 µs). A waiter on our lock is woken as the
writer before it commits. Other processes on the same file still meet the busy handler.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from backends.ports import UnavailableError

# How long a writer waits for the write lock, ours or the file's, before it fails.
BUSY_SECONDS = 30.0
# SQLite's result codes (and their extended codes) for a file that cannot take a write now:
# locked past BUSY_SECONDS, full, read-only, an I/O error. A write failing with one raises the
# ports' UnavailableError (a 503 with Retry-After, a retry of a queued message), as the Firestore
# adapters do in an outage; any other error (a constraint, a bug in a statement) stays as it is.
_CANNOT_WRITE = (
    "SQLITE_BUSY",
    "SQLITE_LOCKED",
    "SQLITE_FULL",
    "SQLITE_READONLY",
    "SQLITE_IOERR",
    "SQLITE_CANTOPEN",
    "SQLITE_PROTOCOL",
)
# Values bound to one statement by insert_rows (SQLite allows 32,766 since 3.32).
VALUES_PER_STATEMENT = 3000


Statement = tuple[str, Sequence[object]]


def insert_statements(into: str, rows: Sequence[Sequence[object]]) -> list[Statement]:
    """`into` ("INSERT [OR IGNORE] INTO t") with every row, as few multi-row statements.

    Not executemany: the sqlite3 module lets go of the interpreter lock around every step, a
    step a row, and under load each hand-off is a context switch or two (perf: about a third
    of the served process's CPU under page-view load). Each row is inserted (or ignored) as
    executemany would, and `conn.total_changes` counts them the same.
    """
    if not rows:
        return []
    width = len(rows[0])
    per_statement = max(1, VALUES_PER_STATEMENT // width)
    row = f"({','.join('?' * width)})"
    statements: list[Statement] = []
    for start in range(0, len(rows), per_statement):
        chunk = rows[start : start + per_statement]
        values = [value for one in chunk for value in one]
        statements.append((f"{into} VALUES {','.join([row] * len(chunk))}", values))
    return statements


def insert_rows(conn: sqlite3.Connection, into: str, rows: Sequence[Sequence[object]]) -> None:
    """Run `insert_statements(into, rows)` on `conn` (in the caller's transaction)."""
    for sql, values in insert_statements(into, rows):
        conn.execute(sql, values)


# A database holds keys' hashes, webhook secrets and people's addresses: its folder and files
# are the service user's alone (SQLite gives its -wal and -shm files the database file's mode).
PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def keep_private(path: Path) -> None:
    """Make `path`'s folder 0700 and the database file 0600 (created empty if absent), with its
    -wal and -shm files; files an earlier version made 0644 are narrowed too."""
    folder = path.parent
    folder.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    os.chmod(folder, PRIVATE_DIR)
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE))
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if file.exists():
            os.chmod(file, PRIVATE_FILE)


class SqliteDatabase:
    """A SQLite file opened in WAL mode with a connection per thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        keep_private(path)
        self._local = threading.local()
        self._schema_lock = threading.Lock()
        self._schemas: set[str] = set()
        # Re-entrant: a transaction begun inside another on the same thread still fails at once
        # in SQLite ("cannot start a transaction within a transaction"), as it did before.
        self._write_lock = threading.RLock()

    def connection(self) -> sqlite3.Connection:
        """This thread's connection, opened on first use."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            new_file = self.path.stat().st_size == 0  # made empty by keep_private
            # isolation_level=None: we issue BEGIN ourselves, so transactions are explicit.
            conn = sqlite3.connect(
                self.path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False
            )
            conn.row_factory = sqlite3.Row
            if new_file:
                # A file this call creates holds nothing a crash could lose: SQLite turns it to
                # WAL without the disk syncs that conversion otherwise waits for (bench_startup:
                # a start in a fresh DATA_DIR makes two such files).
                conn.execute("PRAGMA synchronous=OFF")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(f"PRAGMA busy_timeout={int(BUSY_SECONDS * 1000)}")
            conn.execute("PRAGMA foreign_keys=ON")
            self._local.conn = conn
        return conn

    def ensure_schema(self, name: str, ddl: str) -> None:
        """Run an adapter's CREATE statements once per process."""
        with self._schema_lock:
            if name in self._schemas:
                return
            self.connection().executescript(ddl)
            self._schemas.add(name)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any error: a failed write changes nothing.

        Raises: UnavailableError when the file cannot take the write (locked after BUSY_SECONDS
        of waiting, full, read-only).
        """
        conn = self.connection()
        with self._writer(), _unavailable_when_unwritable():
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:  # a failed COMMIT may leave it open
                    conn.execute("ROLLBACK")
                raise

    def write_all(self, statements: Sequence[Statement]) -> None:
        """The statements as one transaction, committed when this returns.

        One statement alone runs without BEGIN and COMMIT: SQLite makes it a transaction of its
        own (all of it or none, committed as durably as COMMIT would), in one step where
        BEGIN ... COMMIT around it take three, each letting go of the interpreter lock.

        Raises: UnavailableError as `transaction` does.
        """
        if len(statements) != 1:
            with self.transaction() as conn:
                for sql, values in statements:
                    conn.execute(sql, values)
            return
        conn = self.connection()
        with self._writer(), _unavailable_when_unwritable():
            conn.execute(*statements[0])

    @contextmanager
    def _writer(self) -> Iterator[None]:
        if not self._write_lock.acquire(timeout=BUSY_SECONDS):
            raise UnavailableError(f"{self.path.name}: no write lock within {BUSY_SECONDS} s")
        try:
            yield
        finally:
            self._write_lock.release()


@contextmanager
def _unavailable_when_unwritable() -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as err:
        name = getattr(err, "sqlite_errorname", None) or ""
        if any(name == code or name.startswith(code + "_") for code in _CANNOT_WRITE):
            raise UnavailableError(f"the database cannot take a write ({name})") from err
        raise
