"""InProcessQueue: the embedded stand-in for Pub/Sub push, a queue drained by worker threads.

Like a push subscription, a message whose handler raises is redelivered (with a short
back-off) up to `max_attempts` times, then dropped to the log as a dead letter. Generic over
the message type so every worker (ingest, generation) can use it.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from backends.ports import DeliverLaterError

logger = logging.getLogger(__name__)

T = TypeVar("T")
_STOP = object()


class InProcessQueue(Generic[T]):
    """Messages handled by `threads` worker threads; `drain()` waits until all are done."""

    def __init__(
        self,
        handler: Callable[[T], None],
        *,
        threads: int = 2,
        name: str = "queue",
        max_attempts: int = 5,
        backoff_seconds: float = 0.05,
    ) -> None:
        self._handler = handler
        self._name = name
        self._max_attempts = max_attempts
        self._backoff = backoff_seconds
        self._queue: queue.Queue[object] = queue.Queue()
        self._stopping = threading.Event()
        self._idle = threading.Condition()
        self._pending = 0
        self._threads = [
            threading.Thread(target=self._run, name=f"{name}-{i}", daemon=True)
            for i in range(threads)
        ]
        for thread in self._threads:
            thread.start()

    def publish(self, message: T) -> None:
        """Queue one message for the workers."""
        if self._stopping.is_set():
            raise RuntimeError(f"{self._name} is closed")
        with self._idle:
            self._pending += 1
        self._queue.put(message)

    def drain(self, timeout: float = 10.0) -> bool:
        """Wait until every published message has been handled (or dead-lettered)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def close(self, timeout: float = 10.0) -> None:
        """Finish queued messages, then stop the workers."""
        if self._stopping.is_set():
            return
        self.drain(timeout)
        self._stopping.set()
        for _ in self._threads:
            self._queue.put(_STOP)
        for thread in self._threads:
            thread.join(timeout)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            self._deliver(item)  # type: ignore[arg-type]  # only publish() puts non-sentinels
            with self._idle:
                self._pending -= 1
                self._idle.notify_all()

    def _deliver(self, message: T) -> None:
        for attempt in range(1, self._max_attempts + 1):
            try:
                self._handler(message)
                return
            except DeliverLaterError as err:  # expected (a job held by another worker)
                logger.info("%s: delivering again later (%s)", self._name, err)
            except Exception:  # the worker's top level: log, then redeliver
                logger.exception("%s: handler failed on attempt %d", self._name, attempt)
            # Back-off between redeliveries, cut short when the queue closes.
            if self._stopping.wait(self._backoff * 2 ** (attempt - 1)):
                break
        logger.error("%s: message dead-lettered after %d attempts", self._name, self._max_attempts)
