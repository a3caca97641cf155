"""FirestoreOpenTransactions: the transactions a store has open, written down so that a crash
leaves no locks behind.

Firestore (and its emulator) locks every document a read-write transaction reads until the
transaction commits, is rolled back, or sits idle for 60 s. A worker killed mid-transaction
cannot roll back, so its locks stay for that minute, and the batch Pub/Sub delivers again, which
reads the same documents, waits on them. So a store records each transaction (its id and its
holder: host, process id and start, backends/lease_holders.py) before its first read, and the
record goes when the transaction ends (a commit deletes its own with its writes);
`release_abandoned` rolls back the recorded transactions whose holder is a process of this host
that is gone (at once), or that have been open longer than the call deadline and STALE_MARGIN (a
holder on another host, which no one can check: its round was given up at the deadline and
never commits after that, backends/gcp/firestore_errors.py; a commit already under way when the
rollback comes either lands or fails whole), and deletes their records.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Any

import grpc  # type: ignore[import-untyped]  # grpcio ships no stubs
from google.api_core import exceptions as gexc
from google.cloud import firestore
from google.cloud.firestore_v1.services.firestore import FirestoreClient
from google.cloud.firestore_v1.services.firestore.transports import FirestoreGrpcTransport

from backends.clock import utc_now
from backends.gcp.deadline import DEFAULT_DEADLINE, CallDeadline
from backends.lease_holders import holder_gone, new_holder

logger = logging.getLogger(__name__)

# Seconds between two looks for abandoned transactions by one process (one small read each).
SWEEP_SECONDS = 5.0
# Seconds past the call deadline before another host's open transaction counts as abandoned:
# room for the two hosts' clocks to differ.
STALE_MARGIN = 5.0
# Records one look examines: about one per transaction open at once, over every instance.
_SWEEP_LIMIT = 500


def rollback_client(*, emulator_host: str | None = None) -> FirestoreClient:
    """The Firestore API client that rolls back transactions by id; on an insecure channel
    when an emulator host is given."""
    if emulator_host:
        channel = grpc.insecure_channel(emulator_host)
        return FirestoreClient(transport=FirestoreGrpcTransport(channel=channel))
    return FirestoreClient()


class FirestoreOpenTransactions:
    """The open transactions of one process's stores, in the `open_transactions` collection."""

    def __init__(
        self,
        client: firestore.Client,
        *,
        rollback: Callable[[], FirestoreClient],
        database: str = "(default)",
        prefix: str = "",
        clock: Callable[[], datetime] = utc_now,
        deadline: CallDeadline = DEFAULT_DEADLINE,
        sweep_seconds: float = SWEEP_SECONDS,
    ) -> None:
        self._records = client.collection(f"{prefix}open_transactions")
        self._database = f"projects/{client.project}/databases/{database}"
        self._rollback_factory = rollback
        self._rollback_client: FirestoreClient | None = None
        self._clock = clock
        self._deadline = deadline
        self._stale = timedelta(seconds=deadline.seconds + STALE_MARGIN)
        self._sweep_seconds = sweep_seconds
        self._holder = new_holder()
        self._lock = threading.Lock()
        self._swept_at: float | None = None

    def opened(self, transaction_id: bytes) -> str:
        """Record a transaction just begun, before its first read; the record's id."""
        record = uuid.uuid4().hex
        self._records.document(record).set(
            {"holder": self._holder, "transaction": transaction_id, "opened_at": self._clock()},
            **self._deadline.write,
        )
        return record

    def delete_on_commit(self, transaction: firestore.Transaction, record: str) -> None:
        """Have the transaction delete its own record as it commits (no call of its own)."""
        transaction.delete(self._records.document(record))

    def closed(self, records: Iterable[str]) -> None:
        """Delete the records of transactions that ended without committing. One left behind
        by a failure here is rolled back and deleted once it is stale (a no-op then)."""
        for record in records:
            try:
                self._records.document(record).delete(**self._deadline.write)
            except (gexc.GoogleAPICallError, gexc.RetryError):
                logger.warning("open transaction record %s not deleted; a sweep will", record)

    def release_abandoned(self) -> int:
        """Roll back the recorded transactions whose holder is gone or that are stale, at most
        once every `sweep_seconds` per process (the first call looks at once); how many."""
        with self._lock:
            now = time.monotonic()
            if self._swept_at is not None and now - self._swept_at < self._sweep_seconds:
                return 0
            self._swept_at = now
            cutoff = self._clock() - self._stale
            released = 0
            query = self._records.limit(_SWEEP_LIMIT)
            for snap in query.stream(**self._deadline.read):
                data = snap.to_dict() or {}
                opened_at = data.get("opened_at")
                stale = not isinstance(opened_at, datetime) or opened_at < cutoff
                if not (stale or holder_gone(str(data.get("holder") or ""))):
                    continue
                self._roll_back(data.get("transaction"))
                snap.reference.delete(**self._deadline.write)
                released += 1
            if released:
                logger.info("rolled back %d transactions of workers gone or stale", released)
            return released

    def _roll_back(self, transaction_id: Any) -> None:
        if not isinstance(transaction_id, bytes) or not transaction_id:
            return
        if self._rollback_client is None:
            self._rollback_client = self._rollback_factory()
        # An error: it committed, expired or was rolled back meanwhile; nothing holds its locks.
        with contextlib.suppress(gexc.GoogleAPICallError):
            self._rollback_client.rollback(
                database=self._database, transaction=transaction_id, **self._deadline.write
            )
