"""How the Firestore adapters turn the client's failures into the ports' errors, and how many
times a transaction is tried.

A transient failure (unavailable, deadline exceeded, aborted) is `UnavailableError`, which the
surfaces answer 503 and the queues retry; a transaction the client gave up on after its attempts
(contention) is `UnavailableError("firestore contention")`; creating a document that exists is
`ConflictError`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from google.api_core import exceptions as gexc
from google.cloud import firestore

from backends.ports import ConflictError, UnavailableError

T = TypeVar("T")

TRANSIENT = (gexc.ServiceUnavailable, gexc.DeadlineExceeded, gexc.Aborted)
# The emulator locks pessimistically and aborts contended transactions (notes/gcp-emulators.md).
TRANSACTION_ATTEMPTS = 20


@contextmanager
def unavailable_when_transient() -> Iterator[None]:
    """Run the block; a transient Firestore failure in it raises `UnavailableError`."""
    try:
        yield
    except TRANSIENT as err:
        raise UnavailableError("firestore") from err


def create_document(ref: Any, doc: dict[str, Any], key: str) -> None:
    """Create the document at `ref`. Raises: ConflictError(key) if it exists, UnavailableError."""
    try:
        with unavailable_when_transient():
            ref.create(doc)
    except gexc.Conflict as err:
        raise ConflictError(key) from err


def run_transaction(
    client: firestore.Client,
    body: Callable[[firestore.Transaction], T],
    *,
    max_attempts: int = TRANSACTION_ATTEMPTS,
) -> T:
    """`body` (a `@firestore.transactional` function) in a transaction of `max_attempts` tries.

    Raises: UnavailableError on a transient failure or when every attempt met contention.
    """
    try:
        with unavailable_when_transient():
            return body(client.transaction(max_attempts=max_attempts))
    except ValueError as err:
        if "Failed to commit transaction" not in str(err):
            raise
        raise UnavailableError("firestore contention") from err
