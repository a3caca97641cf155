"""DurableJobQueue: the JobQueue port on a DurableQueue named `generation`.

Started late by wiring (the handler needs the finished Backends); jobs published before
`start` wait on disk and are handed over when the threads start (or to any other process
serving the same DATA_DIR).
"""

from __future__ import annotations

from collections.abc import Callable

from backends.embedded.queue_table import QueueTable
from backends.embedded.queues import DurableQueue
from domain.job_messages import encode_job_message

GENERATION_QUEUE = "generation"


class DurableJobQueue:
    """JobQueue whose messages are `{"job_id": ...}` rows handled by worker threads."""

    def __init__(
        self,
        table: QueueTable,
        *,
        threads: int = 2,
        max_attempts: int = 5,
        lease_seconds: float = 30.0,
    ) -> None:
        self.queue = DurableQueue(
            table,
            GENERATION_QUEUE,
            threads=threads,
            max_attempts=max_attempts,
            lease_seconds=lease_seconds,
        )

    def start(
        self,
        handler: Callable[[bytes], None],
        *,
        on_dead_letter: Callable[[bytes], None] | None = None,
    ) -> None:
        """Start the worker threads; `handler` gets the message body and raises to retry."""
        self.queue.set_dead_letter_handler(on_dead_letter)
        self.queue.start(handler)

    def publish_job(self, job_id: str) -> None:
        self.queue.publish(encode_job_message(job_id))

    def wait(self, seconds: float) -> None:
        """Block up to `seconds`, waking early when a worker thread finishes a delivery."""
        self.queue.wait_handled(seconds)

    def drain(self, timeout: float = 10.0) -> bool:
        """Wait until every published job has been handled (tests, shutdown)."""
        return self.queue.drain(timeout)

    def close(self) -> None:
        """Stop the threads after their current job; queued jobs stay on disk."""
        self.queue.close()
