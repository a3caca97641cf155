"""InProcessTaskQueue: HTTP tasks run by worker threads in this process, like Cloud Tasks.

Honours schedule times, dedupes by task name (names are remembered for a day), and retries a
task that does not answer 2xx after each of `retry_delays`, then drops it with an error log.
Tasks live in memory: a restart loses queued ones (embedded mode's documented limit).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from backends.ports import HttpTask

if TYPE_CHECKING:  # httpx loads with the first task, not with the app (bench/bench_startup.py)
    import httpx

logger = logging.getLogger(__name__)

NAME_MEMORY = timedelta(days=1)


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(order=True)
class _Entry:
    due: datetime
    seq: int
    task: HttpTask = field(compare=False)
    retries: int = field(compare=False, default=0)


class InProcessTaskQueue:
    """TaskQueue on threads: POSTs each task with httpx at its time, retrying non-2xx answers."""

    def __init__(
        self,
        *,
        retry_delays: Sequence[timedelta],
        client: httpx.Client | None = None,
        clock: Callable[[], datetime] = _utc_now,
        threads: int = 2,
    ) -> None:
        self._delays = tuple(retry_delays)
        self._client = client  # made by the first task: an httpx client costs ~0.2 s to build
        self._client_lock = threading.Lock()
        self._clock = clock
        self._heap: list[_Entry] = []
        self._names: dict[str, datetime] = {}
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._stopping = False
        self._threads = [
            threading.Thread(target=self._run, name=f"tasks-{i}", daemon=True)
            for i in range(threads)
        ]
        self._started = False

    def start(self) -> None:
        """Start the worker threads (once)."""
        with self._cond:
            if self._started:
                return
            self._started = True
        for thread in self._threads:
            thread.start()

    def close(self) -> None:
        """Stop the workers; queued tasks are dropped."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._started:
            for thread in self._threads:
                thread.join(timeout=40)
        if self._client is not None:
            self._client.close()

    def enqueue(self, task: HttpTask) -> bool:
        now = self._clock()
        with self._cond:
            self._forget_old_names(now)
            if task.name in self._names:
                return False
            self._names[task.name] = now
            heapq.heappush(self._heap, _Entry(task.schedule_time or now, next(self._seq), task))
            self._cond.notify()
        return True

    def _forget_old_names(self, now: datetime) -> None:
        for name in [n for n, at in self._names.items() if at < now - NAME_MEMORY]:
            del self._names[name]

    def _next_entry(self) -> _Entry | None:
        with self._cond:
            while not self._stopping:
                if self._heap:
                    wait = (self._heap[0].due - self._clock()).total_seconds()
                    if wait <= 0:
                        return heapq.heappop(self._heap)
                    self._cond.wait(timeout=wait)
                else:
                    self._cond.wait()
        return None

    def _run(self) -> None:
        while (entry := self._next_entry()) is not None:
            if self._dispatch(entry):
                continue
            if entry.retries >= len(self._delays):
                logger.error(
                    "task %s dropped after %d attempts", entry.task.name, entry.retries + 1
                )
                continue
            due = self._clock() + self._delays[entry.retries]
            with self._cond:
                heapq.heappush(
                    self._heap, _Entry(due, next(self._seq), entry.task, entry.retries + 1)
                )
                self._cond.notify()

    def _http(self) -> httpx.Client:
        with self._client_lock:
            if self._client is None:
                import httpx

                self._client = httpx.Client(timeout=30.0, follow_redirects=False, trust_env=False)
            return self._client

    def _dispatch(self, entry: _Entry) -> bool:
        import httpx

        task = entry.task
        headers = {
            **task.headers,
            "X-CloudTasks-TaskName": task.name,
            "X-CloudTasks-TaskRetryCount": str(entry.retries),
        }
        try:
            response = self._http().post(task.url, content=task.body, headers=headers)
        except httpx.HTTPError as err:
            logger.warning("task %s failed: %s", task.name, type(err).__name__)
            return False
        if 200 <= response.status_code < 300:
            return True
        logger.warning("task %s answered %d", task.name, response.status_code)
        return False
