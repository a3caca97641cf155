"""Signal store contract, continued (both backends): roll-ups against the event-by-event fold,
the first layout converted on open, and erasure that is safe to repeat."""

from __future__ import annotations

import dataclasses
import random
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from backends.embedded.signals import SqliteSignalStore
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import AccountQuery, SignalStore, StreamQuery, UnavailableError
from backends.signal_codec import dump_rollup
from schemas.signals.rollups import RANK, AccountRollup, fold_events
from tests.backends.signal_store.conftest import (
    EPOCH,
    event,
    random_events,
    walk,
)


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
    accounts, people = fold_events(list(reversed(stream)))

    assert len(stream) == len(events)
    # Firestore sums an account's heat over its shards (backends/gcp/account_shards.py): the
    # same number up to float rounding.
    assert {d: _rounded(store.get_account(d)) for d in accounts} == {
        d: _rounded(a) for d, a in accounts.items()
    }
    assert {e: store.get_person(e) for e in people} == people
    listed, _ = store.list_accounts(AccountQuery(active_since=EPOCH.recorded_at, limit=10))
    assert sorted(a.domain for a in listed) == sorted(accounts)


def _rounded(rollup: AccountRollup | None) -> AccountRollup | None:
    if rollup is None or rollup.heat_log is None:
        return rollup
    return dataclasses.replace(rollup, heat_log=round(rollup.heat_log, 9))


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
    accounts, people = fold_events(list(reversed(stream)))
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
