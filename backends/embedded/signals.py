"""SqliteSignalStore: signal events and their roll-ups in the embedded database.

Gapless by construction: `BEGIN IMMEDIATE` serializes writers, and inside that lock each new
event gets recorded_at = max(now, last + 1 µs) from a clock row, so commit order equals stream
order and a reader that has seen a position has seen everything before it. recorded_at is kept
as integer microseconds (`rec_us`, the rowid), unique, so polls are a primary-key range scan.

A batch is one transaction: its events go in by INSERT OR IGNORE (an id stored before is
skipped, so the common all-new batch needs no lookup), the new ones are folded into roll-ups
in memory (schemas/signals/fold.py) and each touched row and tally is written once by UPSERT
(backends/embedded/signal_tables.py has the layout).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime

from backends.clock import utc_now
from backends.embedded.page_funnels import (
    PAGE_FUNNEL_DDL,
    backfill_page_funnels,
    convert_page_visits,
    fold_page_funnels,
    read_page_funnel,
)
from backends.embedded.signal_identity import (
    IDENTITY_DDL,
    LINKED_TO_DOMAIN,
    LINKED_TO_EMAIL,
    account_events,
    erase_links,
    events_to_fold,
)
from backends.embedded.signal_tables import (
    ACCOUNT_COLUMNS,
    ADD_ACCOUNT_PAGE,
    ADD_BRIEF,
    ADD_PERSON_PAGE,
    DDL,
    INDEX_DDL,
    INSERT_EVENT,
    INSERT_NEW_EVENT_INTO,
    PERSON_COLUMNS,
    UPSERT_ACCOUNT,
    UPSERT_PERSON,
    account_row,
    account_state,
    add_evidence_columns,
    add_score_columns,
    brief_row,
    first_layout_tables,
    from_us,
    migrate,
    person_row,
    person_state,
    read_account,
    read_person,
    replace_account,
)
from backends.embedded.sqlite import SqliteDatabase, insert_rows
from backends.ports import AccountQuery, StoreResult, StreamPage, StreamQuery
from schemas.signals.events import Event, NewEvent, Position, search_text, stamp_event
from schemas.signals.fold import AccountState, BatchFold, PersonState, fold_batch, to_us
from schemas.signals.page_funnel import FunnelRows
from schemas.signals.rollups import RANK, AccountRollup, PersonRollup, rebuild_account

logger = logging.getLogger(__name__)
__all__ = [
    "DDL",
    "INSERT_EVENT",
    "STORE_DDL",
    "SqliteSignalStore",
    "event_row",
    "from_us",
    "rollup_writes",
    "to_us",
]
# Every table and index the store keeps (the bench's raw inserts write into the same).
STORE_DDL = DDL + IDENTITY_DDL + INDEX_DDL
CACHE_LIMIT = 50_000  # roll-up states kept in memory between batches (a few hundred bytes each)
_CHUNK = 500  # bound on `?` parameters per IN (...)


def event_row(event: Event, rec_us: int) -> tuple[int, str, str, str | None, str | None, str, str]:
    """The stored row of one event (also used by the bench's raw-insert baseline)."""
    return (
        rec_us,
        event.id,
        event.type,
        event.account.domain,
        event.person.email,
        search_text(event),
        # model_dump_json without its Python wrapper: the same serializer with the same defaults
        # (read here, not at import, so that a start does not build it).
        Event.__pydantic_serializer__.to_json(event).decode(),
    )


def rollup_writes(done: BatchFold) -> list[tuple[str, list[tuple[object, ...]]]]:
    """The statements and rows that store a folded batch (also timed alone by the bench)."""
    return [
        (UPSERT_PERSON, [person_row(p) for p in done.people.values()]),
        (UPSERT_ACCOUNT, [account_row(a) for a in done.accounts.values()]),
        (ADD_PERSON_PAGE, [(*k, n) for k, n in done.person_pages.items()]),
        (ADD_ACCOUNT_PAGE, [(*k, n) for k, n in done.account_pages.items()]),
        (ADD_BRIEF, [brief_row(*k, b) for k, b in done.briefs.items()]),
    ]


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
        self._cache = _StateCache(cache_limit)
        db.ensure_schema("signal_events", DDL + IDENTITY_DDL)
        if first_layout_tables(db.connection()):
            with db.transaction() as conn:
                converted = migrate(conn)
            logger.info("signal roll-ups converted to the row layout: %d", converted)
        with db.transaction() as conn:
            if add_score_columns(conn):
                logger.info("signal roll-ups given score columns")
            if add_evidence_columns(conn):
                logger.info("signal roll-ups given evidence columns")
        db.ensure_schema("signal_rollup_indexes", INDEX_DDL)
        with db.transaction() as conn:
            if not _has_table(conn, "signal_page_tallies"):
                # Statement by statement: executescript would commit the transaction first.
                for statement in PAGE_FUNNEL_DDL.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                folded = backfill_page_funnels(conn)
                if folded:
                    logger.info("page funnels folded from stored events: %d", folded)
            elif _has_table(conn, "signal_page_visits"):
                converted = convert_page_visits(conn)
                logger.info("page visit tallies converted to one row a day: %d", converted)

    def store_events(self, events: Sequence[NewEvent]) -> StoreResult:
        first: dict[str, NewEvent] = {}
        for new in events:
            first.setdefault(new.id, new)  # a repeated id within the batch: the first stands
        try:
            with self._db.transaction() as conn:
                last_us = self._cache.check(conn)
                base = max(to_us(self._clock()), (last_us or 0) + 1)
                stamped = [stamp_event(e, from_us(base + i)) for i, e in enumerate(first.values())]
                rows = [event_row(e, base + i) for i, e in enumerate(stamped)]
                before = conn.total_changes
                insert_rows(conn, INSERT_NEW_EVENT_INTO, rows)
                existing: dict[str, Event] = {}
                if conn.total_changes - before != len(rows):
                    existing = _stored_before(conn, rows)
                stored = [e for e in stamped if e.id not in existing]
                if stored:
                    last_us = base + len(rows) - 1
                    conn.execute("INSERT OR REPLACE INTO signal_clock VALUES (1, ?)", (last_us,))
                    positions = [to_us(e.recorded_at) for e in stored]
                    self._fold(conn, events_to_fold(conn, stored, positions))
                    fold_page_funnels(conn, stored)
                self._cache.stamp = last_us
        except BaseException:
            self._cache.clear()  # states were folded in place, then rolled back
            raise
        return StoreResult(
            events=[existing.get(e.id, e) for e in stamped],
            new_ids=frozenset(e.id for e in stored),
        )

    def _fold(self, conn: sqlite3.Connection, events: list[Event]) -> None:
        """Fold the batch into its roll-up states, then write each touched row once."""
        people, accounts = self._cache.people, self._cache.accounts
        emails = {e.person.email for e in events if e.person.email} - people.keys()
        domains = {e.account.domain for e in events if e.account.domain} - accounts.keys()
        for row in _select_in(conn, "signal_person_rollups", "email", emails, PERSON_COLUMNS):
            people[row[0]] = person_state(tuple(row))
        for row in _select_in(conn, "signal_account_rollups", "domain", domains, ACCOUNT_COLUMNS):
            accounts[row[0]] = account_state(tuple(row))
        for sql, params in rollup_writes(fold_batch(people, accounts, events)):
            conn.executemany(sql, params)
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
        conn = self._db.connection()
        sql = f"SELECT {ACCOUNT_COLUMNS} FROM signal_account_rollups WHERE domain = ?"  # noqa: S608  # fixed names
        row = conn.execute(sql, (domain,)).fetchone()
        return read_account(conn, row) if row else None

    def list_accounts(self, query: AccountQuery) -> tuple[list[AccountRollup], bool]:
        sql, params = accounts_list_statement(query)
        conn = self._db.connection()
        rows = conn.execute(sql, params).fetchall()
        return [read_account(conn, r) for r in rows[: query.limit]], len(rows) > query.limit

    def get_person(self, email: str) -> PersonRollup | None:
        return read_person(self._db.connection(), email)

    def read_page_funnel(
        self, slug: str, *, first_day: int, last_day: int, dimension: str | None
    ) -> FunnelRows:
        return read_page_funnel(
            self._db.connection(),
            slug,
            first_day=first_day,
            last_day=last_day,
            dimension=dimension,
        )

    def erase_person(self, email: str) -> list[str]:
        """One transaction: all of it happens or none, so a retry after a failure redoes it
        whole, and a repeat finds nothing left (idempotent)."""
        with self._db.transaction() as conn:
            erased = conn.execute(
                "SELECT id, domain FROM signal_events WHERE email = ? ORDER BY rec_us", (email,)
            ).fetchall()
            linked_ids, linked_domains = erase_links(conn, email)
            domains = sorted({r["domain"] for r in erased if r["domain"]} | linked_domains)
            conn.execute("DELETE FROM signal_events WHERE email = ?", (email,))
            conn.execute("DELETE FROM signal_person_rollups WHERE email = ?", (email,))
            conn.execute("DELETE FROM signal_person_pages WHERE email = ?", (email,))
            # Moving the clock tells every store's roll-up cache that roll-ups changed.
            conn.execute("UPDATE signal_clock SET last_us = last_us + 1")
            self._cache.clear()
            for domain in domains:
                # Erasure alone rebuilds an account from its remaining events.
                replace_account(conn, domain, rebuild_account(account_events(conn, domain)))
        return [r["id"] for r in erased] + linked_ids


def accounts_list_statement(query: AccountQuery) -> tuple[str, list[object]]:
    """The accounts list's one SELECT and its parameters (one row past the limit, to tell
    whether more follow): an index walk in either order, from the start or a page's position."""
    sql = f"SELECT {ACCOUNT_COLUMNS} FROM signal_account_rollups WHERE rec_us >= ?"  # noqa: S608  # fixed names
    params: list[object] = [to_us(query.active_since)]
    if query.stages:
        sql += f" AND stage_rank IN ({','.join('?' * len(query.stages))})"
        params += [RANK[s] for s in query.stages]
    if query.min_heat_log is not None:
        sql += " AND heat_log >= ?"
        params.append(query.min_heat_log)
    if query.seen_since is not None:
        sql += " AND last_us >= ?"
        params.append(to_us(query.seen_since))
    key = "heat_log" if query.sort == "score" else "rec_us"
    if query.sort == "score":
        sql += " AND heat_log IS NOT NULL"
    if query.after is not None:
        # Keyset paging on (key, domain), both descending: a row value, so the page starts
        # inside the index's own order instead of sorting what an OR of two ranges found.
        sql += f" AND ({key}, domain) < (?, ?)"
        params += [query.after.key, query.after.domain]
    sql += f" ORDER BY {key} DESC, domain DESC LIMIT ?"
    return sql, [*params, query.limit + 1]


class _StateCache:
    """Roll-up states as this store last wrote them, trusted while the clock row is unmoved.

    Every write of events or roll-ups moves `signal_clock.last_us` (erasure too), so a clock
    that differs from the one this store left means another writer was here: start afresh.
    Used only inside write transactions, which BEGIN IMMEDIATE serializes.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.stamp: int | None = None
        self.people: dict[str, PersonState] = {}
        self.accounts: dict[str, AccountState] = {}

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


def _stored_before(
    conn: sqlite3.Connection, rows: Sequence[tuple[object, ...]]
) -> dict[str, Event]:
    """The batch's events that were stored before (their rows kept their own rec_us).

    Raises: sqlite3.IntegrityError if a row is missing altogether (ignored for another reason).
    """
    given = {str(r[1]): r[0] for r in rows}
    found = _select_in(conn, "signal_events", "id", set(given), "id, rec_us, body")
    if len(found) != len(given):
        raise sqlite3.IntegrityError("signal event neither stored nor found")
    return {
        r["id"]: Event.model_validate_json(r["body"])
        for r in found
        if r["rec_us"] != given[r["id"]]
    }


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
    return conn.execute(sql, (name,)).fetchone() is not None


def _select_in(
    conn: sqlite3.Connection, table: str, column: str, values: set[str], columns: str
) -> list[sqlite3.Row]:
    wanted = sorted(values)
    found: list[sqlite3.Row] = []
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        sql = f"SELECT {columns} FROM {table} WHERE {column} IN ({marks})"  # noqa: S608  # fixed names
        found += conn.execute(sql, chunk).fetchall()
    return found


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
    # A person's or account's events include the anonymous ones linked through a visitor id.
    if query.domain is not None:
        clauses.append(f"(domain = ? OR {LINKED_TO_DOMAIN})")
        params += [query.domain, query.domain]
    if query.email is not None:
        clauses.append(f"(email = ? OR {LINKED_TO_EMAIL})")
        params += [query.email, query.email]
    for word in query.words:
        clauses.append("instr(words, ?) > 0")
        params.append(f" {word} ")
    for name, value in query.properties:
        clauses.append("json_extract(body, ?) = ?")
        params += [f"$.properties.{name}", value]
    if query.path is not None:
        clauses.append("json_extract(body, '$.page.path') = ?")
        params.append(query.path)
    return " AND ".join(clauses), params
