"""InProcessJobQueue: the JobQueue port on the shared InProcessQueue and its worker threads.

Started late by wiring (the handler needs the finished Backends); jobs published before
`start` are kept and handed over when the threads start.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from backends.embedded.queues import InProcessQueue


class InProcessJobQueue:
    """JobQueue whose messages are job ids handled by in-process worker threads."""

    def __init__(self, *, threads: int = 2, max_attempts: int = 5) -> None:
        self._threads = threads
        self._max_attempts = max_attempts
        self._lock = threading.Lock()
        self._queue: InProcessQueue[str] | None = None
        self._early: list[str] = []
        self._progress = threading.Condition()
        self._handled = 0

    def start(self, handler: Callable[[str], None]) -> None:
        """Start the worker threads; `handler` raises to have the job delivered again."""

        def handle(job_id: str) -> None:
            try:
                handler(job_id)
            finally:
                with self._progress:
                    self._handled += 1
                    self._progress.notify_all()

        with self._lock:
            self._queue = InProcessQueue(
                handle,
                threads=self._threads,
                name="generation",
                max_attempts=self._max_attempts,
            )
            early, self._early = self._early, []
        for job_id in early:
            self._queue.publish(job_id)

    def publish_job(self, job_id: str) -> None:
        with self._lock:
            if self._queue is None:
                self._early.append(job_id)
                return
        self._queue.publish(job_id)

    def wait(self, seconds: float) -> None:
        """Block up to `seconds`, waking early when a worker thread finishes a delivery."""
        with self._progress:
            seen = self._handled
            self._progress.wait_for(lambda: self._handled != seen, timeout=seconds)

    def drain(self, timeout: float = 10.0) -> bool:
        """Wait until every published job has been handled (tests, shutdown)."""
        return self._queue.drain(timeout) if self._queue is not None else not self._early

    def close(self) -> None:
        """Finish queued jobs, then stop the threads."""
        if self._queue is not None:
            self._queue.close()
