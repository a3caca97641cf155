"""Page funnels kept before visits were tallied by gap (one visits row per previous day) read
right after the upgrade: an embedded data file converts its rows when first opened, a Firestore
day document is read as it is and rewritten in the new form when next written."""

from __future__ import annotations

import random
import sqlite3
import uuid
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic_core import from_json, to_json

from backends.embedded.signals import SqliteSignalStore
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import SignalStore
from schemas.signals.events import NewEvent, visitor_of
from schemas.signals.page_funnel import NEVER, day_number, values_of
from tests.backends.signal_store.conftest import event
from tests.backends.signal_store.test_page_funnels import TODAY, counted, folded, stream_of

pytestmark = pytest.mark.spec("content.page_stats")

OLD_VISITS = """
CREATE TABLE signal_page_visits (
    slug TEXT, dim TEXT, day INTEGER, value TEXT, prev INTEGER, n INTEGER NOT NULL,
    PRIMARY KEY (slug, dim, day, value, prev)
) WITHOUT ROWID
"""


def returning_traffic(prefix: str, count: int) -> list[NewEvent]:
    """Page views on /p/audit by 8 visitors over 400 days, from two sources."""
    rng = random.Random(count)  # noqa: S311  # test data, not secrets
    return [
        event(
            f"{prefix}{i}",
            type="page_view",
            email=None,
            path="/p/audit",
            occurred_at=TODAY - timedelta(days=rng.randrange(400)),
            source="site",
            properties={
                "visitor_id": f"visitor-{rng.randrange(8)}",
                "utm_source": rng.choice(["li", "news"]),
            },
        )
        for i in range(count)
    ]


def old_visit_rows(events: list[NewEvent]) -> list[tuple[str, str, int, str, int, int]]:
    """The visits rows of the earlier layout, by their definition: each visitor-day under the
    visitor's previous day (NEVER for the first)."""
    seen: dict[tuple[str, str, str], set[int]] = {}
    for e in events:
        visitor = visitor_of(e)
        assert visitor is not None
        for dimension, value in values_of(e):
            seen.setdefault((dimension, value, visitor), set()).add(
                day_number(e.occurred_at.date())
            )
    rows: dict[tuple[str, str, int, str, int], int] = {}
    for (dimension, value, _), days in seen.items():
        ordered = sorted(days)
        for prev, day in zip([NEVER, *ordered], ordered, strict=False):
            key = ("audit", dimension, day, value, prev)
            rows[key] = rows.get(key, 0) + 1
    return [(*key, n) for key, n in rows.items()]


def assert_counts_match(store: SignalStore) -> None:
    stream = stream_of(store)
    today = TODAY.date()
    for length, end in ((366, 0), (28, 0), (200, 100), (1, 0)):
        last = today - timedelta(days=end)
        first: date = last - timedelta(days=length - 1)
        for by in (None, "source", "day"):
            expected = counted(stream, "audit", first, last, by)
            assert folded(store, "audit", first, last, by) == expected, (first, last, by)


def test_an_embedded_data_file_with_visits_by_previous_day_converts_once_and_counts_the_same(
    tmp_path: Path,
) -> None:
    path = tmp_path / "signals.sqlite3"
    store = SqliteSignalStore(SqliteDatabase(path))
    earlier = returning_traffic("old", 60)
    store.store_events(earlier)
    conn = sqlite3.connect(path)
    with conn:  # the file as the earlier layout left it
        conn.execute("DROP TABLE signal_page_visit_days")
        conn.execute(OLD_VISITS)
        conn.executemany(
            "INSERT INTO signal_page_visits VALUES (?, ?, ?, ?, ?, ?)", old_visit_rows(earlier)
        )
    conn.close()

    reopened = SqliteSignalStore(SqliteDatabase(path))
    assert_counts_match(reopened)
    reopened.store_events(returning_traffic("new", 30))  # late days among the old ones
    assert_counts_match(reopened)
    tables = sqlite3.connect(path).execute("SELECT name FROM sqlite_master").fetchall()
    assert ("signal_page_visits",) not in tables
    assert_counts_match(SqliteSignalStore(SqliteDatabase(path)))  # converted once, stays right


def in_old_form(day: int, visits: list[list[Any]]) -> list[list[Any]]:
    """A day document's visits rows as the earlier layout kept them: first visits (and those
    back after a year or more) under NEVER, the rest under their previous day."""
    rows = []
    for dimension, value, n, returned in visits:
        rows.append([dimension, value, NEVER, n - (returned[-1] if returned else 0)])
        counts = [b - a for a, b in zip([0, *returned], returned, strict=False)]
        rows += [[dimension, value, day - gap, c] for gap, c in enumerate(counts, 1) if c]
    return rows


@pytest.mark.emulator
@pytest.mark.usefixtures("firestore_emulator")
def test_firestore_day_documents_with_visits_by_previous_day_read_right_and_are_rewritten() -> None:
    from backends.gcp.deadline import CallDeadline
    from backends.gcp.firestore import firestore_client
    from backends.gcp.signals import FirestoreSignalStore

    client = firestore_client(project="demo-frontdoor")
    prefix = f"t{uuid.uuid4().hex[:10]}_"
    # A longer deadline: a cold emulator's first transactions can take past the service's
    # 10 s on a busy machine, and the deadline is not what this test is about.
    store = FirestoreSignalStore(
        client, prefix=prefix, settle=timedelta(0), max_attempts=40, deadline=CallDeadline(60)
    )
    earlier = returning_traffic("old", 40)
    for start in range(0, len(earlier), 4):
        store.store_events(earlier[start : start + 4])
    days = client.collection(f"{prefix}signal_page_days")
    for snap in days.stream():  # the documents as the earlier layout left them
        data = snap.to_dict() or {}
        state = from_json(data["state"])
        state["visits"] = in_old_form(data["day"], state["visits"])
        snap.reference.update({"state": to_json(state).decode()})

    assert_counts_match(store)
    later = returning_traffic("new", 20)
    for start in range(0, len(later), 4):
        store.store_events(later[start : start + 4])
    assert_counts_match(store)
    rewritten = {
        (d, v)
        for snap in days.stream()
        for d, v, _, fourth in from_json((snap.to_dict() or {})["state"])["visits"]
        if isinstance(fourth, list)
    }
    assert rewritten  # the documents the later events touched are in the new form
