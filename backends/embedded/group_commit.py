"""GroupCommit: writes that threads ask for at the same time, made in one call (one transaction).

The first thread to find no write under way writes for itself and for every thread that asked
while the previous write ran; the others wait for the write that holds theirs and return only
once it has returned (committed), or raise if it failed. Nothing waits to gather a group: a
thread alone writes alone at once, and 32 threads posting page views share a commit instead of
taking 32 turns on the file's write lock (bench/signal_page_views_served.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class GroupFailedError(Exception):
    """The shared write that held this caller's item failed: none of the group was written."""


class _Ask(Generic[T]):
    __slots__ = ("done", "failure", "item")

    def __init__(self, item: T) -> None:
        self.item = item
        self.done = False
        self.failure: BaseException | None = None


class GroupCommit(Generic[T]):
    """`submit(item)` returns once `write` has returned for a list of items holding `item`."""

    def __init__(self, write: Callable[[list[T]], None]) -> None:
        self._write = write
        self._asked: list[_Ask[T]] = []
        self._writing = False
        self._turn = threading.Condition(threading.Lock())

    def waiting(self) -> int:
        """Items asked for and not yet in a write (the next group, as it stands)."""
        with self._turn:
            return len(self._asked)

    def submit(self, item: T) -> None:
        """Write `item` with whatever else is asked meanwhile.

        Raises: what `write` raised, to the thread that called it; GroupFailedError (from that
        error) to each other thread of its group.
        """
        mine = _Ask(item)
        with self._turn:
            self._asked.append(mine)
            while self._writing and not mine.done:
                self._turn.wait()
            if mine.done:
                if mine.failure is not None:
                    raise GroupFailedError("the shared write failed") from mine.failure
                return
            self._writing = True
            group, self._asked = self._asked, []
        failure: BaseException | None = None
        try:
            self._write([ask.item for ask in group])
        except BaseException as err:
            failure = err
            raise
        finally:
            with self._turn:
                for ask in group:
                    ask.done = True
                    ask.failure = failure
                self._writing = False
                self._turn.notify_all()
