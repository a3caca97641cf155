"""SqliteDeadLetters: the DeadLetters port on the queue table's `dead_letters` rows.

The embedded queues (ingest, generation, tasks) move a message there after its last attempt
(backends/embedded/queues.py); a replayed one goes back to its queue from its first attempt,
and a server on the same DATA_DIR claims it within a poll.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime

from backends.embedded.queue_table import QueueTable
from backends.ports import DeadLetter, UnavailableError

EMBEDDED_QUEUES = ("ingest", "generation", "tasks")
_ALL = 10**9  # "every dead letter" as a LIMIT


class SqliteDeadLetters:
    """DeadLetters of the queues in `queues`, all on one queue table."""

    def __init__(self, table: QueueTable, *, queues: tuple[str, ...] = EMBEDDED_QUEUES) -> None:
        self._table = table
        self.queues = queues

    def list_dead_letters(self, queue: str | None = None, *, limit: int = 100) -> list[DeadLetter]:
        try:
            found = self._table.dead_letters(queue, limit=limit)
        except sqlite3.Error as err:
            raise UnavailableError("the queue file could not be read") from err
        return [
            DeadLetter(
                id=str(dead.id),
                queue=dead.queue,
                body=dead.body,
                attempts=dead.attempts,
                dead_at=datetime.fromtimestamp(dead.dead_at, UTC),
                last_error=dead.last_error,
                name=dead.name,
            )
            for dead in found
        ]

    def replay_dead_letters(
        self, ids: Sequence[str] | None = None, *, queue: str | None = None
    ) -> list[str]:
        try:
            if ids is None:
                wanted = [dead.id for dead in self._table.dead_letters(queue, limit=_ALL)]
            else:  # ids are row numbers here; anything else names no dead letter
                wanted = [int(one) for one in ids if one.isdigit()]
            moved = self._table.replay(wanted, queue=queue)
        except sqlite3.Error as err:
            raise UnavailableError("the queue file could not be written") from err
        return [str(one) for one in moved]
