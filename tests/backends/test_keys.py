"""Contract suite for KeyStore: the same behaviour on SQLite and on the Firestore emulator."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from backends.embedded.keys import SqliteKeyStore
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import (
    ApiKeyRecord,
    ConflictError,
    KeyLimits,
    KeyStore,
    NotFoundError,
    Scope,
)
from services.keys import KeyRing, hash_key, issue_key
from tests.emulators import ManagedProcess

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[KeyStore]:
    if request.param == "sqlite":
        yield SqliteKeyStore(SqliteDatabase(tmp_path / "keys.sqlite3"))
        return
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.firestore import firestore_client
    from backends.gcp.keys import FirestoreKeyStore

    prefix = f"t{uuid.uuid4().hex[:10]}_"
    yield FirestoreKeyStore(firestore_client(project="demo-frontdoor"), prefix=prefix)


def _record(
    key_id: str = "k1", *, scope: Scope = "content", created: datetime = NOW
) -> ApiKeyRecord:
    return ApiKeyRecord(
        key_id=key_id, partner="acme", scope=scope, secret_hash="h" * 64, created_at=created
    )


def test_a_stored_key_reads_back_equal(store: KeyStore) -> None:
    record = _record()

    store.add_key(record)

    assert store.get_key("k1") == record


def test_a_limited_signals_key_reads_back_with_its_limits(store: KeyStore) -> None:
    limits = KeyLimits(types=("lead_form", "book_call"), sources=("site",), own_pages=True)
    record = dataclasses.replace(_record(scope="signals"), limits=limits)

    store.add_key(record)

    assert store.get_key("k1") == record
    assert [r.limits for r in store.list_keys()] == [limits]


def test_an_unknown_key_id_reads_as_none(store: KeyStore) -> None:
    assert store.get_key("missing") is None


def test_adding_the_same_key_id_twice_conflicts(store: KeyStore) -> None:
    store.add_key(_record())

    with pytest.raises(ConflictError):
        store.add_key(_record())


def test_revoking_marks_the_key_and_is_idempotent(store: KeyStore) -> None:
    store.add_key(_record())

    first = store.revoke_key("k1", now=NOW + timedelta(hours=1))
    second = store.revoke_key("k1", now=NOW + timedelta(hours=2))

    assert first.revoked_at == NOW + timedelta(hours=1)
    assert second.revoked_at == NOW + timedelta(hours=1)
    assert not store.get_key("k1").active  # type: ignore[union-attr]


def test_revoking_an_unknown_key_raises_not_found(store: KeyStore) -> None:
    with pytest.raises(NotFoundError):
        store.revoke_key("missing", now=NOW)


def test_keys_list_oldest_first(store: KeyStore) -> None:
    store.add_key(_record("b", created=NOW + timedelta(minutes=1)))
    store.add_key(_record("a", created=NOW))

    assert [r.key_id for r in store.list_keys()] == ["a", "b"]


def test_an_issued_key_is_stored_only_as_its_hash_and_authenticates_for_its_scope(
    store: KeyStore,
) -> None:
    raw, record = issue_key(keys=store, partner="acme", scope="signals", now=NOW)
    ring = KeyRing(store, {})

    stored = store.get_key(record.key_id)

    assert stored is not None
    assert raw not in repr(stored)
    assert stored.secret_hash == hash_key(raw)
    assert ring.authenticate(raw, "signals") is not None
    assert ring.authenticate(raw, "content") is None


def test_a_revoked_or_altered_key_no_longer_authenticates(store: KeyStore) -> None:
    raw, record = issue_key(keys=store, partner="acme", scope="content", now=NOW)
    ring = KeyRing(store, {})

    altered = raw[:-2] + ("AA" if not raw.endswith("AA") else "BB")
    store.revoke_key(record.key_id, now=NOW)

    assert ring.authenticate(altered, "content") is None
    assert ring.authenticate(raw, "content") is None


def test_bootstrap_keys_authenticate_only_for_their_own_scope(store: KeyStore) -> None:
    ring = KeyRing(store, {"content": "bootstrap-content-key-123456"})

    assert ring.authenticate("bootstrap-content-key-123456", "content") is not None
    assert ring.authenticate("bootstrap-content-key-123456", "signals") is None
    assert ring.authenticate("", "content") is None
    assert ring.authenticate(None, "content") is None


def test_the_firestore_emulator_fixture_exports_its_host(request: pytest.FixtureRequest) -> None:
    """Guards the session fixture itself: the client finds the emulator through the env."""
    proc: ManagedProcess = request.getfixturevalue("firestore_emulator")

    assert proc.proc.poll() is None


def test_a_bootstrap_key_reads_back_as_one(store: KeyStore) -> None:
    """The keys a `make run` start printed are marked, so the next start revokes them."""
    raw, record = issue_key(keys=store, partner="local", scope="signals", now=NOW, bootstrap=True)
    issue_key(keys=store, partner="acme", scope="signals", now=NOW)

    marked = {r.key_id: r.bootstrap for r in store.list_keys()}

    assert marked[record.key_id] is True
    assert sorted(marked.values()) == [False, True]
    assert KeyRing(store, {}).authenticate(raw, "signals") is not None


def test_a_content_admin_key_opens_content_routes_only_when_asked(store: KeyStore) -> None:
    """A content_admin key (its scope holds `_`) authenticates where it is accepted."""
    raw, record = issue_key(keys=store, partner="ops", scope="content_admin", now=NOW)
    ring = KeyRing(store, {})

    admin = ring.authenticate(raw, "content", also=("content_admin",))

    assert admin is not None
    assert (admin.key_id, admin.partner, admin.admin) == (record.key_id, "ops", True)
    assert ring.authenticate(raw, "content") is None
    assert ring.authenticate(raw, "signals") is None
    assert ring.authenticate(raw.replace("content_admin", "content"), "content") is None
