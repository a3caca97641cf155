"""Anonymous to known in the embedded signal store (the rules: schemas/signals/identity.py).

A stored event that carries a visitor id gets a row in `signal_visitor_events`; links live in
`signal_visitors`. When a link is made, the visitor's anonymous events stored before are folded
into the person's and account's roll-ups; later ones are folded as they come; timelines
(`email=` / `domain=` filters) include them through the link. Erasing the person deletes those
anonymous events and the link too.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from backends.embedded.sqlite import insert_rows
from schemas.signals.events import Event, attributed, visitor_of
from schemas.signals.identity import Link, as_linked, new_links

IDENTITY_DDL = """
CREATE TABLE IF NOT EXISTS signal_visitors (
    visitor_id TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    domain TEXT,
    linked_us INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS signal_visitors_email ON signal_visitors (email);
CREATE INDEX IF NOT EXISTS signal_visitors_domain ON signal_visitors (domain);
CREATE TABLE IF NOT EXISTS signal_visitor_events (
    visitor_id TEXT, rec_us INTEGER, PRIMARY KEY (visitor_id, rec_us)
) WITHOUT ROWID;
"""
# The anonymous events linked to a person (or an account): for timelines' OR branch.
LINKED_TO_EMAIL = (
    "(email IS NULL AND domain IS NULL AND rec_us IN (SELECT v.rec_us FROM signal_visitor_events v"
    " JOIN signal_visitors l ON l.visitor_id = v.visitor_id WHERE l.email = ?))"
)
LINKED_TO_DOMAIN = (
    "(email IS NULL AND domain IS NULL AND rec_us IN (SELECT v.rec_us FROM signal_visitor_events v"
    " JOIN signal_visitors l ON l.visitor_id = v.visitor_id WHERE l.domain = ?))"
)
_CHUNK = 500


def events_to_fold(conn: sqlite3.Connection, stored: list[Event], rec_us: list[int]) -> list[Event]:
    """Record the batch's visitor ids and new links; the events the roll-ups fold: earlier
    anonymous events of visitors this batch identifies, then the batch, with anonymous events
    of identified visitors as their person's. `rec_us[i]` is the stored position of stored[i].
    """
    visits = [(v, us) for e, us in zip(stored, rec_us, strict=True) if (v := visitor_of(e))]
    if not visits:
        return stored
    insert_rows(conn, "INSERT OR IGNORE INTO signal_visitor_events", visits)
    links = _links(conn, {v for v, _ in visits})
    new = new_links(stored, links)
    conn.executemany(
        "INSERT INTO signal_visitors VALUES (?, ?, ?, ?)",
        [(v, email, domain, min(rec_us)) for v, (email, domain) in new.items()],
    )
    first = min(rec_us)
    earlier = [
        attributed(e, email=new[v][0], domain=new[v][1])
        for v in sorted(new)
        for e in _anonymous_of(conn, v, before=first)
    ]
    return earlier + [as_linked(e, links) for e in stored]


def linked_visitors(conn: sqlite3.Connection, email: str) -> list[str]:
    """The visitor ids linked to a person."""
    rows = conn.execute("SELECT visitor_id FROM signal_visitors WHERE email = ?", (email,))
    return [r[0] for r in rows]


def erase_links(conn: sqlite3.Connection, email: str) -> tuple[list[str], set[str]]:
    """Delete a person's linked anonymous events, their visitor rows and links; the ids of the
    events deleted and the domains the links named."""
    visitors = linked_visitors(conn, email)
    ids: list[str] = []
    domains: set[str] = set()
    for visitor in visitors:
        ids += [e.id for e in _anonymous_of(conn, visitor, before=None)]
        conn.execute(
            "DELETE FROM signal_events WHERE email IS NULL AND domain IS NULL AND rec_us IN"
            " (SELECT rec_us FROM signal_visitor_events WHERE visitor_id = ?)",
            (visitor,),
        )
        conn.execute("DELETE FROM signal_visitor_events WHERE visitor_id = ?", (visitor,))
    for row in conn.execute("SELECT domain FROM signal_visitors WHERE email = ?", (email,)):
        if row[0]:
            domains.add(row[0])
    conn.execute("DELETE FROM signal_visitors WHERE email = ?", (email,))
    return ids, domains


def account_events(conn: sqlite3.Connection, domain: str) -> list[Event]:
    """An account's events in stream order, linked anonymous ones as their person's (the
    fold input of an account rebuilt after an erasure)."""
    rows = conn.execute(
        "SELECT rec_us, body, NULL, NULL FROM signal_events WHERE domain = ?"
        " UNION ALL SELECT e.rec_us, e.body, l.email, l.domain FROM signal_visitors l"
        " JOIN signal_visitor_events v ON v.visitor_id = l.visitor_id"
        " JOIN signal_events e ON e.rec_us = v.rec_us"
        " WHERE l.domain = ? AND e.email IS NULL AND e.domain IS NULL ORDER BY 1",
        (domain, domain),
    )
    out: list[Event] = []
    for _, body, email, linked_domain in rows:
        event = Event.model_validate_json(body)
        out.append(event if email is None else attributed(event, email=email, domain=linked_domain))
    return out


def _links(conn: sqlite3.Connection, visitors: Iterable[str]) -> dict[str, Link]:
    wanted = sorted(visitors)
    found: dict[str, Link] = {}
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        sql = f"SELECT visitor_id, email, domain FROM signal_visitors WHERE visitor_id IN ({marks})"  # noqa: S608  # placeholders only
        found |= {r[0]: (r[1], r[2]) for r in conn.execute(sql, chunk)}
    return found


def _anonymous_of(conn: sqlite3.Connection, visitor: str, *, before: int | None) -> list[Event]:
    sql = (
        "SELECT e.body FROM signal_visitor_events v JOIN signal_events e ON e.rec_us = v.rec_us"
        " WHERE v.visitor_id = ? AND e.email IS NULL AND e.domain IS NULL"
    )
    params: list[object] = [visitor]
    if before is not None:
        sql += " AND v.rec_us < ?"
        params.append(before)
    rows = conn.execute(sql + " ORDER BY v.rec_us", params)
    return [Event.model_validate_json(r[0]) for r in rows]
