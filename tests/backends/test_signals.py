"""Contract suite for SignalStore: the same behaviour on SQLite and on the Firestore emulator."""

from __future__ import annotations

import random
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from backends.embedded.signals import SqliteSignalStore
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import AccountQuery, SignalStore, StreamQuery, UnavailableError
from backends.signal_codec import dump_rollup
from schemas.signal_rollups import RANK, AccountRollup, PersonRollup, fold_event
from schemas.signals import EVENT_TYPES, Event, NewEvent, Position, normalize_event

EPOCH = Position(recorded_at=datetime(2000, 1, 1, tzinfo=UTC))
StoreFactory = Callable[..., SignalStore]


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """A factory, so a test can ask Firestore for a settle window of its own."""
    if request.param == "sqlite":
        db = SqliteDatabase(tmp_path / "signals.sqlite3")
        yield lambda **_: SqliteSignalStore(db)
        return
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.firestore import firestore_client
    from backends.gcp.signals import FirestoreSignalStore

    client = firestore_client(project="demo-frontdoor")
    prefix = f"t{uuid.uuid4().hex[:10]}_"

    def build(settle: timedelta = timedelta(0), **_: Any) -> SignalStore:
        return FirestoreSignalStore(client, prefix=prefix, settle=settle, max_attempts=40)

    yield build


@pytest.fixture
def store(make_store: StoreFactory) -> SignalStore:
    return make_store()


def event(
    row_id: str,
    *,
    type: str = "article_read",  # the field's own name
    email: str | None = "ada@acme.com",
    domain: str | None = None,
    path: str | None = "/blog/one",
    occurred_at: datetime | None = None,
    source: str = "crm",
    **extra: Any,
) -> NewEvent:
    now = datetime.now(UTC)
    raw = {
        "source": source,
        "row_id": row_id,
        "type": type,
        "occurred_at": (occurred_at or now).isoformat(),
        "person": {"email": email, "name": "Ada"} if email else {},
        "account": {"domain": domain} if domain else {},
        "page": {"path": path, "title": "Field notes"} if path else {},
        **extra,
    }
    result = normalize_event(raw, now=now)
    assert isinstance(result, NewEvent), result
    return result


def walk(
    store: SignalStore, after: Position = EPOCH, *, limit: int = 4
) -> tuple[list[str], Position]:
    """Follow the stream forward until has_more is false; every id seen, in stream order."""
    seen: list[str] = []
    while True:
        page = store.read_stream(StreamQuery(after=after, forward=True, limit=limit))
        assert [e.recorded_at for e in page.events] == sorted(
            (e.recorded_at for e in page.events), reverse=True
        )
        seen += [e.id for e in reversed(page.events)]
        after = page.last or after
        if not page.has_more:
            return seen, after


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


def reference_rollups(
    events: list[Event],
) -> tuple[dict[str, AccountRollup], dict[str, PersonRollup]]:
    """DESIGN Signals' rules as `fold_event` applies them, event by event in stream order."""
    accounts: dict[str, AccountRollup] = {}
    people: dict[str, PersonRollup] = {}
    for e in events:
        email, domain = e.person.email, e.account.domain
        account, person = fold_event(
            accounts.get(domain) if domain else None, people.get(email) if email else None, e
        )
        if account is not None:
            accounts[account.domain] = account
        if person is not None:
            people[person.email] = person
    return accounts, people


def random_events(rng: random.Random, count: int) -> list[NewEvent]:
    """Events over a few accounts, people (one on free mail), anonymous visits and pages."""
    emails = [f"p{i}@{d}" for i, d in enumerate(["acme.com", "beta.example", "acme.com"] * 9)]
    emails.append("ada@gmail.com")
    base = datetime.now(UTC) - timedelta(days=3)
    out = []
    for i in range(count):
        email = rng.choice([*emails, None])
        out.append(
            event(
                f"r{i}",
                # mostly opens (aware), so the 3-pages rule decides many stages
                type="email_open" if rng.random() < 0.9 else rng.choice(EVENT_TYPES),
                email=email,
                domain=rng.choice(["acme.com", "gamma.example", None]) if email is None else None,
                path=rng.choice(["/a", "/b", "/c", "/d", "/blog/e", None, None, None]),
                occurred_at=base + timedelta(minutes=rng.randrange(0, 4000)),
                source=rng.choice(["crm", "site", "mail"]),
            )
        )
    return out


@pytest.mark.spec("signals.accounts")
def test_rollups_equal_the_event_by_event_fold_of_the_stream(store: SignalStore) -> None:
    """DESIGN Signals: roll-ups are updated per event; whatever the storage layout, they are
    what folding the stream event by event gives (stages, pages, people, sources, times)."""
    rng = random.Random(6)  # noqa: S311  # test data, not secrets
    events = random_events(rng, 240)
    start = 0
    while start < len(events):
        size = rng.randrange(1, 60)
        resent = events[max(0, start - 3) : start]  # a redelivery overlapping the last batch
        store.store_events(resent + events[start : start + size])
        start += size

    stream = store.read_stream(StreamQuery(after=EPOCH, forward=True, limit=1000)).events
    accounts, people = reference_rollups(list(reversed(stream)))

    assert len(stream) == len(events)
    assert {d: store.get_account(d) for d in accounts} == accounts
    assert {e: store.get_person(e) for e in people} == people
    listed, _ = store.list_accounts(AccountQuery(active_since=EPOCH.recorded_at, limit=10))
    assert sorted(a.domain for a in listed) == sorted(accounts)


# The first embedded layout: each roll-up one JSON document (kept here to build old files).
FIRST_LAYOUT = """
CREATE TABLE signal_accounts (
    domain TEXT PRIMARY KEY, stage_rank INTEGER NOT NULL, last_rec_us INTEGER NOT NULL,
    state TEXT NOT NULL
);
CREATE INDEX signal_accounts_recent ON signal_accounts (last_rec_us);
CREATE TABLE signal_people (email TEXT PRIMARY KEY, state TEXT NOT NULL);
"""


@pytest.mark.spec("signals.accounts")
def test_a_data_file_of_the_first_layout_is_converted_on_open(tmp_path: Path) -> None:
    """Roll-ups kept as JSON documents by earlier versions are converted, then folded on."""
    events = random_events(random.Random(8), 120)  # noqa: S311  # test data
    old = SqliteSignalStore(SqliteDatabase(tmp_path / "old.sqlite3"))
    old.store_events(events)
    stream = old.read_stream(StreamQuery(after=EPOCH, forward=True, limit=1000)).events
    accounts, people = reference_rollups(list(reversed(stream)))
    conn = sqlite3.connect(tmp_path / "old.sqlite3", isolation_level=None)
    for table in ("person_rollups", "account_rollups", "person_pages", "account_pages"):
        conn.execute(f"DROP TABLE signal_{table}")
    conn.execute("DROP TABLE signal_account_people")
    conn.executescript(FIRST_LAYOUT)
    conn.executemany(
        "INSERT INTO signal_people VALUES (?, ?)",
        [(p.email, dump_rollup(p)) for p in people.values()],
    )
    conn.executemany(
        "INSERT INTO signal_accounts VALUES (?, ?, ?, ?)",
        [(a.domain, RANK[a.stage], 0, dump_rollup(a)) for a in accounts.values()],
    )
    conn.close()

    store = SqliteSignalStore(SqliteDatabase(tmp_path / "old.sqlite3"))
    converted = (
        {d: store.get_account(d) for d in accounts},
        {e: store.get_person(e) for e in people},
    )
    store.store_events([event("after", email="p0@acme.com", path="/z")])
    tables = {
        r[0]
        for r in sqlite3.connect(tmp_path / "old.sqlite3").execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"
        )
    }

    assert converted == (accounts, people)
    assert store.get_account("acme.com").events == accounts["acme.com"].events + 1  # type: ignore[union-attr]
    assert store.get_person("p0@acme.com").pages["/z"] == 1  # type: ignore[union-attr]
    assert not {"signal_people", "signal_accounts"} & tables


@pytest.mark.spec("signals.erase")
def test_erasure_is_safe_to_repeat_and_a_later_event_is_erased_by_the_next_one(
    store: SignalStore,
) -> None:
    """DESIGN Signals: erasure is idempotent; an event stored after it is kept until the
    erasure is repeated (content/docs/signals-api.md, "People")."""
    store.store_events(
        [
            event("1", email="ada@acme.com", type="book_call", path="/pricing"),
            event("2", email="ada@acme.com", domain="beta.example", path="/b"),
            event("3", email="bob@acme.com", path="/blog/a"),
        ]
    )
    first = store.erase_person("ada@acme.com")
    acme = store.get_account("acme.com")

    again = store.erase_person("ada@acme.com")
    store.store_events([event("4", email="ada@acme.com", path="/late")])
    late = store.get_person("ada@acme.com")
    third = store.erase_person("ada@acme.com")

    assert (first, again, third) == (["crm:1", "crm:2"], [], ["crm:4"])
    assert store.get_account("beta.example") is None
    assert acme is not None
    assert (list(acme.people), acme.events, acme.stage) == (["bob@acme.com"], 1, "engaged")
    assert late is not None
    assert late.events == 1
    assert store.get_person("ada@acme.com") is None
    assert store.get_account("acme.com") == acme
    assert walk(store)[0] == ["crm:3"]


@pytest.mark.emulator
@pytest.mark.spec("signals.erase")
def test_a_firestore_erasure_that_failed_part_way_is_finished_by_a_retry(
    request: pytest.FixtureRequest, unique_prefix: str
) -> None:
    """The retry finds what it needs: accounts are rebuilt and the person document deleted
    before any event goes, so a failure part way leaves events that still name the person."""
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.firestore import firestore_client
    from backends.gcp.signals import FirestoreSignalStore

    class FailsAfterOneAccount(FirestoreSignalStore):
        """A Firestore outage right after the first account is rebuilt."""

        def _rebuild_account(self, domain: str, *, without: str) -> None:
            super()._rebuild_account(domain, without=without)
            raise UnavailableError("firestore went away")

    client = firestore_client(project="demo-frontdoor")
    settled = timedelta(0)
    store = FirestoreSignalStore(client, prefix=unique_prefix, settle=settled)
    store.store_events(
        [
            event("1", email="ada@acme.com", type="book_call"),
            event("2", email="ada@acme.com", domain="beta.example", path="/b"),
            event("3", email="bob@acme.com", path="/blog/a"),
        ]
    )
    failing = FailsAfterOneAccount(client, prefix=unique_prefix, settle=settled)
    with pytest.raises(UnavailableError):
        failing.erase_person("ada@acme.com")

    retried = store.erase_person("ada@acme.com")

    acme = store.get_account("acme.com")
    assert retried == ["crm:1", "crm:2"]
    assert store.get_person("ada@acme.com") is None
    assert store.get_account("beta.example") is None
    assert acme is not None
    assert (list(acme.people), acme.events) == (["bob@acme.com"], 1)
    assert walk(store)[0] == ["crm:3"]
