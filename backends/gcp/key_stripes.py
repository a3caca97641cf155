"""KeyStripes: in-process locks by key, so that one process's transactions on the same
documents take turns instead of meeting inside Firestore.

Two read-write transactions that read a document and then both write it each wait at commit
for the other's read lock. Firestore resolves that by aborting the younger one (which then runs
again); its emulator waits out a 2 s lock timeout first, every time (measured: a dozen such
stalls while one worker drains a backlog). Holding the stripes of the keys a transaction will
touch (its accounts, say) for its length keeps a process's own writers of one account apart;
writers in other processes still meet in Firestore, where the transaction's retries handle
them. Stripes are taken in index order, so two holders never wait on each other.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager

STRIPES = 64


class KeyStripes:
    """A fixed set of locks; a key maps to one of them by a stable hash."""

    def __init__(self, stripes: int = STRIPES) -> None:
        self._locks = [threading.Lock() for _ in range(stripes)]

    @contextmanager
    def held(self, keys: Iterable[str]) -> Iterator[None]:
        """Hold the stripes of `keys` (each once, in index order) for the block."""
        indexes = sorted({zlib.crc32(key.encode()) % len(self._locks) for key in keys})
        with ExitStack() as stack:
            for index in indexes:
                stack.enter_context(self._locks[index])
            yield
