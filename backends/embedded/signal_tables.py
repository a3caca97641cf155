"""The embedded signal store's tables: events, roll-up rows and tallies, and their conversions.

A roll-up is one fixed-size row (counters, times, stage, the first 3 distinct paths, the
source counts) plus tally rows keyed by their own pair: (email, path), (domain, path) and
(domain, email) for an account's people. Storing an event updates each by UPSERT in place, so
its cost does not grow with the roll-up. Reads put the pieces back together as the
AccountRollup and PersonRollup the API summarizes. Earlier files kept each roll-up as one JSON
document (tables signal_people, signal_accounts): `migrate` converts them on open.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic_core import from_json, to_json

from backends.signal_codec import load_account, load_person
from schemas.signals.events import Event
from schemas.signals.evidence import EvidenceRecord, evidence_of
from schemas.signals.fold import AccountState, Brief, PersonState, to_us
from schemas.signals.rollups import ENGAGED_PAGES, RANK, STAGES, AccountRollup, PersonRollup
from schemas.signals.scores import STAGE_WEIGHTS, add_heat

DDL = """
CREATE TABLE IF NOT EXISTS signal_events (
    rec_us INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    domain TEXT,
    email TEXT,
    words TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS signal_events_type ON signal_events (type, rec_us);
CREATE INDEX IF NOT EXISTS signal_events_domain ON signal_events (domain, rec_us);
CREATE INDEX IF NOT EXISTS signal_events_email ON signal_events (email, rec_us);
CREATE TABLE IF NOT EXISTS signal_person_rollups (
    email TEXT PRIMARY KEY,
    name TEXT,
    domain TEXT,
    stage_rank INTEGER NOT NULL,
    first_us INTEGER NOT NULL,
    last_us INTEGER NOT NULL,
    rec_us INTEGER NOT NULL,
    events INTEGER NOT NULL,
    first_pages TEXT NOT NULL,
    sources TEXT NOT NULL,
    heat_log REAL,
    stage_us INTEGER,
    days TEXT NOT NULL DEFAULT '{}',
    stage_ev TEXT,
    last_ev TEXT
);
CREATE TABLE IF NOT EXISTS signal_account_rollups (
    domain TEXT PRIMARY KEY,
    name TEXT,
    stage_rank INTEGER NOT NULL,
    first_us INTEGER NOT NULL,
    last_us INTEGER NOT NULL,
    rec_us INTEGER NOT NULL,
    events INTEGER NOT NULL,
    anon_rank INTEGER,
    anon_pages TEXT NOT NULL,
    sources TEXT NOT NULL,
    heat_log REAL,
    stage_us INTEGER,
    days TEXT NOT NULL DEFAULT '{}',
    stage_ev TEXT,
    last_ev TEXT
);
CREATE TABLE IF NOT EXISTS signal_person_pages (
    email TEXT, path TEXT, n INTEGER NOT NULL, PRIMARY KEY (email, path)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS signal_account_pages (
    domain TEXT, path TEXT, n INTEGER NOT NULL, PRIMARY KEY (domain, path)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS signal_account_people (
    domain TEXT,
    email TEXT,
    stage_rank INTEGER NOT NULL,
    events INTEGER NOT NULL,
    last_us INTEGER NOT NULL,
    PRIMARY KEY (domain, email)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS signal_clock (one INTEGER PRIMARY KEY CHECK (one = 1), last_us INTEGER);
"""
# Run after DDL and add_score_columns: the accounts list's two orders (recent, score), each
# walked from its start or from a page's (key, domain) position. An index on rec_us alone was
# dropped: (rec_us DESC, domain DESC) serves every query it did.
INDEX_DDL = """
DROP INDEX IF EXISTS signal_account_rollups_recent;
CREATE INDEX IF NOT EXISTS signal_account_rollups_heat
    ON signal_account_rollups (heat_log DESC, domain DESC);
CREATE INDEX IF NOT EXISTS signal_account_rollups_recent_domain
    ON signal_account_rollups (rec_us DESC, domain DESC);
"""
SCORE_COLUMNS = (
    ("heat_log", "REAL"),
    ("stage_us", "INTEGER"),
    ("days", "TEXT NOT NULL DEFAULT '{}'"),
)
# The evidence records (schemas/signals/evidence.py) as JSON; null in rows written before them.
EVIDENCE_COLUMNS = (("stage_ev", "TEXT"), ("last_ev", "TEXT"))
INSERT_EVENT = "INSERT INTO signal_events VALUES (?, ?, ?, ?, ?, ?, ?)"
# An id stored before is skipped, not an error: the caller counts the rows that went in.
INSERT_NEW_EVENT_INTO = "INSERT OR IGNORE INTO signal_events"
PERSON_COLUMNS = (
    "email, name, domain, stage_rank, first_us, last_us, rec_us, events, first_pages, sources,"
    " heat_log, stage_us, days, stage_ev, last_ev"
)
ACCOUNT_COLUMNS = (
    "domain, name, stage_rank, first_us, last_us, rec_us, events, anon_rank, anon_pages, sources,"
    " heat_log, stage_us, days, stage_ev, last_ev"
)
# Roll-up rows are rewritten in place with the folded values; tallies are added to.
UPSERT_PERSON = (
    f"INSERT INTO signal_person_rollups ({PERSON_COLUMNS}) VALUES ({', '.join('?' * 15)})"  # noqa: S608  # fixed names
    " ON CONFLICT (email) DO UPDATE SET name = excluded.name, domain = excluded.domain,"
    " stage_rank = excluded.stage_rank, first_us = excluded.first_us,"
    " last_us = excluded.last_us, rec_us = excluded.rec_us, events = excluded.events,"
    " first_pages = excluded.first_pages, sources = excluded.sources,"
    " heat_log = excluded.heat_log, stage_us = excluded.stage_us, days = excluded.days,"
    " stage_ev = excluded.stage_ev, last_ev = excluded.last_ev"
)
UPSERT_ACCOUNT = (
    f"INSERT INTO signal_account_rollups ({ACCOUNT_COLUMNS}) VALUES ({', '.join('?' * 15)})"  # noqa: S608  # fixed names
    " ON CONFLICT (domain) DO UPDATE SET name = excluded.name,"
    " stage_rank = excluded.stage_rank, first_us = excluded.first_us,"
    " last_us = excluded.last_us, rec_us = excluded.rec_us, events = excluded.events,"
    " anon_rank = excluded.anon_rank, anon_pages = excluded.anon_pages,"
    " sources = excluded.sources, heat_log = excluded.heat_log, stage_us = excluded.stage_us,"
    " days = excluded.days, stage_ev = excluded.stage_ev, last_ev = excluded.last_ev"
)
ADD_PERSON_PAGE = (
    "INSERT INTO signal_person_pages VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n"
)
ADD_ACCOUNT_PAGE = (
    "INSERT INTO signal_account_pages VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n"
)
ADD_BRIEF = (
    "INSERT INTO signal_account_people VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET"
    " stage_rank = excluded.stage_rank, events = events + excluded.events,"
    " last_us = excluded.last_us"
)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def from_us(us: int) -> datetime:
    return _EPOCH + timedelta(microseconds=us)


def _json(value: Any) -> str:
    return to_json(value).decode()


def _evidence_json(kept: Event | EvidenceRecord | None) -> str | None:
    """A state's evidence as its column holds it: an event folded now becomes its record."""
    if kept is None:
        return None
    return _json(evidence_of(kept) if isinstance(kept, Event) else kept)


def _evidence(text: str | None) -> EvidenceRecord | None:
    return None if text is None else dict(from_json(text))


def person_row(p: PersonState) -> tuple[Any, ...]:
    return (
        p.email,
        p.name,
        p.domain,
        p.rank,
        p.first_us,
        p.last_us,
        p.rec_us,
        p.events,
        _json(p.first_pages),
        _json(p.sources),
        p.heat_log,
        p.stage_us,
        _json(p.days),
        _evidence_json(p.stage_ev),
        _evidence_json(p.last_ev),
    )


def account_row(a: AccountState) -> tuple[Any, ...]:
    return (
        a.domain,
        a.name,
        a.rank,
        a.first_us,
        a.last_us,
        a.rec_us,
        a.events,
        a.anon_rank,
        _json(a.anon_pages),
        _json(a.sources),
        a.heat_log,
        a.stage_us,
        _json(a.days),
        _evidence_json(a.stage_ev),
        _evidence_json(a.last_ev),
    )


def brief_row(domain: str, email: str, brief: Brief) -> tuple[Any, ...]:
    return (domain, email, brief.rank, brief.events, brief.last_us)


def person_state(row: sqlite3.Row | tuple[Any, ...]) -> PersonState:
    """A PersonState from a row of PERSON_COLUMNS."""
    email, name, domain, rank, first, last, rec, events, first_pages, sources, heat, at, days = row[
        :13
    ]
    return PersonState(
        email,
        name,
        domain,
        rank,
        first,
        last,
        rec,
        events,
        from_json(first_pages),
        from_json(sources),
        heat,
        at,
        from_json(days),
        _evidence(row[13]),
        _evidence(row[14]),
    )


def account_state(row: sqlite3.Row | tuple[Any, ...]) -> AccountState:
    """An AccountState from a row of ACCOUNT_COLUMNS."""
    domain, name, rank, first, last, rec, events, anon_rank, anon_pages, sources, heat, at, days = (
        row[:13]
    )
    return AccountState(
        domain,
        name,
        rank,
        first,
        last,
        rec,
        events,
        anon_rank,
        from_json(anon_pages),
        from_json(sources),
        heat,
        at,
        from_json(days),
        _evidence(row[13]),
        _evidence(row[14]),
    )


def read_person(conn: sqlite3.Connection, email: str) -> PersonRollup | None:
    """One person's roll-up: the row and its page tallies."""
    sql = f"SELECT {PERSON_COLUMNS} FROM signal_person_rollups WHERE email = ?"  # noqa: S608  # fixed names
    row = conn.execute(sql, (email,)).fetchone()
    if row is None:
        return None
    s = person_state(tuple(row))
    pages = conn.execute("SELECT path, n FROM signal_person_pages WHERE email = ?", (email,))
    return PersonRollup(
        email=s.email,
        name=s.name,
        domain=s.domain,
        stage=STAGES[s.rank],
        first_seen=from_us(s.first_us),
        last_seen=from_us(s.last_us),
        last_recorded_at=from_us(s.rec_us),
        events=s.events,
        pages={r[0]: r[1] for r in pages},
        sources=s.sources,
        heat_log=s.heat_log,
        stage_reached_at=None if s.stage_us is None else from_us(s.stage_us),
        days=s.days,
        stage_event=_record(s.stage_ev),
        last_event=_record(s.last_ev),
    )


def _record(kept: Event | EvidenceRecord | None) -> EvidenceRecord | None:
    return evidence_of(kept) if isinstance(kept, Event) else kept


def read_account(conn: sqlite3.Connection, row: sqlite3.Row | tuple[Any, ...]) -> AccountRollup:
    """One account's roll-up from its row (ACCOUNT_COLUMNS), page tallies and people."""
    s = account_state(tuple(row))
    pages = conn.execute("SELECT path, n FROM signal_account_pages WHERE domain = ?", (s.domain,))
    people = conn.execute(
        "SELECT b.email, p.name, b.stage_rank, b.events, b.last_us FROM signal_account_people b"
        " LEFT JOIN signal_person_rollups p ON p.email = b.email WHERE b.domain = ?",
        (s.domain,),
    )
    return AccountRollup(
        domain=s.domain,
        name=s.name,
        stage=STAGES[s.rank],
        first_seen=from_us(s.first_us),
        last_seen=from_us(s.last_us),
        last_recorded_at=from_us(s.rec_us),
        events=s.events,
        people={
            email: {
                "name": name,
                "stage": STAGES[rank],
                "events": events,
                "last_seen": from_us(last).isoformat(),
            }
            for email, name, rank, events, last in people
        },
        pages={r[0]: r[1] for r in pages},
        sources=s.sources,
        anon_stage=None if s.anon_rank is None else STAGES[s.anon_rank],
        anon_pages=s.anon_pages,
        heat_log=s.heat_log,
        stage_reached_at=None if s.stage_us is None else from_us(s.stage_us),
        days=s.days,
        stage_event=_record(s.stage_ev),
        last_event=_record(s.last_ev),
    )


def write_person(conn: sqlite3.Connection, person: PersonRollup) -> None:
    """Store a whole PersonRollup (migration) as its row and page tallies."""
    state = PersonState(
        email=person.email,
        name=person.name,
        domain=person.domain,
        rank=RANK[person.stage],
        first_us=to_us(person.first_seen),
        last_us=to_us(person.last_seen),
        rec_us=to_us(person.last_recorded_at),
        events=person.events,
        first_pages=list(person.pages)[:ENGAGED_PAGES],  # pages keep first-touch order
        sources=dict(person.sources),
        heat_log=person.heat_log,
        stage_us=_us_or_none(person.stage_reached_at),
        days=dict(person.days),
        stage_ev=person.stage_event,
        last_ev=person.last_event,
    )
    conn.execute(UPSERT_PERSON, person_row(state))
    conn.executemany(ADD_PERSON_PAGE, [(person.email, p, n) for p, n in person.pages.items()])


def replace_account(conn: sqlite3.Connection, domain: str, account: AccountRollup | None) -> None:
    """Drop an account's rows and tallies and store `account` (if any) in their place."""
    for table in ("signal_account_rollups", "signal_account_pages", "signal_account_people"):
        conn.execute(f"DELETE FROM {table} WHERE domain = ?", (domain,))  # noqa: S608  # fixed names
    if account is None:
        return
    state = AccountState(
        domain=account.domain,
        name=account.name,
        rank=RANK[account.stage],
        first_us=to_us(account.first_seen),
        last_us=to_us(account.last_seen),
        rec_us=to_us(account.last_recorded_at),
        events=account.events,
        anon_rank=None if account.anon_stage is None else RANK[account.anon_stage],
        anon_pages=list(account.anon_pages),
        sources=dict(account.sources),
        heat_log=account.heat_log,
        stage_us=_us_or_none(account.stage_reached_at),
        days=dict(account.days),
        stage_ev=account.stage_event,
        last_ev=account.last_event,
    )
    conn.execute(UPSERT_ACCOUNT, account_row(state))
    conn.executemany(ADD_ACCOUNT_PAGE, [(domain, p, n) for p, n in account.pages.items()])
    conn.executemany(ADD_BRIEF, list(_brief_rows(domain, account.people.items())))


def _brief_rows(
    domain: str, people: Iterable[tuple[str, dict[str, Any]]]
) -> Iterable[tuple[Any, ...]]:
    for email, b in people:
        last = to_us(datetime.fromisoformat(b["last_seen"]))
        yield brief_row(
            domain, email, Brief(rank=RANK[b["stage"]], events=b["events"], last_us=last)
        )


def _us_or_none(when: datetime | None) -> int | None:
    return None if when is None else to_us(when)


def add_score_columns(conn: sqlite3.Connection) -> int:
    """Add the score columns to roll-up tables of files written before them; how many tables.

    Their heat starts as one event of their stage at their last touch (the history before is
    not replayed); their trend counts from their next event on.
    """
    changed = 0
    for table, key in (("signal_person_rollups", "email"), ("signal_account_rollups", "domain")):
        have = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
        missing = [(name, kind) for name, kind in SCORE_COLUMNS if name not in have]
        for name, kind in missing:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")
        if missing:
            rows = conn.execute(f"SELECT {key}, stage_rank, last_us FROM {table}").fetchall()  # noqa: S608  # fixed names
            conn.executemany(
                f"UPDATE {table} SET heat_log = ? WHERE {key} = ?",  # noqa: S608  # fixed names
                [(add_heat(None, STAGE_WEIGHTS[rank], last), k) for k, rank, last in rows],
            )
        changed += bool(missing)
    return changed


def add_evidence_columns(conn: sqlite3.Connection) -> int:
    """Add the evidence columns to roll-up tables of files written before them; how many
    tables. Their evidence stays null until their next stage or touch."""
    changed = 0
    for table in ("signal_person_rollups", "signal_account_rollups"):
        have = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
        missing = [(name, kind) for name, kind in EVIDENCE_COLUMNS if name not in have]
        for name, kind in missing:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")
        changed += bool(missing)
    return changed


def first_layout_tables(conn: sqlite3.Connection) -> set[str]:
    """The tables of the first layout still in the file (none once migrated)."""
    return {
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"
            " AND name IN ('signal_people', 'signal_accounts')"
        )
    }


def migrate(conn: sqlite3.Connection) -> int:
    """Convert roll-ups kept as JSON documents (the first layout) into rows; how many.

    Run inside a write transaction; the old tables go once converted, so it runs once.
    """
    old = first_layout_tables(conn)
    converted = 0
    if "signal_people" in old:
        for (state,) in conn.execute("SELECT state FROM signal_people").fetchall():
            write_person(conn, load_person(state))
            converted += 1
        conn.execute("DROP TABLE signal_people")
    if "signal_accounts" in old:
        for (state,) in conn.execute("SELECT state FROM signal_accounts").fetchall():
            account = load_account(state)
            replace_account(conn, account.domain, account)
            converted += 1
        conn.execute("DROP TABLE signal_accounts")
    return converted
