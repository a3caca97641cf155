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
    """One caller's item and the lock its thread sleeps on until the writer wakes it."""

    __slots__ = ("done", "failure", "item", "wake")

    def __init__(self, item: T) -> None:
        self.item = item
        self.done = False
        self.failure: BaseException | None = None
        self.wake = threading.Lock()
        self.wake.acquire()  # held until the writer of its group (or of the one before) is done


class GroupCommit(Generic[T]):
    """`submit(item)` returns once `write` has returned for a list of items holding `item`.

    Each waiting thread sleeps on a lock of its own, released once by the writer: as done, or
    as the next writer (the first thread that asked while the write ran), so a write wakes only
    the threads it concerns, and none of them queues on a shared lock to find out.
    """

    def __init__(self, write: Callable[[list[T]], None]) -> None:
        self._write = write
        self._asked: list[_Ask[T]] = []
        self._writing = False
        self._lock = threading.Lock()

    def waiting(self) -> int:
        """Items asked for and not yet in a write (the next group, as it stands)."""
        with self._lock:
            return len(self._asked)

    def submit(self, item: T) -> None:
        """Write `item` with whatever else is asked meanwhile.

        Raises: what `write` raised, to the thread that called it; GroupFailedError (from that
        error) to each other thread of its group.
        """
        mine = _Ask(item)
        with self._lock:
            self._asked.append(mine)
            leading = not self._writing
            self._writing = True
        if not leading:
            mine.wake.acquire()
            if mine.done:
                if mine.failure is not None:
                    raise GroupFailedError("the shared write failed") from mine.failure
                return
        # This thread writes: at once, or handed the turn by the writer before it.
        with self._lock:
            group, self._asked = self._asked, []
        failure: BaseException | None = None
        try:
            self._write([ask.item for ask in group])
        except BaseException as err:
            failure = err
            raise
        finally:
            with self._lock:
                following = self._asked[0] if self._asked else None
                self._writing = following is not None
            for ask in group:
                if ask is not mine:
                    ask.done, ask.failure = True, failure
                    ask.wake.release()
            if following is not None:
                following.wake.release()  # not done: its thread writes the next group
