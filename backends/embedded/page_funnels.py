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
    NEVER,
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
_CHUNK = 400  # markers read per statement (two parameters each)
_PUT_MARKER = "INSERT OR REPLACE INTO signal_page_visitors VALUES (?, ?, ?)"


def fold_page_funnels(conn: sqlite3.Connection, events: Sequence[NewEvent]) -> None:
    """Add newly stored events to their pages' funnels (in the caller's transaction)."""
    keys = sorted(marker_keys(events))
    markers: dict[MarkerKey, Marker] = {}
    for start in range(0, len(keys), _CHUNK):
        chunk = keys[start : start + _CHUNK]
        marks = ",".join("(?, ?)" * 1 for _ in chunk)
        found = conn.execute(
            "SELECT slug, visitor, days FROM signal_page_visitors"  # noqa: S608  # fixed marks
            f" WHERE (slug, visitor) IN (VALUES {marks})",
            [part for key in chunk for part in key],
        )
        markers.update({(r[0], r[1]): from_json(r[2]) for r in found})
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
    """The range's figures, summed in SQL to what read_funnel needs: the `all` dimension per
    day for `day` (else one row), and `dimension`'s per value; visit tallies split by whether
    their previous day is before the range. Rows returned grow with the days and values
    asked, not with the traffic behind them."""
    where = "slug = ? AND dim = ? AND day BETWEEN ? AND ?"
    args = (slug, "all", first_day, last_day)
    per_day = dimension == "day"
    group = "day" if per_day else "?"
    day_column = "day" if per_day else "?"
    head: tuple[object, ...] = () if per_day else (first_day,)
    tallies = [
        (r[0], "all", "", r[1], r[2], r[3])
        for r in conn.execute(
            f"SELECT {day_column}, SUM(views), SUM(clicks), SUM(leads)"  # noqa: S608  # fixed fragments
            f" FROM signal_page_tallies WHERE {where} GROUP BY {group} HAVING COUNT(*) > 0",
            (*head, *args, *(() if per_day else (first_day,))),
        )
    ]
    visits: list[tuple[int, str, str, int, int]] = []
    for day, before, total in conn.execute(
        f"SELECT {day_column}, SUM(CASE WHEN prev < ? THEN n ELSE 0 END), SUM(n)"  # noqa: S608  # fixed fragments
        f" FROM signal_page_visits WHERE {where} GROUP BY {group} HAVING COUNT(*) > 0",
        (*head, first_day, *args, *(() if per_day else (first_day,))),
    ):
        visits += [(day, "all", "", NEVER, before), (day, "all", "", first_day, total - before)]
    if dimension not in (None, "all", "day"):
        args = (slug, dimension, first_day, last_day)
        tallies += [
            (first_day, dimension, r[0], r[1], r[2], r[3])
            for r in conn.execute(
                "SELECT value, SUM(views), SUM(clicks), SUM(leads) FROM signal_page_tallies"  # noqa: S608  # fixed fragments
                f" WHERE {where} GROUP BY value",
                args,
            )
        ]
        visits += [
            (first_day, dimension, r[0], NEVER, r[1])
            for r in conn.execute(
                f"SELECT value, SUM(n) FROM signal_page_visits WHERE {where} AND prev < ?"  # noqa: S608  # fixed fragments
                " GROUP BY value",
                (*args, first_day),
            )
        ]
    return FunnelRows(tallies=tallies, visits=visits)
