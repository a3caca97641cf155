"""CallDeadline: how long one Google Cloud call may take, retries included (GOOGLE_CLOUD_DEADLINE).

The Google clients retry a failing call on their own policy for up to 60 s (a Firestore write
or transaction), 300 s (a Firestore read or query) or 600 s (a Pub/Sub publish, a CDN purge)
before its error reaches us; against a host that accepts connections and never answers, one
Firestore read hung 254 to 277 s. Every gcp adapter passes the pair held here instead: `retry=`
a `google.api_core.retry.Retry` whose total time is the deadline, and `timeout=` the deadline
for each attempt (Cloud Storage: its own retry predicate, this deadline; the CDN purge: the
timeout alone), so the error comes back in about the deadline and becomes `UnavailableError`
(a 503 with Retry-After; a retry of the queue's message).

A Firestore transaction is the exception: its begin, commit and rollback take no `retry=` or
`timeout=` through the client's public API (they keep the client's own 60 s policy). So each
round of a transaction runs in a thread of its own and is waited for `seconds` at most
(`bounded`); past that it is `UnavailableError`, and the thread is left to end on the client's
policy (rolled back if it gets as far as our body), at most `MAX_ABANDONED` of them at a time.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from google.api_core import exceptions as gexc
from google.api_core.retry import Retry, if_exception_type

from backends.ports import UnavailableError

T = TypeVar("T")

DEFAULT_SECONDS = 10.0
# Transactions past their deadline whose thread still waits on the client's own policy; when
# that many are waiting, the next transaction is refused at once: a store that answers no one
# should not gather threads.
MAX_ABANDONED = 32
# The clients' own back-off between attempts, capped well under any deadline we accept.
_INITIAL, _MAXIMUM, _MULTIPLIER = 0.1, 2.0, 1.3
# What the Firestore client itself retries on each kind of call (its transports' defaults): a
# read also after a deadline, a write only when the service refused it outright, so a write
# that may have landed is never sent twice.
_READ_RETRIED = (
    gexc.DeadlineExceeded,
    gexc.InternalServerError,
    gexc.ResourceExhausted,
    gexc.ServiceUnavailable,
)
_WRITE_RETRIED = (gexc.ResourceExhausted, gexc.ServiceUnavailable)


class CallDeadline:
    """The `retry=`/`timeout=` keyword arguments of reads and of writes for a deadline of
    `seconds`, and the bound on each round of a transaction (`bounded`)."""

    def __init__(self, seconds: float = DEFAULT_SECONDS) -> None:
        if seconds <= 0:
            raise ValueError(f"a deadline is a positive number of seconds, not {seconds}")
        self.seconds = seconds
        self.read: Mapping[str, Any] = {"retry": self.retry(_READ_RETRIED), "timeout": seconds}
        self.write: Mapping[str, Any] = {
            "retry": self.retry(_WRITE_RETRIED),
            "timeout": seconds,
        }
        self._lock = threading.Lock()
        self._abandoned = 0  # calls past their deadline still running

    def retry(self, retried: tuple[type[Exception], ...]) -> Retry:
        """A Retry of the clients' back-off on `retried` errors that gives up after `seconds`."""
        return Retry(
            predicate=if_exception_type(*retried),
            initial=_INITIAL,
            maximum=min(_MAXIMUM, self.seconds),
            multiplier=_MULTIPLIER,
            timeout=self.seconds,
        )

    def bounded(self, work: Callable[[threading.Event], T], *, what: str) -> T:
        """`work(given_up)` in a thread of its own, waited for `seconds` at most; its result or
        error. `given_up` is set once the caller stopped waiting: work that would write checks it
        first, so a call answered 503 does not land later.

        Raises: UnavailableError(what) past the deadline, or at once while MAX_ABANDONED
        earlier calls past theirs are still waiting on the client.
        """
        with self._lock:
            if self._abandoned >= MAX_ABANDONED:
                raise UnavailableError(f"{what}: {MAX_ABANDONED} calls still waiting")
        outcome: list[tuple[bool, Any]] = []
        done, given_up = threading.Event(), threading.Event()
        context = contextvars.copy_context()  # the request's log fields

        def run() -> None:
            try:
                outcome.append((True, context.run(work, given_up)))
            except BaseException as err:  # noqa: BLE001  # handed to the caller, re-raised there
                outcome.append((False, err))
            with self._lock:
                done.set()
                if abandoned:
                    self._abandoned -= 1

        abandoned = False
        threading.Thread(target=run, name=f"bounded {what}", daemon=True).start()
        if not done.wait(self.seconds):
            with self._lock:
                abandoned = not done.is_set()
                self._abandoned += abandoned
            if abandoned:
                given_up.set()
                raise UnavailableError(f"{what}: no answer within {self.seconds} s")
        finished, value = outcome[0]
        if not finished:
            raise value
        result: T = value
        return result


DEFAULT_DEADLINE = CallDeadline()
