"""Contract suite for OAuthStore: the same behaviour on SQLite and on the Firestore emulator."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from backends.embedded.oauth import SqliteOAuthStore
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import (
    AuthorizationCodeRecord,
    ConflictError,
    NotFoundError,
    OAuthClientRecord,
    OAuthStore,
    OAuthTokenRecord,
    PendingAuthorization,
)

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
pytestmark = pytest.mark.spec("mcp.oauth.store")


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OAuthStore]:
    if request.param == "sqlite":
        yield SqliteOAuthStore(SqliteDatabase(tmp_path / "oauth.sqlite3"))
        return
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.firestore import firestore_client
    from backends.gcp.oauth import FirestoreOAuthStore

    prefix = f"t{uuid.uuid4().hex[:10]}_"
    yield FirestoreOAuthStore(firestore_client(project="demo-frontdoor"), prefix=prefix)


def _code(code_hash: str = "c" * 64) -> AuthorizationCodeRecord:
    return AuthorizationCodeRecord(
        code_hash=code_hash,
        client_id="https://client.example/meta.json",
        subject="ada@example.com",
        scopes=("openid", "email"),
        code_challenge="x" * 43,
        redirect_uri="http://127.0.0.1:5000/cb",
        redirect_uri_provided_explicitly=True,
        resource="http://testserver/mcp",
        expires_at=NOW + timedelta(minutes=5),
    )


def _token(token_hash: str, *, grant_id: str = "g1", kind: str = "access") -> OAuthTokenRecord:
    return OAuthTokenRecord(
        token_hash=token_hash,
        kind=kind,  # type: ignore[arg-type]
        client_id="c1",
        subject="ada@example.com",
        scopes=("openid",),
        resource="http://testserver/mcp",
        grant_id=grant_id,
        expires_at=NOW + timedelta(hours=1),
    )


def test_a_client_with_a_url_id_reads_back_equal_and_can_be_replaced(store: OAuthStore) -> None:
    """Clients keyed by any id, including CIMD URLs; saving again replaces."""
    record = OAuthClientRecord(
        client_id="https://client.example/meta.json", information='{"a": 1}', created_at=NOW
    )

    store.save_client(record)
    store.save_client(replace(record, information='{"a": 2}'))

    assert store.get_client(record.client_id) == replace(record, information='{"a": 2}')
    assert store.get_client("unknown") is None


def test_a_pending_authorization_is_saved_updated_and_deleted(store: OAuthStore) -> None:
    """Sign-in progress lives in the store, so any process can serve the next step."""
    pending = PendingAuthorization(
        tx_id="tx1", client_id="c1", request="{}", csrf_hash="h", expires_at=NOW
    )

    store.save_pending(pending)
    store.save_pending(replace(pending, email="ada@example.com", otp_attempts=2))
    read = store.get_pending("tx1")
    store.delete_pending("tx1")
    store.delete_pending("tx1")

    assert read == replace(pending, email="ada@example.com", otp_attempts=2)
    assert store.get_pending("tx1") is None


def test_a_code_can_be_used_exactly_once(store: OAuthStore) -> None:
    """Single-use codes: the second use conflicts, an unknown code is not found."""
    store.add_code(_code())

    used = store.use_code("c" * 64, now=NOW)

    assert used == replace(_code(), used_at=NOW)
    assert store.get_code("c" * 64) == used
    with pytest.raises(ConflictError):
        store.use_code("c" * 64, now=NOW)
    with pytest.raises(NotFoundError):
        store.use_code("unknown", now=NOW)
    with pytest.raises(ConflictError):
        store.add_code(_code())


def test_tokens_read_back_and_revoke_one_at_a_time_or_by_grant(store: OAuthStore) -> None:
    """Revoking a grant revokes each of its tokens and none of another grant's."""
    store.add_token(_token("a"))
    store.add_token(_token("r", kind="refresh"))
    store.add_token(_token("other", grant_id="g2"))

    store.revoke_token("a", now=NOW)
    store.revoke_token("a", now=NOW + timedelta(hours=1))
    store.revoke_token("unknown", now=NOW)
    store.revoke_grant("g1", now=NOW + timedelta(minutes=1))

    assert store.get_token("a") == replace(_token("a"), revoked_at=NOW)
    assert store.get_token("r") == replace(
        _token("r", kind="refresh"), revoked_at=NOW + timedelta(minutes=1)
    )
    assert store.get_token("other") == _token("other", grant_id="g2")
    assert store.get_token("unknown") is None
    with pytest.raises(ConflictError):
        store.add_token(_token("a"))


def test_hits_count_per_bucket_and_window(store: OAuthStore) -> None:
    """Rate limit counters are shared by processes through the store."""
    counts = [store.count_hit("register:1.2.3.4", window_start=NOW) for _ in range(3)]

    assert counts == [1, 2, 3]
    assert store.count_hit("register:1.2.3.4", window_start=NOW + timedelta(hours=1)) == 1
    assert store.count_hit("register:5.6.7.8", window_start=NOW) == 1
