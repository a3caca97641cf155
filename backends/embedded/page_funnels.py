"""The embedded signal store's page funnel tables: per-page day tallies, visit tallies and
visitor markers (schemas/signals/page_funnel.py folds and reads them).

Written by SqliteSignalStore inside the transaction that stores the events, for the new ones
only; read by primary-key range on (slug, dimension, day), so a read costs the range's rows,
never the events behind them. A day's visits are one row per value: its visitor-days and
their cumulative counts by gap (`returned`, fixed-width decimal digits, so the read takes the
one count it needs with substr in SQL).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from itertools import groupby

from pydantic_core import from_json, to_json

from schemas.signals.events import PAGE_EVENT_TYPES, Event, NewEvent
from schemas.signals.page_funnel import (
    FunnelRows,
    Marker,
    MarkerKey,
    add_gaps,
    fold_page_events,
    gap_between,
    marker_keys,
)

_VISIT_DAYS_DDL = """
CREATE TABLE IF NOT EXISTS signal_page_visit_days (
    slug TEXT, dim TEXT, day INTEGER, value TEXT, n INTEGER NOT NULL, returned BLOB NOT NULL,
    PRIMARY KEY (slug, dim, day, value)
) WITHOUT ROWID"""
PAGE_FUNNEL_DDL = f"""
{_VISIT_DAYS_DDL};
CREATE TABLE IF NOT EXISTS signal_page_tallies (
    slug TEXT, dim TEXT, day INTEGER, value TEXT,
    views INTEGER NOT NULL, clicks INTEGER NOT NULL, leads INTEGER NOT NULL,
    PRIMARY KEY (slug, dim, day, value)
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
_PUT_VISITS = "INSERT OR REPLACE INTO signal_page_visit_days VALUES (?, ?, ?, ?, ?, ?)"
_WIDTH = 10  # digits of each cumulative count in `returned`
_BACKFILL_CHUNK = 1000
_CHUNK = 400  # markers read per statement (two parameters each)
_PUT_MARKER = "INSERT OR REPLACE INTO signal_page_visitors VALUES (?, ?, ?)"


def fold_page_funnels(conn: sqlite3.Connection, events: Sequence[NewEvent]) -> None:
    """Add newly stored events to their pages' funnels (in the caller's transaction)."""
    keys = sorted(marker_keys(events))
    markers: dict[MarkerKey, Marker] = {}
    for start in range(0, len(keys), _CHUNK):
        chunk = keys[start : start + _CHUNK]
        marks = ",".join("(?, ?)" for _ in chunk)
        # A join on the listed keys, so each is a primary-key lookup (a row-value IN scans).
        found = conn.execute(
            f"WITH k(a, b) AS (VALUES {marks}) SELECT slug, visitor, days"  # noqa: S608  # fixed marks
            " FROM k CROSS JOIN signal_page_visitors ON slug = a AND visitor = b",
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
    _add_visits(conn, fold.visits)
    conn.executemany(
        _PUT_MARKER,
        [(slug, visitor, to_json(m).decode()) for (slug, visitor), m in fold.markers.items()],
    )


VisitDeltas = dict[tuple[str, str, int, str], dict[int, int]]  # (slug, dim, day, value): gaps


def _add_visits(
    conn: sqlite3.Connection, visits: dict[tuple[str, int, str, str, int], int]
) -> None:
    """Add a fold's visit tallies (by gap) to their day rows: read each touched row once,
    write it once."""
    deltas: VisitDeltas = {}
    for (slug, day, dim, value, gap), n in visits.items():
        if n:
            by_gap = deltas.setdefault((slug, dim, day, value), {})
            by_gap[gap] = by_gap.get(gap, 0) + n
    _put_visits(conn, deltas)


def _put_visits(conn: sqlite3.Connection, deltas: VisitDeltas) -> None:
    keys = sorted(deltas)
    stored: dict[tuple[str, str, int, str], tuple[int, list[int]]] = {}
    for start in range(0, len(keys), _CHUNK // 2):
        chunk = keys[start : start + _CHUNK // 2]
        marks = ",".join("(?, ?, ?, ?)" for _ in chunk)
        found = conn.execute(
            f"WITH k(a, b, c, d) AS (VALUES {marks}) SELECT slug, dim, day, value, n, returned"  # noqa: S608  # fixed marks
            " FROM k CROSS JOIN signal_page_visit_days"
            " ON slug = a AND dim = b AND day = c AND value = d",
            [part for key in chunk for part in key],
        )
        stored.update({(r[0], r[1], r[2], r[3]): (r[4], _counts(r[5])) for r in found})
    rows = []
    for key, by_gap in deltas.items():
        n, returning = stored.get(key, (0, []))
        rows.append((*key, n + sum(by_gap.values()), _text(add_gaps(returning, by_gap))))
    conn.executemany(_PUT_VISITS, rows)


def _text(returning: list[int]) -> bytes:
    return "".join(f"{n:0{_WIDTH}d}" for n in returning).encode()


def _counts(text: bytes) -> list[int]:
    return [int(text[i : i + _WIDTH]) for i in range(0, len(text), _WIDTH)]


def convert_page_visits(conn: sqlite3.Connection) -> int:
    """Convert visit tallies kept one row per previous day (the first layout) into one row per
    day and value (in the caller's transaction; the old table goes, so it runs once); how many
    rows were read."""
    conn.execute(_VISIT_DAYS_DDL)
    rows = conn.execute(
        "SELECT slug, dim, day, value, prev, n FROM signal_page_visits"
        " ORDER BY slug, dim, day, value"
    )
    converted = 0
    while chunk := rows.fetchmany(_BACKFILL_CHUNK):
        deltas: VisitDeltas = {}
        for key, group in groupby(chunk, key=lambda r: (r[0], r[1], r[2], r[3])):
            by_gap = deltas.setdefault(key, {})
            for *_, prev, n in group:
                gap = gap_between(prev, key[2])
                by_gap[gap] = by_gap.get(gap, 0) + n
                converted += 1
        _put_visits(conn, deltas)
    conn.execute("DROP TABLE signal_page_visits")
    return converted


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


# A row's visitors new to a range starting on :first: all but those back within day - first.
_NEW = (
    "n - CASE WHEN day > :first AND length(returned) THEN CAST(substr(returned,"
    f" {_WIDTH} * (MIN(day - :first, length(returned) / {_WIDTH}) - 1) + 1, {_WIDTH})"
    " AS INTEGER) ELSE 0 END"
)


def read_page_funnel(
    conn: sqlite3.Connection, slug: str, *, first_day: int, last_day: int, dimension: str | None
) -> FunnelRows:
    """The range's figures, summed in SQL to what read_funnel needs: the `all` dimension per
    day for `day` (else one row), and `dimension`'s per value; each with its visitors new to
    the range. Rows read are the range's days times its values, whatever traffic is behind
    them."""
    where = "slug = :slug AND dim = :dim AND day BETWEEN :first AND :last"
    args = {"slug": slug, "dim": "all", "first": first_day, "last": last_day}
    per_day = dimension == "day"
    group = "day" if per_day else ":first"
    tallies = [
        (r[0], "all", "", r[1], r[2], r[3])
        for r in conn.execute(
            f"SELECT {group}, SUM(views), SUM(clicks), SUM(leads)"  # noqa: S608  # fixed fragments
            f" FROM signal_page_tallies WHERE {where} GROUP BY {group} HAVING COUNT(*) > 0",
            args,
        )
    ]
    visits = [
        (r[0], "all", "", r[1], r[2])
        for r in conn.execute(
            f"SELECT {group}, SUM(n), SUM({_NEW})"  # noqa: S608  # fixed fragments
            f" FROM signal_page_visit_days WHERE {where} GROUP BY {group} HAVING COUNT(*) > 0",
            args,
        )
    ]
    if dimension not in (None, "all", "day"):
        args["dim"] = dimension
        tallies += [
            (first_day, dimension, r[0], r[1], r[2], r[3])
            for r in conn.execute(
                "SELECT value, SUM(views), SUM(clicks), SUM(leads) FROM signal_page_tallies"  # noqa: S608  # fixed fragments
                f" WHERE {where} GROUP BY value",
                args,
            )
        ]
        visits += [
            (first_day, dimension, r[0], r[1], r[2])
            for r in conn.execute(
                f"SELECT value, SUM(n), SUM({_NEW}) FROM signal_page_visit_days"  # noqa: S608  # fixed fragments
                f" WHERE {where} GROUP BY value",
                args,
            )
        ]
    return FunnelRows(tallies=tallies, visits=visits)
