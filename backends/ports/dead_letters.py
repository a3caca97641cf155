"""Dead letters: what a queue gave up on, held where an operator sees and replays it.

Protocols and value types only; nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True)
class DeadLetter:
    """A message its queue stopped delivering after its last attempt."""

    id: str
    queue: str  # the operator's name: ingest, generation, tasks
    body: bytes
    attempts: int | None  # deliveries made before it was given up on (None: not recorded)
    dead_at: datetime
    last_error: str | None = None  # the worker's last failure, where the queue records it
    name: str | None = None  # a task's name (its body carries headers not to show)


class DeadLetters(Protocol):
    """The dead letters of the queues named in `queues`, for the operator CLI."""

    queues: tuple[str, ...]

    def list_dead_letters(self, queue: str | None = None, *, limit: int = 100) -> list[DeadLetter]:
        """Up to `limit` dead letters of `queue` (None: every queue), oldest first; they stay
        held. Raises: UnavailableError."""

    def replay_dead_letters(
        self, ids: Sequence[str] | None = None, *, queue: str | None = None
    ) -> list[str]:
        """Queue dead letters again on their own queue, from their first attempt: those named
        by `ids` (None: every one), of `queue` only when given; the ids replayed (an unknown id
        is left out). Raises: UnavailableError."""
