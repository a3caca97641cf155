"""A worker killed with SIGKILL in the middle of a Firestore transaction leaves no locks for long:
Firestore (and its emulator) keeps a transaction's read locks until it commits, is rolled
back, or has been idle 60 s, and a worker killed mid-transaction can do none of that. The
ingest transactions are recorded while open (backends/gcp/open_transactions.py), so the next
batch rolls back those of a holder gone from this host, or open past the call deadline and a
margin, and writes at once; a live holder's transaction is left to commit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from datetime import datetime, timedelta

import pytest
from google.cloud import firestore

from backends.clock import utc_now
from backends.gcp.deadline import CallDeadline
from backends.gcp.firestore import firestore_client
from backends.gcp.firestore_errors import run_transaction
from backends.gcp.open_transactions import (
    STALE_MARGIN,
    FirestoreOpenTransactions,
    rollback_client,
)
from backends.ports import UnavailableError
from tests.conftest import PROJECT
from tests.emulators import REPO

pytestmark = pytest.mark.emulator

# Shorter than the 60 s Firestore keeps an abandoned transaction's locks, longer than a write.
DEADLINE = CallDeadline(4.0)

HOLDER = """
import signal, sys
from google.cloud import firestore
from backends.gcp.deadline import CallDeadline
from backends.gcp.firestore import firestore_client
from backends.gcp.firestore_errors import run_transaction
from backends.gcp.open_transactions import FirestoreOpenTransactions, rollback_client

project, prefix = sys.argv[1], sys.argv[2]
client = firestore_client(project=project)
ledger = FirestoreOpenTransactions(client, rollback=rollback_client, prefix=prefix)

def hold(tx: firestore.Transaction) -> None:
    client.collection(prefix + "accounts").document("hot").get(transaction=tx)
    print("read", flush=True)
    signal.pause()  # holds the transaction open until the test kills this process

run_transaction(client, hold, deadline=CallDeadline(600), ledger=ledger)
"""


def _ledger(
    client: firestore.Client, prefix: str, clock: datetime | None = None
) -> FirestoreOpenTransactions:
    return FirestoreOpenTransactions(
        client,
        rollback=lambda: rollback_client(emulator_host=os.environ["FIRESTORE_EMULATOR_HOST"]),
        prefix=prefix,
        deadline=DEADLINE,
        clock=(lambda: clock) if clock else utc_now,
    )


def _bump(client: firestore.Client, prefix: str) -> int:
    """Read and write the hot document in a transaction of one try, within DEADLINE."""
    ref = client.collection(f"{prefix}accounts").document("hot")

    def bump(tx: firestore.Transaction) -> int:
        seen = int((ref.get(transaction=tx).to_dict() or {}).get("n", 0))
        tx.set(ref, {"n": seen + 1})
        return seen + 1

    return run_transaction(client, bump, deadline=DEADLINE, max_attempts=1)


@pytest.fixture
def killed_holder(firestore_emulator: object, unique_prefix: str) -> None:
    """A process that read the hot document in a recorded transaction, then was SIGKILLed."""
    holder = subprocess.Popen(  # noqa: S603  # our own fixed probe
        [sys.executable, "-c", HOLDER, PROJECT, unique_prefix],
        stdout=subprocess.PIPE,
        cwd=REPO,
        start_new_session=True,
    )
    assert holder.stdout is not None
    with holder.stdout:
        try:
            assert holder.stdout.readline().strip() == b"read"
        finally:
            os.killpg(holder.pid, signal.SIGKILL)
            holder.wait(10)


def test_a_transaction_of_a_killed_worker_is_rolled_back_and_its_documents_written_at_once(
    killed_holder: None, unique_prefix: str
) -> None:
    """The dead worker's locks would hold the write past its deadline; the sweep frees them."""
    client = firestore_client(project=PROJECT)
    with pytest.raises(UnavailableError):
        _bump(client, unique_prefix)  # the lock is there: the write waits past its deadline

    released = _ledger(client, unique_prefix).release_abandoned()

    assert released == 1
    assert _bump(client, unique_prefix) == 1
    assert list(client.collection(f"{unique_prefix}open_transactions").stream()) == []


def _hold_in_thread(
    client: firestore.Client, prefix: str, *, deadline: CallDeadline
) -> tuple[threading.Thread, threading.Event, threading.Event, list[object]]:
    """A live worker of this process: its recorded transaction reads the hot document, waits
    for `go`, then writes it; the thread, `reading`, `go`, and its outcome once it answers."""
    ref = client.collection(f"{prefix}accounts").document("hot")
    reading, go = threading.Event(), threading.Event()
    outcome: list[object] = []

    def hold(tx: firestore.Transaction) -> None:
        ref.get(transaction=tx)
        reading.set()
        go.wait(30)
        tx.set(ref, {"n": 1})

    def live_worker() -> None:
        ledger = _ledger(client, prefix)
        try:
            outcome.append(
                run_transaction(client, hold, deadline=deadline, max_attempts=1, ledger=ledger)
            )
        except UnavailableError as err:
            outcome.append(err)

    worker = threading.Thread(target=live_worker)
    worker.start()
    assert reading.wait(30)
    return worker, reading, go, outcome


def test_a_live_workers_transaction_is_left_to_commit(
    firestore_emulator: object, unique_prefix: str
) -> None:
    """A holder of this host that is alive is no one to roll back; its commit deletes its
    record."""
    client = firestore_client(project=PROJECT)
    worker, _, go, outcome = _hold_in_thread(client, unique_prefix, deadline=CallDeadline(30))

    kept = _ledger(client, unique_prefix).release_abandoned()
    go.set()
    worker.join(30)

    assert (kept, outcome) == (0, [None])
    assert list(client.collection(f"{unique_prefix}open_transactions").stream()) == []
    assert _bump(client, unique_prefix) == 2


def test_a_transaction_open_past_its_deadline_and_a_margin_is_rolled_back_whoever_holds_it(
    firestore_emulator: object, unique_prefix: str
) -> None:
    """A holder on another host cannot be checked: past the call deadline its round has been
    given up (answered 503), so past a margin more its transaction is rolled back and never
    lands."""
    client = firestore_client(project=PROJECT)
    worker, _, go, outcome = _hold_in_thread(client, unique_prefix, deadline=DEADLINE)
    worker.join(30)  # answered when its deadline passed; its transaction is still open
    later = utc_now() + timedelta(seconds=DEADLINE.seconds + STALE_MARGIN + 1)

    released = _ledger(client, unique_prefix, clock=later).release_abandoned()
    go.set()

    assert [type(answer) for answer in outcome] == [UnavailableError]
    assert released == 1
    assert _bump(client, unique_prefix) == 1
