"""The one translation of Firestore failures the Firestore adapters share."""

from __future__ import annotations

import threading

import pytest
from google.api_core import exceptions as gexc
from google.cloud import firestore

from backends.gcp.deadline import CallDeadline
from backends.gcp.firestore import firestore_client
from backends.gcp.firestore_errors import run_transaction, unavailable_when_transient
from backends.ports import UnavailableError
from tests.polling import wait_for

pytestmark = pytest.mark.emulator


def test_a_fault_of_ours_inside_a_transaction_goes_up_as_itself_not_as_unavailable(
    firestore_emulator: object, unique_prefix: str
) -> None:
    """Only the client's own give-up on a contended commit is contention (a 503 to retry)."""
    client = firestore_client(project="demo-frontdoor")
    ref = client.collection(f"{unique_prefix}faults").document("one")

    def body(tx: firestore.Transaction) -> None:
        ref.get(transaction=tx)
        raise ValueError("a record of ours that does not validate")

    with pytest.raises(ValueError, match="does not validate") as raised:
        run_transaction(client, body, rounds=3)

    assert not isinstance(raised.value, UnavailableError)
    assert not ref.get().exists


def test_a_transaction_that_commits_answers_its_body_once_in_a_round(
    firestore_emulator: object, unique_prefix: str
) -> None:
    """Rounds are for contention only: a commit that succeeds is not run again."""
    client = firestore_client(project="demo-frontdoor")
    ref = client.collection(f"{unique_prefix}counts").document("one")
    runs: list[int] = []

    def body(tx: firestore.Transaction) -> int:
        runs.append(1)
        seen = (ref.get(transaction=tx).to_dict() or {}).get("n", 0)
        tx.set(ref, {"n": seen + 1})
        return int(seen) + 1

    assert run_transaction(client, body, rounds=5) == 1
    assert (runs, ref.get().to_dict()) == ([1], {"n": 1})


def test_the_clients_retry_running_out_of_time_is_unavailable() -> None:
    """What a read against a Firestore that stays down ends in, after up to 300 s of the
    client's retries: its RetryError over the last failure, a 503 to retry, not a 500."""
    last = gexc.ServiceUnavailable("connection refused")  # type: ignore[no-untyped-call]

    with pytest.raises(UnavailableError), unavailable_when_transient():
        raise gexc.RetryError("Timeout of 300.0s exceeded", last)  # type: ignore[no-untyped-call]


def test_a_transaction_round_past_its_deadline_is_unavailable_and_rolled_back_not_committed(
    firestore_emulator: object, unique_prefix: str
) -> None:
    """A write answered 503 does not land later: the round left running ends in a rollback."""
    client = firestore_client(project="demo-frontdoor")
    ref = client.collection(f"{unique_prefix}late").document("one")
    assert not ref.get().exists  # a first call through the channel can outlast the deadline
    release, reached = threading.Event(), threading.Event()

    def body(tx: firestore.Transaction) -> None:
        ref.get(transaction=tx)
        reached.set()
        release.wait(30)  # the caller's deadline passes meanwhile
        tx.set(ref, {"landed": True})

    with pytest.raises(UnavailableError, match="no answer within"):
        run_transaction(client, body, deadline=CallDeadline(0.5))
    release.set()

    wait_for(
        lambda: not any(t.name == "bounded firestore transaction" for t in threading.enumerate()),
        timeout=30,
        what="the round left running to end",
    )
    assert reached.is_set()
    assert not ref.get().exists
