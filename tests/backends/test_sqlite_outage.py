"""The embedded stores while their SQLite file cannot take a write (locked past its busy wait,
a full disk, a read-only file): every write raises the port's UnavailableError, as the Firestore
adapters do in an outage (test_firestore_outage.py), so the surfaces answer 503 with Retry-After
and a queued message is delivered again, never a 500. Reads still answer. Here the file refuses
this thread's writes (`PRAGMA query_only`, SQLite's SQLITE_READONLY)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from backends.embedded.keys import SqliteKeyStore
from backends.embedded.pages import SqlitePageStore
from backends.embedded.sqlite import SqliteDatabase
from backends.embedded.webhooks import SqliteWebhookStore
from backends.ports import StoredPage
from backends.secret_box import SecretBox
from tests.backends.outage import DELIVERY, ENDPOINT, KEY, NOW, SECRET, outcome

PAGE = StoredPage(
    slug="launch",
    version=1,
    status="published",
    source="api",
    page_input={"slug": "launch", "title": "Launch", "blocks": [{"type": "hero"}]},
    created_at=NOW,
    updated_at=NOW,
    published_at=NOW,
)


@pytest.fixture
def db(tmp_path: Path) -> SqliteDatabase:
    return SqliteDatabase(tmp_path / "frontdoor.sqlite3")


def _refuse_writes(db: SqliteDatabase) -> None:
    db.connection().execute("PRAGMA query_only = ON")


def test_every_key_store_write_is_unavailable_while_the_file_refuses_writes(
    db: SqliteDatabase,
) -> None:
    keys = SqliteKeyStore(db)
    keys.add_key(KEY)
    _refuse_writes(db)

    writes: list[Callable[[], object]] = [
        lambda: keys.add_key(replace(KEY, key_id="ba9876543210")),
        lambda: keys.revoke_key(KEY.key_id, now=NOW),
    ]

    assert [outcome(write) for write in writes] == ["unavailable"] * len(writes)
    assert keys.get_key(KEY.key_id) == KEY


def test_every_webhook_store_write_is_unavailable_while_the_file_refuses_writes(
    db: SqliteDatabase,
) -> None:
    hooks = SqliteWebhookStore(db, box=SecretBox("test-webhook-secrets-key"))
    hooks.add_endpoint(ENDPOINT)
    hooks.add_delivery(DELIVERY)
    _refuse_writes(db)
    wh = ENDPOINT.endpoint_id

    writes: list[Callable[[], object]] = [
        lambda: hooks.add_endpoint(replace(ENDPOINT, endpoint_id="wh_ba9876543210")),
        lambda: hooks.set_secrets(wh, (SECRET,)),
        lambda: hooks.disable_endpoint(wh, reason="gone", now=NOW),
        lambda: hooks.add_delivery(replace(DELIVERY, delivery_id="msg_4567")),
        lambda: hooks.update_delivery(DELIVERY, if_attempts=0, if_replays=0),
        lambda: hooks.erase_deliveries_for_events(["site:1"]),
        lambda: hooks.delete_endpoint(wh),
    ]

    assert [outcome(write) for write in writes] == ["unavailable"] * len(writes)
    assert hooks.get_delivery(DELIVERY.delivery_id) == DELIVERY


def test_a_page_write_is_unavailable_while_the_file_refuses_writes(db: SqliteDatabase) -> None:
    pages = SqlitePageStore(db)
    _refuse_writes(db)

    assert outcome(lambda: pages.save_page(PAGE, expected_version=0)) == "unavailable"
    assert pages.get_page("launch") is None


def test_an_error_that_is_no_outage_is_not_taken_for_one(db: SqliteDatabase) -> None:
    """A bug in a statement stays a bug (a 500 that is logged), not a 503 to retry forever."""
    with pytest.raises(sqlite3.OperationalError, match="no such table"), db.transaction() as conn:
        conn.execute("INSERT INTO no_such_table VALUES (1)")
