"""SqliteSignalStore: signal events and their roll-ups in the embedded database.

Gapless by construction: `BEGIN IMMEDIATE` serializes writers, and inside that lock each new
event gets recorded_at = max(now, last + 1 µs) from a clock row, so commit order equals stream
order and a reader that has seen a position has seen everything before it. recorded_at is kept
as integer microseconds (`rec_us`, the rowid), unique, so polls are a primary-key range scan.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta

from backends.bundle import utc_now
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import AccountQuery, StoreResult, StreamPage, StreamQuery
from backends.signal_codec import dump_rollup, load_account, load_person
from schemas.signal_rollups import RANK, AccountRollup, PersonRollup, fold_event, rebuild_account
from schemas.signals import Event, NewEvent, Position, event_words, stamp_event

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
CREATE TABLE IF NOT EXISTS signal_accounts (
    domain TEXT PRIMARY KEY,
    stage_rank INTEGER NOT NULL,
    last_rec_us INTEGER NOT NULL,
    state TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS signal_accounts_recent ON signal_accounts (last_rec_us);
CREATE TABLE IF NOT EXISTS signal_people (email TEXT PRIMARY KEY, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS signal_clock (one INTEGER PRIMARY KEY CHECK (one = 1), last_us INTEGER);
"""
INSERT_EVENT = "INSERT INTO signal_events VALUES (?, ?, ?, ?, ?, ?, ?)"
# Upserts rewrite a known roll-up in place: no delete and re-insert, no primary-key index churn.
UPSERT_PERSON = (
    "INSERT INTO signal_people VALUES (?, ?)"
    " ON CONFLICT (email) DO UPDATE SET state = excluded.state"
)
UPSERT_ACCOUNT = (
    "INSERT INTO signal_accounts VALUES (?, ?, ?, ?) ON CONFLICT (domain) DO UPDATE SET"
    " stage_rank = excluded.stage_rank, last_rec_us = excluded.last_rec_us, state = excluded.state"
)
CACHE_LIMIT = 20_000  # roll-ups kept in memory between batches (some tens of MB at most)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_CHUNK = 500  # bound on `?` parameters per IN (...)


def to_us(when: datetime) -> int:
    """Microseconds since the epoch (exact; no float rounding)."""
    delta = when - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_us(us: int) -> datetime:
    return _EPOCH + timedelta(microseconds=us)


def event_row(event: Event, rec_us: int) -> tuple[int, str, str, str | None, str | None, str, str]:
    """The stored row of one event (also used by the bench's raw-insert baseline)."""
    words = " " + " ".join(event_words(event)) + " "
    return (
        rec_us,
        event.id,
        event.type,
        event.account.domain,
        event.person.email,
        words,
        event.model_dump_json(),
    )


class SqliteSignalStore:
    """SignalStore on SQLite."""

    def __init__(
        self,
        db: SqliteDatabase,
        *,
        clock: Callable[[], datetime] = utc_now,
        cache_limit: int = CACHE_LIMIT,
    ) -> None:
        self._db = db
        self._clock = clock
        self._cache = _RollupCache(cache_limit)
        db.ensure_schema("signal_events", DDL)

    def store_events(self, events: Sequence[NewEvent]) -> StoreResult:
        ids = list(dict.fromkeys(e.id for e in events))
        try:
            with self._db.transaction() as conn:
                existing: dict[str, str] = {
                    r[0]: r[1]
                    for r in _select_in(conn, "signal_events", "id", ids, columns="id, body")
                }
                fresh = {e.id: e for e in reversed(events) if e.id not in existing}
                last_us = self._cache.check(conn)
                base = max(to_us(self._clock()), (last_us or 0) + 1)
                stored = [
                    stamp_event(fresh[event_id], from_us(base + i))
                    for i, event_id in enumerate(i for i in ids if i in fresh)
                ]
                if stored:
                    conn.executemany(
                        INSERT_EVENT, [event_row(e, base + i) for i, e in enumerate(stored)]
                    )
                    last_us = base + len(stored) - 1
                    conn.execute("INSERT OR REPLACE INTO signal_clock VALUES (1, ?)", (last_us,))
                    self._fold(conn, stored)
                self._cache.stamp = last_us
        except BaseException:
            self._cache.clear()  # roll-ups were folded in place, then rolled back
            raise
        by_id = {e.id: e for e in stored}
        for event_id, body in existing.items():
            by_id[event_id] = Event.model_validate_json(body)
        return StoreResult(events=[by_id[i] for i in ids], new_ids=frozenset(fresh))

    def _fold(self, conn: sqlite3.Connection, events: list[Event]) -> None:
        """Fold the batch into its roll-ups in memory, then write each touched one once."""
        people, accounts = self._cache.people, self._cache.accounts
        emails = {e.person.email for e in events if e.person.email} - people.keys()
        domains = {e.account.domain for e in events if e.account.domain} - accounts.keys()
        for row in _select_in(conn, "signal_people", "email", list(emails), columns="email, state"):
            people[row[0]] = load_person(row[1])
        for row in _select_in(
            conn, "signal_accounts", "domain", list(domains), columns="domain, state"
        ):
            accounts[row[0]] = load_account(row[1])
        touched_people: dict[str, PersonRollup] = {}
        touched_accounts: dict[str, AccountRollup] = {}
        for event in events:
            email, domain = event.person.email, event.account.domain
            account, person = fold_event(
                accounts.get(domain) if domain else None,
                people.get(email) if email else None,
                event,
            )
            if person is not None:
                people[person.email] = touched_people[person.email] = person
            if account is not None:
                accounts[account.domain] = touched_accounts[account.domain] = account
        conn.executemany(
            UPSERT_PERSON, [(p.email, dump_rollup(p)) for p in touched_people.values()]
        )
        _save_accounts(conn, touched_accounts.values())
        self._cache.trim()

    def read_stream(self, query: StreamQuery) -> StreamPage:
        where, params = _filters(query)
        order = "ASC" if query.forward else "DESC"
        sql = (
            f"SELECT rec_us, body FROM signal_events WHERE {where} ORDER BY rec_us {order} LIMIT ?"  # noqa: S608  # fixed fragments
        )
        rows = self._db.connection().execute(sql, [*params, query.limit + 1]).fetchall()
        has_more = len(rows) > query.limit
        rows = rows[: query.limit]
        events = [Event.model_validate_json(row["body"]) for row in rows]
        if query.forward:
            events.reverse()
        last = (
            Position(recorded_at=events[0].recorded_at, event_id=events[0].id) if events else None
        )
        return StreamPage(events=events, has_more=has_more, last=last)

    def get_account(self, domain: str) -> AccountRollup | None:
        row = (
            self._db.connection()
            .execute("SELECT state FROM signal_accounts WHERE domain = ?", (domain,))
            .fetchone()
        )
        return load_account(row["state"]) if row else None

    def list_accounts(self, query: AccountQuery) -> tuple[list[AccountRollup], bool]:
        sql = "SELECT state FROM signal_accounts WHERE last_rec_us >= ?"
        params: list[object] = [to_us(query.active_since)]
        if query.stages:
            sql += f" AND stage_rank IN ({','.join('?' * len(query.stages))})"
            params += [RANK[s] for s in query.stages]
        sql += " ORDER BY last_rec_us DESC LIMIT ?"
        rows = self._db.connection().execute(sql, [*params, query.limit + 1]).fetchall()
        return [load_account(r["state"]) for r in rows[: query.limit]], len(rows) > query.limit

    def get_person(self, email: str) -> PersonRollup | None:
        row = (
            self._db.connection()
            .execute("SELECT state FROM signal_people WHERE email = ?", (email,))
            .fetchone()
        )
        return load_person(row["state"]) if row else None

    def erase_person(self, email: str) -> list[str]:
        with self._db.transaction() as conn:
            erased = conn.execute(
                "SELECT id, domain FROM signal_events WHERE email = ? ORDER BY rec_us", (email,)
            ).fetchall()
            domains = {r["domain"] for r in erased if r["domain"]}
            conn.execute("DELETE FROM signal_events WHERE email = ?", (email,))
            conn.execute("DELETE FROM signal_people WHERE email = ?", (email,))
            # Moving the clock tells every store's roll-up cache that roll-ups changed.
            conn.execute("UPDATE signal_clock SET last_us = last_us + 1")
            self._cache.clear()
            for domain in domains:
                # Erasure alone rebuilds an account from its remaining events.
                rows = conn.execute(
                    "SELECT body FROM signal_events WHERE domain = ? ORDER BY rec_us", (domain,)
                )
                account = rebuild_account(Event.model_validate_json(r["body"]) for r in rows)
                conn.execute("DELETE FROM signal_accounts WHERE domain = ?", (domain,))
                if account is not None:
                    _save_accounts(conn, [account])
        return [r["id"] for r in erased]


class _RollupCache:
    """The roll-ups as this store last wrote them, trusted while the clock row is unmoved.

    Every write of events or roll-ups moves `signal_clock.last_us` (erasure too), so a clock
    that differs from the one this store left means another writer was here: start afresh.
    Used only inside write transactions, which BEGIN IMMEDIATE serializes.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.stamp: int | None = None
        self.people: dict[str, PersonRollup] = {}
        self.accounts: dict[str, AccountRollup] = {}

    def check(self, conn: sqlite3.Connection) -> int | None:
        """The clock's value, after forgetting everything if someone else moved it."""
        row = conn.execute("SELECT last_us FROM signal_clock").fetchone()
        last_us: int | None = row[0] if row else None
        if last_us != self.stamp:
            self.clear()
        return last_us

    def clear(self) -> None:
        self.stamp = None
        self.people.clear()
        self.accounts.clear()

    def trim(self) -> None:
        if len(self.people) + len(self.accounts) > self.limit:
            self.people.clear()
            self.accounts.clear()


def _save_accounts(conn: sqlite3.Connection, accounts: Iterable[AccountRollup]) -> None:
    conn.executemany(
        UPSERT_ACCOUNT,
        [(a.domain, RANK[a.stage], to_us(a.last_recorded_at), dump_rollup(a)) for a in accounts],
    )


def _select_in(
    conn: sqlite3.Connection, table: str, column: str, values: list[str], *, columns: str = "*"
) -> list[sqlite3.Row]:
    rows: list[sqlite3.Row] = []
    for start in range(0, len(values), _CHUNK):
        chunk = values[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        sql = f"SELECT {columns} FROM {table} WHERE {column} IN ({marks})"  # noqa: S608  # fixed names
        rows += conn.execute(sql, chunk).fetchall()
    return rows


def _filters(query: StreamQuery) -> tuple[str, list[object]]:
    clauses: list[str] = ["1 = 1"]
    params: list[object] = []
    if query.after is not None:
        us = to_us(query.after.recorded_at)
        # rec_us is unique, so the id only breaks a tie with the cursor's own event.
        clauses.append("rec_us >= ? AND NOT (rec_us = ? AND id <= ?)")
        params += [us, us, query.after.event_id]
    if query.until is not None:
        clauses.append("rec_us < ?")
        params.append(to_us(query.until))
    if query.types:
        clauses.append(f"type IN ({','.join('?' * len(query.types))})")
        params += list(query.types)
    if query.domain is not None:
        clauses.append("domain = ?")
        params.append(query.domain)
    if query.email is not None:
        clauses.append("email = ?")
        params.append(query.email)
    for word in query.words:
        clauses.append("instr(words, ?) > 0")
        params.append(f" {word} ")
    return " AND ".join(clauses), params
