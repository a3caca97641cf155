"""Contract suite for SignalStore: the same behaviour on SQLite and on the Firestore emulator."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from backends.ports import AccountQuery, SignalStore, StreamQuery
from tests.backends.signal_store.conftest import (
    EPOCH,
    StoreFactory,
    event,
    walk,
)


@pytest.mark.spec("signals.stream")
def test_walking_next_since_with_a_small_limit_returns_every_stored_id_exactly_once(
    store: SignalStore,
) -> None:
    """SPEC Events 2-3: newest-first pages, polled forward by next_since, no gap, no duplicate."""
    ids = [f"crm:{i}" for i in range(23)]
    for start in range(0, 23, 7):
        store.store_events([event(str(i)) for i in range(start, min(start + 7, 23))])

    seen, _ = walk(store, limit=4)

    assert seen == ids


@pytest.mark.spec("signals.ingest")
def test_the_same_ids_ingested_again_are_stored_once(store: SignalStore) -> None:
    """SPEC Events 1: the id `<source>:<row_id>` is the idempotency key."""
    first = store.store_events([event(str(i)) for i in range(5)])

    again = store.store_events([event(str(i)) for i in range(6)])

    assert first.new_ids == {f"crm:{i}" for i in range(5)}
    assert again.new_ids == {"crm:5"}
    assert [e.recorded_at for e in again.events[:5]] == [e.recorded_at for e in first.events]
    assert walk(store)[0] == [f"crm:{i}" for i in range(6)]
    account = store.get_account("acme.com")
    assert account is not None
    assert account.events == 6


@pytest.mark.spec("signals.stream")
def test_an_event_that_happened_a_week_ago_still_reaches_a_poller_past_that_time(
    store: SignalStore,
) -> None:
    """DESIGN Signals: the stream is ordered by recorded_at, so late events are never skipped."""
    store.store_events([event("now")])
    _, cursor = walk(store)

    store.store_events([event("late", occurred_at=datetime.now(UTC) - timedelta(days=7))])

    assert walk(store, cursor)[0] == ["crm:late"]


@pytest.mark.spec("signals.stream")
def test_four_concurrent_writers_and_a_poller_see_every_event_once(
    make_store: StoreFactory, request: pytest.FixtureRequest
) -> None:
    """DESIGN Signals: only settled writes are served, so concurrent writers open no gap."""
    emulated = "firestore" in request.node.callspec.id
    store = make_store(settle=timedelta(seconds=1.5))
    batches, size = (2, 2) if emulated else (10, 5)
    expected = {f"w{w}:{b}-{i}" for w in range(4) for b in range(batches) for i in range(size)}
    seen: list[str] = []
    done = threading.Event()

    def write(w: int) -> None:
        for b in range(batches):
            store.store_events(
                [event(f"{b}-{i}", source=f"w{w}", email=f"p{w}@w{w}.example") for i in range(size)]
            )

    def poll() -> None:
        after, deadline = EPOCH, time.monotonic() + 90
        while time.monotonic() < deadline and not (done.is_set() and len(seen) >= len(expected)):
            page = store.read_stream(StreamQuery(after=after, forward=True, limit=3))
            seen.extend(e.id for e in reversed(page.events))
            after = page.last or after
            if not page.has_more:
                threading.Event().wait(0.02)

    writers = [threading.Thread(target=write, args=(w,)) for w in range(4)]
    poller = threading.Thread(target=poll)
    poller.start()
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join()
    done.set()
    poller.join()

    assert sorted(seen) == sorted(expected)


@pytest.mark.spec("signals.accounts")
def test_rollups_keep_people_pages_sources_and_the_highest_stage(store: SignalStore) -> None:
    """DESIGN Signals: the account's stage is the highest reached by any of its people."""
    store.store_events(
        [
            event("1", email="ada@acme.com", path="/blog/a"),
            event("2", email="ada@acme.com", path="/blog/a"),
            event("3", email="bob@acme.com", type="lead_form", path="/p/launch", source="site"),
        ]
    )

    account = store.get_account("acme.com")
    ada = store.get_person("ada@acme.com")

    assert account is not None
    assert ada is not None
    assert account.stage == "hand_raiser"
    assert {e: p["stage"] for e, p in account.people.items()} == {
        "ada@acme.com": "engaged",
        "bob@acme.com": "hand_raiser",
    }
    assert account.pages == {"/blog/a": 2, "/p/launch": 1}
    assert account.sources == {"crm": 2, "site": 1}
    assert (ada.stage, ada.events, ada.domain) == ("engaged", 2, "acme.com")


@pytest.mark.spec("signals.accounts")
def test_three_distinct_pages_make_a_person_engaged(store: SignalStore) -> None:
    """DESIGN Signals: engaged is also reached at 3+ distinct pages."""
    store.store_events(
        [event("1", type="email_open", path="/a"), event("2", type="email_open", path="/b")]
    )
    before = store.get_person("ada@acme.com")

    store.store_events([event("3", type="email_open", path="/c")])

    assert before is not None
    assert before.stage == "aware"
    assert store.get_person("ada@acme.com").stage == "engaged"  # type: ignore[union-attr]


@pytest.mark.spec("signals.accounts")
def test_a_free_mail_address_makes_a_person_and_no_account(store: SignalStore) -> None:
    """DESIGN Signals: free-mail domains make a person, not an account."""
    store.store_events([event("1", email="ada@gmail.com")])

    assert store.get_account("gmail.com") is None
    assert store.get_person("ada@gmail.com") is not None


@pytest.mark.spec("signals.accounts")
def test_accounts_list_most_recent_first_filtered_by_stage_or_higher(store: SignalStore) -> None:
    """DESIGN Signals: `stage=X` on the accounts list means X or higher."""
    since = datetime.now(UTC) - timedelta(minutes=1)
    store.store_events([event("1", email="a@one.example", type="email_open")])
    store.store_events([event("2", email="b@two.example", type="research_unlock")])
    store.store_events([event("3", email="c@three.example", type="book_call")])

    every, more = store.list_accounts(AccountQuery(active_since=since, limit=2))
    warm, _ = store.list_accounts(
        AccountQuery(active_since=since, stages=("evaluating", "hand_raiser"))
    )

    assert [a.domain for a in every] == ["three.example", "two.example"]
    assert more
    assert [a.domain for a in warm] == ["three.example", "two.example"]


@pytest.mark.spec("signals.stream")
def test_stream_filters_by_type_domain_email_and_words(store: SignalStore) -> None:
    """SPEC Signal API: type, domain, email and q narrow the stream."""
    store.store_events(
        [
            event("1", email="ada@acme.com", type="book_call", path="/pricing"),
            event("2", email="bob@beta.example", type="article_read", path="/blog/growth-loops"),
            event("3", email="cy@acme.com", type="article_read", properties={"plan": "Scale"}),
        ]
    )

    def ids(**kwargs: Any) -> list[str]:
        page = store.read_stream(StreamQuery(after=EPOCH, forward=True, **kwargs))
        return sorted(e.id for e in page.events)

    assert ids(types=("article_read",)) == ["crm:2", "crm:3"]
    assert ids(domain="acme.com", types=("article_read",)) == ["crm:3"]
    assert ids(email="ada@acme.com") == ["crm:1"]
    assert ids(words=("growth", "loops")) == ["crm:2"]
    assert ids(words=("scale",), domain="acme.com") == ["crm:3"]


@pytest.mark.spec("signals.erase")
def test_erasing_a_person_removes_their_events_and_roll_up_contributions(
    store: SignalStore,
) -> None:
    """DESIGN Signals: erasure removes the person's events and roll-ups."""
    store.store_events(
        [
            event("1", email="ada@acme.com", type="book_call", path="/pricing"),
            event("2", email="bob@acme.com", type="article_read", path="/blog/a"),
        ]
    )

    removed = store.erase_person("ada@acme.com")

    account = store.get_account("acme.com")
    assert removed == ["crm:1"]
    assert store.get_person("ada@acme.com") is None
    assert walk(store)[0] == ["crm:2"]
    assert account is not None
    assert (account.stage, list(account.people), account.pages) == (
        "engaged",
        ["bob@acme.com"],
        {"/blog/a": 1},
    )


@pytest.mark.spec("signals.accounts")
def test_two_stores_on_one_database_fold_each_others_events_and_erasures(
    make_store: StoreFactory,
) -> None:
    """DESIGN Signals: roll-ups are updated per event, whichever writer stores it."""
    first, second = make_store(), make_store()
    first.store_events([event("1", path="/a")])
    second.store_events([event("2", path="/b")])
    first.store_events([event("3", path="/c", email="bob@acme.com")])

    second.erase_person("bob@acme.com")
    first.store_events([event("4", path="/d")])

    account, ada = first.get_account("acme.com"), second.get_person("ada@acme.com")
    assert ada is not None
    assert (ada.events, sorted(ada.pages)) == (3, ["/a", "/b", "/d"])
    assert account is not None
    assert (account.events, list(account.people), sorted(account.pages)) == (
        3,
        ["ada@acme.com"],
        ["/a", "/b", "/d"],
    )
