"""On the Firestore emulator: one hot account, many writers at once.

20 concurrent writers send page views of people of one company domain; every write succeeds
(none fails for contention) and the roll-up's counts equal the events stored.
"""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest

from backends.ports import StreamQuery
from schemas.signals.events import NewEvent, Position, normalize_event

pytestmark = pytest.mark.emulator
WRITERS, BATCHES, PER_BATCH = 20, 5, 4


def page_view(writer: int, n: int, domain: str) -> NewEvent:
    now = datetime.now(UTC)
    raw = {
        "source": "site",
        "row_id": f"w{writer}-{n}",
        "type": "page_view",
        "occurred_at": now.isoformat(),
        "person": {"email": f"reader{writer}@{domain}"},
        "page": {"path": f"/p/page-{n % 9}"},
    }
    event = normalize_event(raw, now=now)
    assert isinstance(event, NewEvent)
    return event


@pytest.mark.spec("signals.accounts")
def test_twenty_concurrent_writers_of_one_domain_all_succeed_and_counts_match(
    firestore_emulator: object,
) -> None:
    """Scale on Google Cloud: a hot account does not fail writes for contention."""
    from backends.gcp.deadline import CallDeadline
    from backends.gcp.firestore import firestore_client
    from backends.gcp.signals import FirestoreSignalStore

    store = FirestoreSignalStore(
        firestore_client(project="demo-frontdoor"),
        prefix=f"t{uuid.uuid4().hex[:10]}_",
        settle=timedelta(0),
        # The emulator queues contended transactions behind lock waits of seconds
        # (notes/gcp-emulators.md), so a round of 20 writers on one shard can outlast the
        # default deadline there; this test is about contention, not a store that never answers.
        deadline=CallDeadline(120.0),
    )
    domain = f"hot{uuid.uuid4().hex[:6]}.example"

    def write(writer: int) -> int:
        stored = 0
        for b in range(BATCHES):
            batch = [page_view(writer, b * PER_BATCH + i, domain) for i in range(PER_BATCH)]
            stored += len(store.store_events(batch).new_ids)
        return stored

    with ThreadPoolExecutor(WRITERS) as pool:
        stored = sum(pool.map(write, range(WRITERS)))

    account = store.get_account(domain)
    events = store.read_stream(
        StreamQuery(
            domain=domain,
            after=Position(recorded_at=datetime(2000, 1, 1, tzinfo=UTC)),
            forward=True,
            limit=1000,
        )
    ).events
    assert stored == len(events) == WRITERS * BATCHES * PER_BATCH
    assert account is not None
    assert account.events == stored
    assert sum(account.pages.values()) == stored
    assert len(account.people) == WRITERS
    assert sum(b["events"] for b in account.people.values()) == stored


@pytest.mark.spec("signals.accounts")
def test_an_account_stored_whole_before_shards_keeps_its_history_once_written_again(
    firestore_emulator: object,
) -> None:
    """A roll-up document of the earlier layout becomes shard 0 before new events
    are folded, so its counts, people and stage carry on."""
    import dataclasses

    from backends.gcp.firestore import firestore_client
    from backends.gcp.signals import FirestoreSignalStore
    from backends.signal_codec import dump_rollup
    from schemas.signals.events import stamp_event
    from schemas.signals.rollups import fold_events

    client = firestore_client(project="demo-frontdoor")
    prefix = f"t{uuid.uuid4().hex[:10]}_"
    domain = f"old{uuid.uuid4().hex[:6]}.example"
    now = datetime.now(UTC)
    earlier = [stamp_event(page_view(w, 0, domain), now) for w in range(3)]
    accounts, _ = fold_events(earlier)
    old = dataclasses.replace(accounts[domain], heat_log=None, stage_reached_at=None, days={})
    client.collection(f"{prefix}signal_accounts").document(domain).set(
        {"domain": domain, "stage": old.stage, "last_recorded_at": now, "state": dump_rollup(old)}
    )
    store = FirestoreSignalStore(client, prefix=prefix, settle=timedelta(0))

    store.store_events([page_view(0, 1, domain), page_view(7, 1, domain)])

    account = store.get_account(domain)
    assert account is not None
    assert account.events == 5
    assert len(account.people) == 4
    assert account.people[f"reader0@{domain}"]["events"] == 2
    assert account.heat_log is not None
