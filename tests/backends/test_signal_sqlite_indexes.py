"""The embedded signal store's accounts list walks an index for every order and page, with no
sort, and keeps no index that none of its queries use (the SQLite side of
test_signal_indexes.py, which checks the Firestore store's queries against domain/indexes.py)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from backends.embedded.signals import SqliteSignalStore, accounts_list_statement
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import AccountPosition, AccountQuery
from backends.ports.signals import AccountSort
from schemas.signals.events import NewEvent, normalize_event

ROLLUPS = "signal_account_rollups"
SORTS: tuple[AccountSort, ...] = ("recent", "score")


def touch(n: int) -> NewEvent:
    now = datetime.now(UTC)
    raw = {
        "source": "crm",
        "row_id": str(n),
        "type": "book_call" if n % 2 else "article_read",
        "occurred_at": now.isoformat(),
        "person": {"email": f"p{n}@company{n}.example"},
        "page": {"path": f"/blog/{n}"},
    }
    event = normalize_event(raw, now=now)
    assert isinstance(event, NewEvent)
    return event


def accounts_list_queries(store: SqliteSignalStore) -> list[AccountQuery]:
    """The accounts list over both orders, with and without a stage and a minimum score, for a
    first page and the page after it (the positions taken from the store's own answers)."""
    since = datetime.now(UTC) - timedelta(days=1)
    queries: list[AccountQuery] = []
    for sort in SORTS:
        for stages in ((), ("hand_raiser", "engaged")):
            for min_heat_log in (None, 0.0):
                first = AccountQuery(
                    active_since=since,
                    stages=stages,
                    sort=sort,
                    min_heat_log=min_heat_log,
                    limit=1,
                )
                accounts, more = store.list_accounts(first)
                assert accounts
                assert more
                after = replace(first, after=AccountPosition.of(accounts[-1], sort))
                assert store.list_accounts(after)[0]
                queries += [first, after]
    return queries


def plan(conn: sqlite3.Connection, query: AccountQuery) -> list[str]:
    """SQLite's plan for the statement the store runs, its parameters bound as the store binds
    them (a plan for literal values can differ)."""
    sql, params = accounts_list_statement(query)
    return [row[-1] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params)]


def test_every_page_of_the_accounts_list_is_an_index_walk_and_every_index_serves_one(
    tmp_path: Path,
) -> None:
    """DESIGN Signals: roll-ups are never recomputed on read; the list's pages are read in an
    index's own order (no sort of the rows found), and no index of the table goes unused."""
    db = SqliteDatabase(tmp_path / "signals.sqlite3")
    store = SqliteSignalStore(db)
    store.store_events([touch(n) for n in range(6)])
    conn = db.connection()

    plans = [plan(conn, query) for query in accounts_list_queries(store)]
    declared = {
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?"
            " AND sql IS NOT NULL",  # not the primary key's own
            (ROLLUPS,),
        )
    }
    used = {name for steps in plans for step in steps for name in declared if f" {name} " in step}

    assert len(plans) == 16
    assert [steps for steps in plans if any("TEMP B-TREE" in step for step in steps)] == []
    assert [steps for steps in plans if not any("USING INDEX" in s for s in steps)] == []
    assert (
        used
        == declared
        == {
            "signal_account_rollups_heat",
            "signal_account_rollups_recent_domain",
        }
    )


def test_a_data_file_from_before_loses_the_accounts_list_index_no_query_used(
    tmp_path: Path,
) -> None:
    """The index on rec_us alone was served better by (rec_us, domain)."""
    path = tmp_path / "signals.sqlite3"
    SqliteSignalStore(SqliteDatabase(path))
    with sqlite3.connect(path) as old:
        old.execute(f"CREATE INDEX signal_account_rollups_recent ON {ROLLUPS} (rec_us)")

    SqliteSignalStore(SqliteDatabase(path))

    with sqlite3.connect(path) as conn:
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert "signal_account_rollups_recent" not in names
    assert "signal_account_rollups_recent_domain" in names
