"""DurableTaskQueue: HTTP tasks on a DurableQueue named `tasks`, posted by worker threads.

Like Cloud Tasks: a task is committed to disk before `enqueue` returns, waits for its schedule
time, is deduped by name (names are remembered for a day), and is retried after each of
`retry_delays` until it answers 2xx; after its last attempt it moves to the dead letters
(`frontdoor queues dead-letters`), never to the log alone. Tasks whose worker died are posted
again once their lease lapses (renewed while a post runs), or at the next start on the host.
"""

from __future__ import annotations

import base64
import json
import logging
import threading
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from backends.embedded.queue_table import Leased, QueueTable
from backends.embedded.queues import DurableQueue
from backends.ports import HttpTask

if TYPE_CHECKING:  # httpx loads with the first task, not with the app (bench/bench_startup.py)
    import httpx

logger = logging.getLogger(__name__)

TASK_QUEUE = "tasks"
# Renewed while a post runs (its timeout is 30 s), so a short lease: a task whose worker died
# is posted again soon after.
TASK_LEASE_SECONDS = 10.0


class TaskFailedError(Exception):
    """A task's target did not answer 2xx: post it again later."""


class DurableTaskQueue:
    """TaskQueue on the queue table: POSTs each task with httpx at its time, retrying non-2xx."""

    def __init__(
        self,
        table: QueueTable,
        *,
        retry_delays: Sequence[timedelta],
        client: httpx.Client | None = None,
        threads: int = 2,
        lease_seconds: float = TASK_LEASE_SECONDS,
    ) -> None:
        self._delays = tuple(d.total_seconds() for d in retry_delays)
        self._client = client  # made by the first task: an httpx client costs ~0.2 s to build
        self._client_lock = threading.Lock()
        self.queue = DurableQueue(
            table,
            TASK_QUEUE,
            threads=threads,
            max_attempts=len(self._delays) + 1,
            backoff=self._delay,
            lease_seconds=lease_seconds,
        )

    def start(self) -> None:
        """Start the worker threads (once)."""
        self.queue.start_leased(self._dispatch)

    def close(self) -> None:
        """Stop the workers; queued tasks stay on disk for the next start."""
        self.queue.close(timeout=40)
        if self._client is not None:
            self._client.close()

    def enqueue(self, task: HttpTask) -> bool:
        due = task.schedule_time.timestamp() if task.schedule_time is not None else None
        added = self.queue.table.put(TASK_QUEUE, [_encode(task)], due=due, name=task.name)
        if added:
            self.queue.notify()
        return added

    def _delay(self, attempt: int) -> float:
        return self._delays[min(attempt, len(self._delays)) - 1] if self._delays else 0.0

    def _http(self) -> httpx.Client:
        with self._client_lock:
            if self._client is None:
                import httpx

                self._client = httpx.Client(timeout=30.0, follow_redirects=False, trust_env=False)
            return self._client

    def _dispatch(self, message: Leased) -> None:
        import httpx

        task = _decode(message.body)
        headers = {
            **task.headers,
            "X-CloudTasks-TaskName": task.name,
            "X-CloudTasks-TaskRetryCount": str(message.attempts - 1),
        }
        try:
            response = self._http().post(task.url, content=task.body, headers=headers)
        except httpx.HTTPError as err:
            logger.warning("task %s failed: %s", task.name, type(err).__name__)
            raise TaskFailedError(type(err).__name__) from err
        if not 200 <= response.status_code < 300:
            logger.warning("task %s answered %d", task.name, response.status_code)
            raise TaskFailedError(f"answered {response.status_code}")


def _encode(task: HttpTask) -> bytes:
    return json.dumps(
        {
            "name": task.name,
            "url": task.url,
            "body": base64.b64encode(task.body).decode(),
            "headers": task.headers,
            "schedule_time": task.schedule_time.isoformat() if task.schedule_time else None,
        },
        separators=(",", ":"),
    ).encode()


def _decode(data: bytes) -> HttpTask:
    raw = json.loads(data)
    at = raw.get("schedule_time")
    return HttpTask(
        name=raw["name"],
        url=raw["url"],
        body=base64.b64decode(raw["body"]),
        headers=dict(raw["headers"]),
        schedule_time=datetime.fromisoformat(at) if at else None,
    )
