"""The embedded signal store's page funnel tables: per-page day tallies, visit tallies and
visitor markers (schemas/signals/page_funnel.py folds and reads them).

Written by SqliteSignalStore inside the transaction that stores the events, for the new ones
only; read by primary-key range on (slug, dimension, day), so a read costs the range's rows,
never the events behind them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from pydantic_core import from_json, to_json

from schemas.signals.events import PAGE_EVENT_TYPES, Event, NewEvent
from schemas.signals.page_funnel import (
    FunnelRows,
    Marker,
    MarkerKey,
    fold_page_events,
    marker_keys,
)

PAGE_FUNNEL_DDL = """
CREATE TABLE IF NOT EXISTS signal_page_tallies (
    slug TEXT, dim TEXT, day INTEGER, value TEXT,
    views INTEGER NOT NULL, clicks INTEGER NOT NULL, leads INTEGER NOT NULL,
    PRIMARY KEY (slug, dim, day, value)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS signal_page_visits (
    slug TEXT, dim TEXT, day INTEGER, value TEXT, prev INTEGER, n INTEGER NOT NULL,
    PRIMARY KEY (slug, dim, day, value, prev)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS signal_page_visitors (
    slug TEXT, visitor TEXT, days TEXT NOT NULL, PRIMARY KEY (slug, visitor)
) WITHOUT ROWID;
"""
_ADD_TALLY = (
    "INSERT INTO signal_page_tallies VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET"
    " views = views + excluded.views, clicks = clicks + excluded.clicks,"
    " leads = leads + excluded.leads"
)
_ADD_VISITS = (
    "INSERT INTO signal_page_visits VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET"
    " n = n + excluded.n"
)
_BACKFILL_CHUNK = 1000
_PUT_MARKER = "INSERT OR REPLACE INTO signal_page_visitors VALUES (?, ?, ?)"


def fold_page_funnels(conn: sqlite3.Connection, events: Sequence[NewEvent]) -> None:
    """Add newly stored events to their pages' funnels (in the caller's transaction)."""
    keys = marker_keys(events)
    markers: dict[MarkerKey, Marker] = {}
    for slug, visitor in keys:
        row = conn.execute(
            "SELECT days FROM signal_page_visitors WHERE slug = ? AND visitor = ?",
            (slug, visitor),
        ).fetchone()
        if row is not None:
            markers[(slug, visitor)] = from_json(row[0])
    fold = fold_page_events(events, markers)
    if not fold.tallies:
        return
    conn.executemany(
        _ADD_TALLY,
        [
            (slug, dim, day, value, t.views, t.clicks, t.leads)
            for (slug, day, dim, value), t in fold.tallies.items()
        ],
    )
    conn.executemany(
        _ADD_VISITS,
        [
            (slug, dim, day, value, prev, n)
            for (slug, day, dim, value, prev), n in fold.visits.items()
            if n
        ],
    )
    conn.executemany(
        _PUT_MARKER,
        [(slug, visitor, to_json(m).decode()) for (slug, visitor), m in fold.markers.items()],
    )


def backfill_page_funnels(conn: sqlite3.Connection) -> int:
    """Fold the page events stored before the funnel tables existed (once, as they are made,
    in the caller's transaction); how many."""
    marks = ",".join("?" * len(PAGE_EVENT_TYPES))
    rows = conn.execute(
        f"SELECT body FROM signal_events WHERE type IN ({marks}) ORDER BY rec_us",  # noqa: S608  # fixed marks
        sorted(PAGE_EVENT_TYPES),
    )
    folded = 0
    while chunk := rows.fetchmany(_BACKFILL_CHUNK):
        fold_page_funnels(conn, [Event.model_validate_json(r[0]) for r in chunk])
        folded += len(chunk)
    return folded


def read_page_funnel(
    conn: sqlite3.Connection, slug: str, *, first_day: int, last_day: int, dimension: str | None
) -> FunnelRows:
    """The rows of days first_day..last_day: the `all` dimension's and `dimension`'s."""
    dims = ("all",) if dimension in (None, "all") else ("all", dimension)
    tallies: list[tuple[int, str, str, int, int, int]] = []
    visits: list[tuple[int, str, str, int, int]] = []
    for dim in dims:
        tallies += [
            (r[0], dim, r[1], r[2], r[3], r[4])
            for r in conn.execute(
                "SELECT day, value, views, clicks, leads FROM signal_page_tallies"
                " WHERE slug = ? AND dim = ? AND day BETWEEN ? AND ?",
                (slug, dim, first_day, last_day),
            )
        ]
        visits += [
            (r[0], dim, r[1], r[2], r[3])
            for r in conn.execute(
                "SELECT day, value, prev, n FROM signal_page_visits"
                " WHERE slug = ? AND dim = ? AND day BETWEEN ? AND ? AND n != 0",
                (slug, dim, first_day, last_day),
            )
        ]
    return FunnelRows(tallies=tallies, visits=visits)
