"""DurableQueue: the embedded stand-in for a Pub/Sub push subscription, on disk in DATA_DIR.

`publish` returns once the message is committed to the queue table (backends/embedded/
queue_table.py), so a 2xx given after it survives a kill -9. Worker threads claim messages
with a lease: a handler that returns acks, one that raises gets the message again after a
back-off, and after `max_attempts` the message moves to the dead letters (`frontdoor queues
dead-letters` lists them, `frontdoor queues replay` queues them again). A lease is short
(`lease_seconds`) and renewed every third of it while its delivery runs, as a Pub/Sub
subscriber extends its ack deadline, so a message whose worker died is claimed again a lease
after the worker's last renewal, by this process or any other on the same file, and at once
by the next start on the same host once the worker's process is gone (its lease names the
host, pid and start time: backends/lease_holders.py). One whose worker died holding its last
attempt is dead-lettered by the next claim, and `on_dead_letter` hears of it as of any other
(Pub/Sub pushes both to the dead-letter worker).

`start_batches` hands a worker up to `batch` due messages at once (one claim, one handler call,
one ack transaction), as a Pub/Sub pull subscriber takes several messages per pull: a message
`decode` refuses is acked alone at once; if the handler raises on the batch, each message is
then handed to it alone, in the same delivery: those it takes are acked, and each it raises on
is delivered again (or dead-lettered) on its own attempt count, as if it had come alone. So one
message that always fails goes to the dead letters by itself, never taking the messages that
shared its batch with it. After a claim that did not fill the batch, the worker waits
`linger_seconds` before claiming again, so messages that come one at a time are handled
together (each waits at most that long more).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from backends.embedded.queue_table import Leased, QueueTable
from backends.lease_holders import holder_gone, new_holder
from backends.ports import DeliverLaterError

logger = logging.getLogger(__name__)

T = TypeVar("T")

# Other processes' messages and lapsed leases are noticed by polling this often when idle.
POLL_SECONDS = 0.5
# A lease is renewed every third of its length while its delivery runs, for this long at most
# (as a push subscription's ack deadline bounds a push, or the Pub/Sub client's
# max_lease_duration a pull): a handler hung past it loses its messages to another worker.
MAX_HOLD_SECONDS = 3600.0


class DurableQueue:
    """Messages (bytes) on disk, handled by `threads` worker threads started by `start`."""

    def __init__(
        self,
        table: QueueTable,
        name: str,
        *,
        threads: int = 2,
        batch: int = 1,
        linger_seconds: float = 0.0,
        max_attempts: int = 5,
        backoff: Callable[[int], float] | None = None,
        lease_seconds: float = 10.0,
        max_hold_seconds: float = MAX_HOLD_SECONDS,
        poll_seconds: float = POLL_SECONDS,
        on_dead_letter: Callable[[bytes], None] | None = None,
    ) -> None:
        self.table = table
        self.name = name
        self._threads_wanted = threads
        self._batch = batch
        self._linger = linger_seconds
        self._max_attempts = max_attempts
        self._backoff = backoff or (lambda attempt: 0.05 * 2 ** (attempt - 1))
        self._lease = lease_seconds
        self._max_hold = max_hold_seconds
        self._poll = poll_seconds
        self._on_dead_letter = on_dead_letter
        self._deliver: Callable[[list[Leased]], None] | None = None
        self._wake = threading.Condition()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._handled = 0
        self._held: dict[int, tuple[Leased, float]] = {}  # message id -> (lease, claimed at)
        self._held_lock = threading.Lock()

    def set_dead_letter_handler(self, handler: Callable[[bytes], None] | None) -> None:
        """Called with a message's body when it is dead-lettered (before the threads start)."""
        self._on_dead_letter = handler

    def start(self, handler: Callable[[bytes], None]) -> None:
        """Start the worker threads (once); `handler` raises to have the message again."""
        self.start_leased(lambda message: handler(message.body))

    def start_leased(self, handler: Callable[[Leased], None]) -> None:
        """As `start`, for a handler that reads the delivery's attempt count too."""

        def deliver(leased: list[Leased]) -> None:
            for message in leased:
                self._attempt([message], lambda: handler(message))  # noqa: B023  # called at once

        self._start(deliver)

    def start_batches(
        self, decode: Callable[[bytes], T | None], handler: Callable[[list[T]], None]
    ) -> None:
        """Start the worker threads (once), each handing up to `batch` claimed messages to one
        `handler` call, decoded: a message `decode` gives None for (malformed: `decode` logs why)
        is acked alone; the handler returns to ack the rest in one transaction. If it raises,
        each message is handed to it alone: acked if it returns, else delivered again (or
        dead-lettered) on its own attempt count."""

        def deliver(leased: list[Leased]) -> None:
            decoded: list[tuple[Leased, T | None]] = []
            for message in leased:
                try:
                    decoded.append((message, decode(message.body)))
                except Exception as err:  # the worker's top level: a decoder bug, retry it alone
                    logger.exception("%s: decoding failed", self.name)
                    self._failed(message, f"{type(err).__name__}: {err}")
            self.table.ack_all([message for message, value in decoded if value is None])
            kept = [(message, value) for message, value in decoded if value is not None]
            if len(kept) > 1:
                values = [value for _, value in kept]
                if self._attempt([m for m, _ in kept], lambda: handler(values), alone=False):
                    return
            for message, value in kept:  # one alone, or each of a batch the handler refused
                self._attempt([message], lambda: handler([value]))  # noqa: B023  # called at once

        self._start(deliver)

    def _start(self, deliver: Callable[[list[Leased]], None]) -> None:
        with self._wake:
            if self._threads:
                return
            self._deliver = deliver
            self._threads = [
                threading.Thread(target=self._run, name=f"{self.name}-{i}", daemon=True)
                for i in range(self._threads_wanted)
            ]
            self._threads.append(
                threading.Thread(target=self._renew_leases, name=f"{self.name}-lease", daemon=True)
            )
        self._release_gone()
        for thread in self._threads:
            thread.start()

    def publish(self, message: bytes) -> None:
        """Commit one message to disk, then wake a worker."""
        self.publish_batch([message])

    def publish_batch(self, messages: Sequence[bytes]) -> None:
        """Commit messages in one transaction, then wake the workers (if they still run: a closed
        queue keeps what is published for the next start)."""
        self.table.put(self.name, messages)
        self.notify()

    def notify(self) -> None:
        """Wake the workers (a message was put on the table by someone else in this process)."""
        with self._wake:
            self._wake.notify_all()

    def waiting(self) -> int:
        """Messages not yet acked or dead-lettered."""
        return self.table.waiting(self.name)

    def drain(self, timeout: float = 10.0) -> bool:
        """Wait until every message on disk has been handled or dead-lettered."""
        deadline = time.monotonic() + timeout
        while self.waiting():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            with self._wake:
                self._wake.wait(min(left, 0.02))
        return True

    def wait_handled(self, seconds: float) -> None:
        """Block up to `seconds`, waking early when a worker finishes a delivery."""
        with self._wake:
            seen = self._handled
            self._wake.wait_for(lambda: self._handled != seen, timeout=seconds)

    def close(self, timeout: float = 10.0) -> None:
        """Handle what is due now (up to `timeout`), then stop the workers after their current
        delivery; later messages (retries, schedules) stay on disk for the next start."""
        if self._stopping.is_set():
            return
        deadline = time.monotonic() + timeout
        while self._threads and self.table.due_now(self.name) and time.monotonic() < deadline:
            with self._wake:
                self._wake.wait(0.02)
        self._stopping.set()
        self.notify()
        for thread in self._threads:
            thread.join(timeout)

    def _run(self) -> None:
        owner = new_holder()
        while not self._stopping.is_set():
            try:
                leased, buried = self.table.claim_due(
                    self.name,
                    owner=owner,
                    lease_seconds=self._lease,
                    max_attempts=self._max_attempts,
                    limit=self._batch,
                )
            except Exception:  # the worker's top level: a locked or failing file, try later
                logger.exception("%s: claiming failed", self.name)
                leased, buried = [], []
            for body in buried:  # its worker died holding its last attempt
                self._dead_lettered(body, attempts=self._max_attempts)
            if not leased:
                self._idle()
                continue
            assert self._deliver is not None  # noqa: S101  # _start sets it before any thread
            self._hold(leased)
            try:
                self._deliver(leased)
            except Exception:  # the worker's top level: acking failed; the leases will lapse
                logger.exception("%s: settling a delivery failed", self.name)
            finally:
                self._unhold(leased)
            with self._wake:
                self._handled += 1
                self._wake.notify_all()
            if len(leased) < self._batch and self._linger:
                # Messages come one by one (page views): let the next ones gather.
                self._stopping.wait(self._linger)

    def _release_gone(self) -> None:
        """At start: messages leased to processes of this host that exited are due now."""
        try:
            released = self.table.release_gone(self.name, gone=holder_gone)
        except Exception:  # a start's best effort: the leases lapse on their own otherwise
            logger.exception("%s: releasing the leases of exited processes failed", self.name)
            return
        if released:
            logger.warning(
                "%s: %d messages held by exited processes delivered again",
                self.name,
                released,
                extra={"queue": self.name},
            )

    def _hold(self, leased: list[Leased]) -> None:
        now = time.monotonic()
        with self._held_lock:
            self._held.update((message.id, (message, now)) for message in leased)

    def _unhold(self, leased: list[Leased]) -> None:
        with self._held_lock:
            for message in leased:
                self._held.pop(message.id, None)

    def _renew_leases(self) -> None:
        """Extend the leases of the messages being handled, every third of a lease."""
        while not self._stopping.wait(self._lease / 3):
            cutoff = time.monotonic() + self._lease - self._max_hold
            with self._held_lock:
                held = [message for message, since in self._held.values() if since > cutoff]
            try:
                self.table.renew(held, lease_seconds=self._lease)
            except Exception:  # the renewer's top level: a locked file, try at the next turn
                logger.exception("%s: renewing leases failed", self.name)

    def _idle(self) -> None:
        wait = self._poll
        due = self.table.next_due(self.name)
        if due is not None:
            wait = max(0.0, min(wait, due - time.time()))
        with self._wake:
            if not self._stopping.is_set():
                self._wake.wait(wait)

    def _attempt(
        self, messages: list[Leased], work: Callable[[], None], *, alone: bool = True
    ) -> bool:
        """Run one delivery of `messages`: ack them all if `work` returns, else retry each.

        With `alone` false (a batch that will be handed over again one by one if `work`
        raises), a failure is logged and left to the caller: False, nothing settled.
        """
        try:
            work()
        except DeliverLaterError as err:  # expected (a job held by another worker)
            logger.info("%s: delivering again later (%s)", self.name, err)
            for message in messages:
                self.table.retry(
                    message,
                    delay=max(1.0, self._backoff(message.attempts)),
                    error=str(err),
                    max_attempts=self._max_attempts,
                    count=False,
                )
            return True
        except Exception as err:  # the worker's top level: log, then redeliver
            if not alone:
                logger.warning(
                    "%s: handler failed on a batch of %d; handing each over alone",
                    self.name,
                    len(messages),
                    exc_info=True,
                )
                return False
            logger.exception(
                "%s: handler failed on attempt %d",
                self.name,
                max(message.attempts for message in messages),
                extra={"messages": len(messages)},
            )
            for message in messages:
                self._failed(message, f"{type(err).__name__}: {err}")
            return True
        self.table.ack_all(messages)
        return True

    def _failed(self, message: Leased, error: str) -> None:
        kept = self.table.retry(
            message,
            delay=self._backoff(message.attempts),
            error=error,
            max_attempts=self._max_attempts,
        )
        if not kept:
            self._dead_lettered(message.body, attempts=message.attempts)

    def _dead_lettered(self, body: bytes, *, attempts: int) -> None:
        """Tell the operator's log and the dead-letter handler (Pub/Sub's dead-letter push)."""
        logger.error(
            "%s: message dead-lettered after %d attempts (frontdoor queues dead-letters)",
            self.name,
            attempts,
            extra={"event": "dead_letter", "queue": self.name},
        )
        if self._on_dead_letter is not None:
            try:
                self._on_dead_letter(body)
            except Exception:  # the worker's top level: the dead letter is kept either way
                logger.exception("%s: dead-letter handler failed", self.name)
