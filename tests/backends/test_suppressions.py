"""Contract suite for SuppressionStore: the same behaviour on SQLite and on the Firestore
emulator; an address is held as a keyed hash, never in clear or as a bare hash."""

from __future__ import annotations

import hashlib
import sqlite3
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from backends.embedded.sqlite import SqliteDatabase
from backends.embedded.suppressions import SqliteSuppressionStore
from backends.ports import SuppressionStore

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
KEY = b"k" * 32


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def held_forms(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[SuppressionStore, object]]:
    """The store, and a function listing what it keeps (row keys or document ids)."""
    if request.param == "sqlite":
        path = tmp_path / "s.sqlite3"
        store = SqliteSuppressionStore(SqliteDatabase(path), key=KEY)

        def kept() -> list[str]:
            with sqlite3.connect(path) as conn:
                return [r[0] for r in conn.execute("SELECT digest FROM signal_suppressions")]

        yield store, kept
        return
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.firestore import firestore_client
    from backends.gcp.suppressions import FirestoreSuppressionStore

    client = firestore_client(project="demo-frontdoor")
    prefix = f"t{uuid.uuid4().hex[:10]}_"

    def listed() -> list[str]:
        return [d.id for d in client.collection(f"{prefix}signal_suppressions").stream()]

    yield FirestoreSuppressionStore(client, key=KEY, prefix=prefix), listed


@pytest.fixture
def store(held_forms: tuple[SuppressionStore, object]) -> SuppressionStore:
    return held_forms[0]


def test_a_suppressed_address_is_held_and_others_are_not(store: SuppressionStore) -> None:
    store.suppress("ada@acme.com", now=NOW)

    assert store.suppressed(["ada@acme.com", "bo@acme.com"]) == {"ada@acme.com"}
    assert store.suppressed([]) == set()


def test_suppressing_twice_then_lifting_once_accepts_the_address_again(
    store: SuppressionStore,
) -> None:
    store.suppress("ada@acme.com", now=NOW)
    store.suppress("ada@acme.com", now=NOW)

    first, second = store.lift("ada@acme.com"), store.lift("ada@acme.com")

    assert (first, second) == (True, False)
    assert store.suppressed(["ada@acme.com"]) == set()


def test_the_address_is_kept_as_a_keyed_hash_neither_in_clear_nor_as_a_bare_hash(
    held_forms: tuple[SuppressionStore, object],
) -> None:
    store, kept = held_forms
    store.suppress("ada@acme.com", now=NOW)

    (stored,) = kept()  # type: ignore[operator]  # the fixture's listing function

    assert "ada" not in stored
    assert stored not in {
        hashlib.sha256(b"ada@acme.com").hexdigest(),
        hashlib.sha1(b"ada@acme.com").hexdigest(),  # noqa: S324  # what the hash must not be
        hashlib.md5(b"ada@acme.com").hexdigest(),  # noqa: S324  # what the hash must not be
    }


def test_a_store_with_another_key_does_not_recognise_the_held_address(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "s.sqlite3")
    SqliteSuppressionStore(db, key=KEY).suppress("ada@acme.com", now=NOW)

    assert SqliteSuppressionStore(db, key=b"other" * 8).suppressed(["ada@acme.com"]) == set()
