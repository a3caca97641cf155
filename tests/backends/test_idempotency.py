"""Contract suite for IdempotencyStore: one behaviour on SQLite and on the Firestore emulator."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from backends.embedded.idempotency import SqliteIdempotencyStore
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import IDEMPOTENCY_LEASE, IDEMPOTENCY_TTL, IdempotencyStore, StoredResponse

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
RESPONSE = StoredResponse(
    status=201, body=b'{"ok": true}', headers=(("ETag", '"v1"'), ("Location", "/x"))
)


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[IdempotencyStore]:
    if request.param == "sqlite":
        yield SqliteIdempotencyStore(SqliteDatabase(tmp_path / "idem.sqlite3"))
        return
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.firestore import firestore_client
    from backends.gcp.idempotency import FirestoreIdempotencyStore

    prefix = f"t{uuid.uuid4().hex[:10]}_"
    yield FirestoreIdempotencyStore(firestore_client(project="demo-frontdoor"), prefix=prefix)


@pytest.mark.spec("content.idempotency")
def test_the_first_use_of_a_key_is_new(store: IdempotencyStore) -> None:
    """DESIGN Generation: Idempotency-Key, IETF draft semantics."""
    assert store.begin(scope="k1", key="abc", fingerprint="f1", now=NOW).state == "new"


def test_a_repeat_while_the_first_runs_is_in_flight(store: IdempotencyStore) -> None:
    """DESIGN: 409 idempotency_in_flight while the first is still running."""
    store.begin(scope="k1", key="abc", fingerprint="f1", now=NOW)

    again = store.begin(scope="k1", key="abc", fingerprint="f1", now=NOW + timedelta(seconds=1))

    assert again.state == "in_flight"


def test_a_completed_key_replays_the_stored_response(store: IdempotencyStore) -> None:
    """DESIGN: a repeat returns the stored first result."""
    store.begin(scope="k1", key="abc", fingerprint="f1", now=NOW)
    store.complete(scope="k1", key="abc", fingerprint="f1", response=RESPONSE, now=NOW)

    again = store.begin(scope="k1", key="abc", fingerprint="f1", now=NOW + timedelta(hours=1))

    assert again.state == "replay"
    assert again.response == RESPONSE


def test_the_same_key_with_another_body_is_a_mismatch(store: IdempotencyStore) -> None:
    """DESIGN: 422 idempotency_key_reused if the body differs."""
    store.begin(scope="k1", key="abc", fingerprint="f1", now=NOW)
    store.complete(scope="k1", key="abc", fingerprint="f1", response=RESPONSE, now=NOW)

    assert store.begin(scope="k1", key="abc", fingerprint="f2", now=NOW).state == "mismatch"


def test_keys_are_scoped_per_partner_key(store: IdempotencyStore) -> None:
    """DESIGN: keys are scoped per partner key."""
    store.begin(scope="k1", key="abc", fingerprint="f1", now=NOW)

    assert store.begin(scope="k2", key="abc", fingerprint="other", now=NOW).state == "new"


def test_entries_expire_after_24_hours(store: IdempotencyStore) -> None:
    """DESIGN: keys are kept 24 hours."""
    store.begin(scope="k1", key="abc", fingerprint="f1", now=NOW)
    store.complete(scope="k1", key="abc", fingerprint="f1", response=RESPONSE, now=NOW)

    just_before = store.begin(
        scope="k1", key="abc", fingerprint="f2", now=NOW + IDEMPOTENCY_TTL - timedelta(seconds=1)
    )
    after = store.begin(scope="k1", key="abc", fingerprint="f2", now=NOW + IDEMPOTENCY_TTL)

    assert just_before.state == "mismatch"
    assert after.state == "new"


def test_a_released_claim_lets_a_retry_run(store: IdempotencyStore) -> None:
    """DESIGN: a request that failed on our side keeps nothing, so its retry runs."""
    store.begin(scope="k1", key="abc", fingerprint="f1", now=NOW)

    store.release(scope="k1", key="abc", fingerprint="f1")

    assert store.begin(scope="k1", key="abc", fingerprint="f1", now=NOW).state == "new"


def test_an_abandoned_claim_lapses_after_its_lease(store: IdempotencyStore) -> None:
    """DESIGN: a crashed request does not hold its key for a day."""
    store.begin(scope="k1", key="abc", fingerprint="f1", now=NOW)

    assert (
        store.begin(scope="k1", key="abc", fingerprint="f1", now=NOW + IDEMPOTENCY_LEASE).state
        == "new"
    )


def test_two_concurrent_first_uses_claim_the_key_once(store: IdempotencyStore) -> None:
    """DESIGN: one key never runs the request twice."""
    states: list[str] = []
    lock = threading.Lock()

    def claim() -> None:
        state = store.begin(scope="k1", key="race", fingerprint="f1", now=NOW).state
        with lock:
            states.append(state)

    threads = [threading.Thread(target=claim) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)

    assert sorted(states) == ["in_flight", "new"]
