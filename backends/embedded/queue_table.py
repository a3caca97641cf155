"""QueueTable: the embedded queues' messages and dead letters, rows of one SQLite file.

A message is a row, committed before `put` returns: the unnamed batches that threads of this
process put at the same time share one transaction (backends/embedded/group_commit.py).
`claim` leases due rows to one consumer and counts the attempt; `ack` deletes a leased row;
`retry` puts it back after a delay or, on its last attempt, moves it to `dead_letters`. A row
whose consumer died keeps its lease time as its due time, so it is claimed again once the lease
lapses: delivery is at least once, across threads and processes on the same file. A consumer
at work `renew`s its lease; `release_gone` makes the rows of consumers known to have exited
due at once (a start on the same host, backends/lease_holders.py).

Why a table of our own and not a PyPI queue (both were tried against these needs): persist-queue's
SQLiteAckQueue and litequeue keep an ack state per row but have no lease that lapses (an
unacked row waits for a restart or a manual call), no attempt count, no dead letters, no due
time and no dedupe by name, and write one transaction per message.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from backends.embedded.group_commit import GroupCommit, GroupFailedError
from backends.embedded.sqlite import SqliteDatabase, insert_statements
from backends.ports import UnavailableError

_DDL = """
CREATE TABLE IF NOT EXISTS queue_messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    queue TEXT NOT NULL,
    body BLOB NOT NULL,
    name TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    due REAL NOT NULL,
    lease_owner TEXT,
    created_at REAL NOT NULL,
    last_error TEXT
);
CREATE INDEX IF NOT EXISTS queue_messages_due ON queue_messages (queue, due);
CREATE TABLE IF NOT EXISTS queue_names (
    queue TEXT NOT NULL,
    name TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (queue, name)
);
CREATE TABLE IF NOT EXISTS dead_letters (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    queue TEXT NOT NULL,
    body BLOB NOT NULL,
    name TEXT,
    attempts INTEGER NOT NULL,
    created_at REAL NOT NULL,
    dead_at REAL NOT NULL,
    last_error TEXT
);
"""
_INSERT_INTO = "INSERT INTO queue_messages (queue, body, name, due, created_at)"
_INSERT = f"{_INSERT_INTO} VALUES (?, ?, ?, ?, ?)"
# Ids per statement of a lease or an ack: one statement for many rows, not executemany (as
# sqlite.insert_rows says why).
_CHUNK = 500
_LEASE = "UPDATE queue_messages SET attempts = attempts + 1, due = ?, lease_owner = ?"
_ACK = "DELETE FROM queue_messages WHERE lease_owner = ?"
_RENEW = "UPDATE queue_messages SET due = ? WHERE lease_owner = ?"
# Task names are remembered this long after their task was queued (Cloud Tasks: about an hour
# after deletion; we keep a day, as the in-memory queue did).
NAME_MEMORY_SECONDS = 24 * 3600.0
QUEUE_FILE = "queues.sqlite3"
T = TypeVar("T")


def queue_database(data_dir: Path) -> SqliteDatabase:
    """The queues' own file in DATA_DIR: its writes never wait for the stores' write lock."""
    return SqliteDatabase(data_dir / QUEUE_FILE)


@dataclass(frozen=True)
class Leased:
    """A message claimed by one consumer until `lease_until` (epoch seconds)."""

    id: int
    queue: str
    body: bytes
    name: str | None
    attempts: int  # this delivery included
    owner: str


@dataclass(frozen=True)
class DeadLetter:
    """A message that failed its last attempt (or whose last lease lapsed)."""

    id: int
    queue: str
    body: bytes
    name: str | None
    attempts: int
    created_at: float
    dead_at: float
    last_error: str | None


def _chunks(values: Sequence[T]) -> list[Sequence[T]]:
    return [values[start : start + _CHUNK] for start in range(0, len(values), _CHUNK)]


def _marks(count: int) -> str:
    return ",".join("?" * count)


class QueueTable:
    """Messages, names and dead letters of every embedded queue, in one database."""

    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db
        db.ensure_schema("queue_table", _DDL)
        self._puts: GroupCommit[tuple[str, Sequence[bytes], float | None]] = GroupCommit(
            self._insert
        )

    def put(
        self,
        queue: str,
        bodies: Sequence[bytes],
        *,
        due: float | None = None,
        name: str | None = None,
    ) -> bool:
        """Store messages, committed when this returns; False if `name` was used before.

        Raises: UnavailableError when the messages could not be written (none was stored).
        """
        if name is None:
            try:
                self._puts.submit((queue, bodies, due))
            except (sqlite3.Error, GroupFailedError) as err:
                raise UnavailableError("the queue file could not be written") from err
            return True
        now = time.time()
        try:
            with self._db.transaction() as conn:
                conn.execute(
                    "DELETE FROM queue_names WHERE queue = ? AND at < ?",
                    (queue, now - NAME_MEMORY_SECONDS),
                )
                try:
                    conn.execute("INSERT INTO queue_names VALUES (?, ?, ?)", (queue, name, now))
                except sqlite3.IntegrityError:
                    return False
                conn.executemany(
                    _INSERT,
                    [(queue, body, name, now if due is None else due, now) for body in bodies],
                )
        except sqlite3.Error as err:  # rolled back: neither the name nor the task is kept
            raise UnavailableError("the queue file could not be written") from err
        return True

    def _insert(self, puts: list[tuple[str, Sequence[bytes], float | None]]) -> None:
        """Unnamed puts of several threads, in one transaction."""
        now = time.time()
        rows = [
            (queue, body, None, now if due is None else due, now)
            for queue, bodies, due in puts
            for body in bodies
        ]
        self._db.write_all(insert_statements(_INSERT_INTO, rows))

    def claim(
        self, queue: str, *, owner: str, lease_seconds: float, max_attempts: int, limit: int = 1
    ) -> list[Leased]:
        """Lease up to `limit` due messages to `owner`, counting the attempt.

        A due message that already had its last attempt (its consumer died holding it) goes to
        the dead letters instead.
        """
        leased, _ = self.claim_due(
            queue, owner=owner, lease_seconds=lease_seconds, max_attempts=max_attempts, limit=limit
        )
        return leased

    def claim_due(
        self, queue: str, *, owner: str, lease_seconds: float, max_attempts: int, limit: int = 1
    ) -> tuple[list[Leased], list[bytes]]:
        """`claim`, and the bodies of the messages it moved to the dead letters."""
        now = time.time()
        conn = self._db.connection()
        if not conn.execute(
            "SELECT 1 FROM queue_messages WHERE queue = ? AND due <= ? LIMIT 1", (queue, now)
        ).fetchone():
            return [], []  # a read, no write lock: idle consumers poll cheaply
        with self._db.transaction() as conn:
            rows = conn.execute(
                "SELECT id, body, name, attempts FROM queue_messages"
                " WHERE queue = ? AND due <= ? ORDER BY due, id LIMIT ?",
                (queue, now, limit),
            ).fetchall()
            spent = [row for row in rows if row["attempts"] >= max_attempts]
            for row in spent:
                self._bury(conn, row["id"], "the lease of its last attempt lapsed", now)
            live = [row for row in rows if row["attempts"] < max_attempts]
            for chunk in _chunks([row["id"] for row in live]):
                sql = f"{_LEASE} WHERE id IN ({_marks(len(chunk))})"
                conn.execute(sql, (now + lease_seconds, owner, *chunk))
        leased = [
            Leased(row["id"], queue, bytes(row["body"]), row["name"], row["attempts"] + 1, owner)
            for row in live
        ]
        return leased, [bytes(row["body"]) for row in spent]

    def renew(self, messages: Sequence[Leased], *, lease_seconds: float) -> int:
        """Extend the leases of messages their consumers still hold to `lease_seconds` from
        now (a worker that is still at work keeps its messages); how many were extended."""
        if not messages:
            return 0
        due = time.time() + lease_seconds
        by_owner: dict[str, list[int]] = {}
        for message in messages:
            by_owner.setdefault(message.owner, []).append(message.id)
        renewed = 0
        with self._db.transaction() as conn:
            for owner, ids in by_owner.items():
                for chunk in _chunks(ids):
                    renewed += conn.execute(
                        f"{_RENEW} AND id IN ({_marks(len(chunk))})",
                        (due, owner, *chunk),
                    ).rowcount
        return renewed

    def release_gone(self, queue: str, *, gone: Callable[[str], bool]) -> int:
        """Make the messages leased to consumers that `gone` names (processes that exited)
        due now, without waiting for their leases to lapse; how many."""
        now = time.time()
        owners = [
            row[0]
            for row in self._db.connection().execute(
                "SELECT DISTINCT lease_owner FROM queue_messages"
                " WHERE queue = ? AND due > ? AND lease_owner IS NOT NULL",
                (queue, now),
            )
        ]
        dead = [owner for owner in owners if gone(owner)]
        if not dead:
            return 0
        released = 0
        with self._db.transaction() as conn:
            for owner in dead:
                released += conn.execute(
                    "UPDATE queue_messages SET due = ?, lease_owner = NULL"
                    " WHERE queue = ? AND lease_owner = ?",
                    (now, queue, owner),
                ).rowcount
        return released

    def ack(self, message: Leased) -> None:
        """Done: the message is gone (a no-op if another consumer took it over)."""
        self.ack_all([message])

    def ack_all(self, messages: Sequence[Leased]) -> None:
        """`ack` for several messages in one transaction (none: no transaction)."""
        if not messages:
            return
        by_owner: dict[str, list[int]] = {}
        for message in messages:
            by_owner.setdefault(message.owner, []).append(message.id)
        self._db.write_all(
            [
                (f"{_ACK} AND id IN ({_marks(len(chunk))})", (owner, *chunk))
                for owner, ids in by_owner.items()
                for chunk in _chunks(ids)
            ]
        )

    def retry(
        self, message: Leased, *, delay: float, error: str, max_attempts: int, count: bool = True
    ) -> bool:
        """Deliver again after `delay`, or dead-letter after the last attempt; False if buried.

        `count=False` (a handler asked for a later delivery) gives the attempt back.
        """
        now = time.time()
        with self._db.transaction() as conn:
            if count and message.attempts >= max_attempts:
                self._bury(conn, message.id, error, now, owner=message.owner)
                return False
            conn.execute(
                "UPDATE queue_messages SET due = ?, lease_owner = NULL, last_error = ?,"
                " attempts = attempts - ? WHERE id = ? AND lease_owner = ?",
                (now + delay, error[:500], 0 if count else 1, message.id, message.owner),
            )
        return True

    def _bury(
        self,
        conn: sqlite3.Connection,
        message_id: int,
        error: str,
        now: float,
        *,
        owner: str | None = None,
    ) -> None:
        # A consumer buries only the message it still holds; claim buries unheld ones.
        moved = conn.execute(
            "INSERT INTO dead_letters (queue, body, name, attempts, created_at, dead_at,"
            " last_error) SELECT queue, body, name, attempts, created_at, ?, ?"
            " FROM queue_messages WHERE id = ? AND (? IS NULL OR lease_owner = ?)",
            (now, error[:500], message_id, owner, owner),
        ).rowcount
        if moved:
            conn.execute("DELETE FROM queue_messages WHERE id = ?", (message_id,))

    def waiting(self, queue: str) -> int:
        """Messages of `queue` not yet acked or dead-lettered (due, later or leased)."""
        row = (
            self._db.connection()
            .execute("SELECT COUNT(*) FROM queue_messages WHERE queue = ?", (queue,))
            .fetchone()
        )
        return int(row[0])

    def due_now(self, queue: str) -> int:
        """Messages of `queue` a worker could claim now (not leased, not waiting to retry)."""
        row = (
            self._db.connection()
            .execute(
                "SELECT COUNT(*) FROM queue_messages WHERE queue = ? AND due <= ?",
                (queue, time.time()),
            )
            .fetchone()
        )
        return int(row[0])

    def next_due(self, queue: str) -> float | None:
        """When the earliest message of `queue` is due (a lease's end for a leased one)."""
        row = (
            self._db.connection()
            .execute("SELECT MIN(due) FROM queue_messages WHERE queue = ?", (queue,))
            .fetchone()
        )
        return None if row[0] is None else float(row[0])

    def dead_letters(self, queue: str | None = None, *, limit: int = 100) -> list[DeadLetter]:
        """Dead letters, oldest first, of one queue or all."""
        rows = (
            self._db.connection()
            .execute(
                "SELECT id, queue, body, name, attempts, created_at, dead_at, last_error"
                " FROM dead_letters WHERE (? IS NULL OR queue = ?) ORDER BY id LIMIT ?",
                (queue, queue, limit),
            )
            .fetchall()
        )
        return [
            DeadLetter(
                row["id"],
                row["queue"],
                bytes(row["body"]),
                row["name"],
                row["attempts"],
                row["created_at"],
                row["dead_at"],
                row["last_error"],
            )
            for row in rows
        ]

    def replay(self, ids: Sequence[int], *, queue: str | None = None) -> list[int]:
        """Queue these dead letters (of `queue` only, when given) again from their first
        attempt; the ids moved."""
        now = time.time()
        moved: list[int] = []
        with self._db.transaction() as conn:
            for dead_id in ids:
                if conn.execute(
                    "INSERT INTO queue_messages (queue, body, name, due, created_at)"
                    " SELECT queue, body, name, ?, created_at FROM dead_letters"
                    " WHERE id = ? AND (? IS NULL OR queue = ?)",
                    (now, dead_id, queue, queue),
                ).rowcount:
                    conn.execute("DELETE FROM dead_letters WHERE id = ?", (dead_id,))
                    moved.append(dead_id)
        return moved
