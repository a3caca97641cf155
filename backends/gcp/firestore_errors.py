"""How the Firestore adapters turn the client's failures into the ports' errors, and how many
times a transaction is tried.

A transient failure (unavailable, deadline exceeded, aborted, or the client's own retry of such
failures running out of time) is `UnavailableError`, which the surfaces answer 503 and the queues
retry; a transaction the client gave up on after its attempts (contention) is
`UnavailableError("firestore contention")`; creating a document that exists is `ConflictError`.
A store whose documents many writers touch at once (the signal store's account shards) may ask
for rounds of attempts with a jittered back-off between them. Each round of a transaction is
waited for the adapter's deadline at most (backends/gcp/deadline.py).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from google.api_core import exceptions as gexc
from google.cloud import firestore

from backends.gcp.deadline import DEFAULT_DEADLINE, CallDeadline
from backends.ports import ConflictError, UnavailableError

T = TypeVar("T")

# RetryError: the client retried a transient failure until its call's deadline (up to 300 s for
# a read) and gave up; it carries the last failure as its cause.
TRANSIENT = (gexc.ServiceUnavailable, gexc.DeadlineExceeded, gexc.Aborted, gexc.RetryError)
# The emulator locks pessimistically and aborts contended transactions (notes/gcp-emulators.md).
TRANSACTION_ATTEMPTS = 20
# Seconds of back-off after a contended round, times the round's number; jittered so that
# writers which met on one document stop meeting.
_BACK_OFF = (0.05, 0.25)
_jitter = random.SystemRandom()


def usable_document_id(value: str) -> bool:
    """False for an id Firestore refuses outright (InvalidArgument, or a path): empty, `.`,
    `..`, `__x__`, one holding `/`, or past 1500 bytes. A lookup of such an id finds nothing."""
    reserved = len(value) >= 4 and value.startswith("__") and value.endswith("__")
    return (
        bool(value)
        and value not in (".", "..")
        and "/" not in value
        and not reserved
        and len(value.encode("utf-8", "surrogatepass")) <= 1500
    )


@contextmanager
def unavailable_when_transient() -> Iterator[None]:
    """Run the block; a transient Firestore failure in it raises `UnavailableError`."""
    try:
        yield
    except TRANSIENT as err:
        raise UnavailableError("firestore") from err


def _transient_under(err: BaseException) -> bool:
    """Whether a transient failure is among the errors `err` was raised over."""
    seen: BaseException | None = err.__cause__ or err.__context__
    while seen is not None:
        if isinstance(seen, TRANSIENT):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def create_document(
    ref: Any, doc: dict[str, Any], key: str, *, deadline: CallDeadline = DEFAULT_DEADLINE
) -> None:
    """Create the document at `ref`. Raises: ConflictError(key) if it exists, UnavailableError."""
    try:
        with unavailable_when_transient():
            ref.create(doc, **deadline.write)
    except gexc.Conflict as err:
        raise ConflictError(key) from err


def read_at_version(
    transaction: firestore.Transaction,
    ref: firestore.DocumentReference,
    *,
    expected: int,
    label: str,
    deadline: CallDeadline = DEFAULT_DEADLINE,
    must_exist: bool = False,
) -> Any:
    """`ref`'s snapshot read in `transaction`, when its stored `version` (0 for none) is
    `expected`: the compare of every versioned save (pages, variants, allocations,
    experiments). Raises: ConflictError naming `label` otherwise, or when `must_exist` and
    there is no document."""
    snap = ref.get(transaction=transaction, **deadline.read)
    current = int(snap.get("version")) if snap.exists else 0
    if current != expected or (must_exist and current == 0):
        raise ConflictError(f"{label}: version {current}, expected {expected}")
    return snap


class _ContendedError(Exception):
    """Every try of a round met contention (the client's ValueError is its cause)."""


def run_transaction(
    client: firestore.Client,
    body: Callable[[firestore.Transaction], T],
    *,
    deadline: CallDeadline = DEFAULT_DEADLINE,
    max_attempts: int = TRANSACTION_ATTEMPTS,
    rounds: int = 1,
) -> T:
    """`body` (the reads and writes of one transaction, made `@firestore.transactional` here)
    in a transaction of `max_attempts` tries; when every try of a round met contention, up to
    `rounds` rounds, backing off between them. Each round is given `deadline` (the reads in
    `body` pass `deadline.read`); past it, the round is rolled back, not committed, if it ever
    reaches the end of `body`.

    `body` runs again on every try, so it must start afresh each time.

    Raises: UnavailableError on a transient failure, past a round's deadline, or when every
    attempt met contention.
    """
    for round_ in range(1, rounds + 1):
        try:
            return deadline.bounded(
                lambda given_up: _attempt(
                    client, body, max_attempts=max_attempts, given_up=given_up
                ),
                what="firestore transaction",
            )
        except _ContendedError as err:
            if round_ == rounds:
                raise UnavailableError("firestore contention") from err.__cause__
        time.sleep(_jitter.uniform(*_BACK_OFF) * round_)
    raise ValueError(f"rounds must be at least 1, not {rounds}")


def _attempt(
    client: firestore.Client,
    body: Callable[[firestore.Transaction], T],
    *,
    max_attempts: int,
    given_up: threading.Event,
) -> T:
    """One round of `max_attempts` tries. Raises: _ContendedError when they all met contention."""

    def unless_given_up(transaction: firestore.Transaction) -> T:
        # Once the caller has answered (its deadline passed while begin or a read waited),
        # roll back rather than commit: a request answered 503 must not land later.
        if given_up.is_set():
            raise UnavailableError("firestore transaction past its deadline")
        result = body(transaction)
        if given_up.is_set():
            raise UnavailableError("firestore transaction past its deadline")
        return result

    try:
        with unavailable_when_transient():
            transactional = firestore.transactional(unless_given_up)
            done: T = transactional(client.transaction(max_attempts=max_attempts))
            return done
    except ValueError as err:
        # The client's own words when it gives up on a contended commit.
        if "Failed to commit transaction" in str(err):
            raise _ContendedError from err
        # A transaction whose begin failed cannot be rolled back, and the client says so with a
        # ValueError over the failure; any other ValueError is a fault of ours.
        if _transient_under(err):
            raise UnavailableError("firestore") from err
        raise
