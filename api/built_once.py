"""BuiltOnce: a value built by its first user, once, however many threads ask at that moment.

The one build-once helper. What a start does not need waits here for its first use
(bench/bench_startup.py measures the start): the MCP side of the served app
(frontdoor/composition.py), the generation pipeline of the embedded workers
(frontdoor/generation_wiring.py), the function targets' settings and ports
(frontdoor/functions.py), and the rendered public bodies and files (api/rest/public.py,
api/rest/files.py). A build that raises leaves nothing behind: the next user builds again.
It lives in `api` because that is the lowest package both the views and frontdoor may import.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class BuiltOnce(Generic[T]):
    """`build()`'s result, built on the first `get()`; later and concurrent callers share it."""

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._value: T | None = None
        self._built = False
        self._lock = threading.Lock()

    def get(self) -> T:
        """The value, built now if nobody has yet (other threads asking meanwhile wait)."""
        if not self._built:
            with self._lock:
                if not self._built:
                    self._value = self._build()
                    self._built = True
        return self._value  # type: ignore[return-value]  # set above before _built is

    @property
    def built(self) -> bool:
        """Whether the value exists yet."""
        return self._built
