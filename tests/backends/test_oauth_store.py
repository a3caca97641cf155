"""Contract suite for OAuthStore: the same behaviour on SQLite and on the Firestore emulator."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from backends.embedded.oauth import HIT_RETENTION, SqliteOAuthStore
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
from tests.clock import ManualClock

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
pytestmark = pytest.mark.spec("mcp.oauth.store")


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OAuthStore]:
    if request.param == "sqlite":
        # The store's clock drives its purge; the records below are dated around NOW.
        yield SqliteOAuthStore(SqliteDatabase(tmp_path / "oauth.sqlite3"), clock=lambda: NOW)
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
        client_id="https://client.example/meta.json",
        information='{"a": 1}',
        created_at=NOW,
        expires_at=NOW + timedelta(minutes=10),
    )
    registered = OAuthClientRecord(
        client_id="c1", information="{}", created_at=NOW, secret_hash="f" * 64
    )

    store.save_client(record)
    store.save_client(replace(record, information='{"a": 2}'))
    store.save_client(registered)

    assert store.get_client(record.client_id) == replace(record, information='{"a": 2}')
    assert store.get_client("c1") == registered
    assert store.get_client("unknown") is None


def test_a_pending_authorization_is_saved_updated_and_deleted(store: OAuthStore) -> None:
    """Sign-in progress lives in the store, so any process can serve the next step."""
    pending = PendingAuthorization(
        tx_id="tx1", client_id="c1", request="{}", csrf_hash="h", expires_at=NOW
    )

    store.save_pending(pending)
    store.save_pending(replace(pending, email="ada@example.com", otp_hash="ab" * 32))
    read = store.get_pending("tx1")
    store.delete_pending("tx1")
    store.delete_pending("tx1")

    assert read == replace(pending, email="ada@example.com", otp_hash="ab" * 32)
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


def test_a_refresh_token_is_replaced_once_keeping_its_sealed_answer(store: OAuthStore) -> None:
    """Refresh rotation: exchanging a refresh token marks it replaced (and revoked) with the
    answer it gave, atomically; a second replacement, of it or of a revoked token, conflicts."""
    store.add_token(_token("r1", kind="refresh"))
    store.add_token(_token("r2", kind="refresh", grant_id="g2"))
    store.revoke_token("r2", now=NOW)

    store.replace_token("r1", now=NOW + timedelta(seconds=1), replacement="sealed-answer")

    assert store.get_token("r1") == replace(
        _token("r1", kind="refresh"),
        revoked_at=NOW + timedelta(seconds=1),
        replaced_at=NOW + timedelta(seconds=1),
        replacement="sealed-answer",
    )
    with pytest.raises(ConflictError):
        store.replace_token("r1", now=NOW + timedelta(seconds=2), replacement="another")
    with pytest.raises(ConflictError):
        store.replace_token("r2", now=NOW, replacement="x")
    with pytest.raises(NotFoundError):
        store.replace_token("unknown", now=NOW, replacement="x")
    assert store.get_token("r1").replacement == "sealed-answer"  # type: ignore[union-attr]


def test_revoking_the_grant_of_a_replaced_token_keeps_when_it_was_replaced(
    store: OAuthStore,
) -> None:
    """Reuse of a replaced refresh token revokes its grant; the replaced one keeps its times."""
    store.add_token(_token("r1", kind="refresh"))
    store.add_token(_token("r2", kind="refresh"))
    store.replace_token("r1", now=NOW, replacement="sealed")

    store.revoke_grant("g1", now=NOW + timedelta(minutes=1))

    assert store.get_token("r1") == replace(
        _token("r1", kind="refresh"), revoked_at=NOW, replaced_at=NOW, replacement="sealed"
    )
    assert store.get_token("r2") == replace(
        _token("r2", kind="refresh"), revoked_at=NOW + timedelta(minutes=1)
    )


def test_hits_count_per_bucket_and_window(store: OAuthStore) -> None:
    """Rate limit counters are shared by processes through the store."""
    counts = [store.count_hit("register:1.2.3.4", window_start=NOW) for _ in range(3)]

    assert counts == [1, 2, 3]
    assert store.count_hit("register:1.2.3.4", window_start=NOW + timedelta(hours=1)) == 1
    assert store.count_hit("register:5.6.7.8", window_start=NOW) == 1


# --- expiry: SQLite purges on writes, Firestore has TTL policies -----------------------


def _rows(db: SqliteDatabase, table: str) -> int:
    count: int = db.connection().execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # noqa: S608
    return count


def _one_of_each(store: OAuthStore, suffix: str, expires_at: datetime) -> None:
    """A cached metadata document, a pending sign-in, a code, a token and a hit counter."""
    store.save_client(
        OAuthClientRecord(
            client_id=f"https://client.example/{suffix}.json",
            information="{}",
            created_at=expires_at - timedelta(minutes=10),
            expires_at=expires_at,
        )
    )
    store.save_pending(
        PendingAuthorization(
            tx_id=f"tx-{suffix}", client_id="c1", request="{}", csrf_hash="", expires_at=expires_at
        )
    )
    store.add_code(replace(_code(f"code-{suffix}"), expires_at=expires_at))
    store.add_token(replace(_token(f"token-{suffix}"), expires_at=expires_at))
    store.count_hit(f"register:{suffix}", window_start=expires_at - HIT_RETENTION)


@pytest.mark.spec("mcp.oauth.store")
def test_sqlite_purges_expired_rows_of_every_kind_on_a_later_write(tmp_path: Path) -> None:
    """Expired codes, tokens, sign-ins, cached clients and counters go; live rows and
    registered clients stay; the purge runs at most once per interval."""
    db = SqliteDatabase(tmp_path / "oauth.sqlite3")
    clock = ManualClock(NOW)
    store = SqliteOAuthStore(db, clock=clock, purge_every=timedelta(minutes=1))
    store.save_client(OAuthClientRecord(client_id="dcr", information="{}", created_at=NOW))
    _one_of_each(store, "old", NOW + timedelta(minutes=5))
    _one_of_each(store, "live", NOW + timedelta(hours=2))
    tables = ("oauth_clients", "oauth_pending", "oauth_codes", "oauth_tokens", "oauth_hits")
    before = {t: _rows(db, t) for t in tables}

    clock.now = NOW + timedelta(minutes=30)  # the first write purged at NOW; due again now
    store.count_hit("register:later", window_start=clock.now)
    after = {t: _rows(db, t) for t in tables}
    store.add_token(_token("within-the-interval"))
    clock.now = NOW + timedelta(minutes=30, seconds=30)
    store.add_token(replace(_token("expired-but-not-due"), expires_at=NOW))

    assert before == {
        "oauth_clients": 3,
        "oauth_pending": 2,
        "oauth_codes": 2,
        "oauth_tokens": 2,
        "oauth_hits": 2,
    }
    assert after == {
        "oauth_clients": 2,
        "oauth_pending": 1,
        "oauth_codes": 1,
        "oauth_tokens": 1,
        "oauth_hits": 2,
    }
    assert store.get_client("dcr") is not None
    assert store.get_code("code-old") is None
    assert store.get_code("code-live") is not None
    assert store.get_token("token-old") is None
    assert store.get_token("token-live") is not None
    assert store.get_pending("tx-old") is None
    assert store.get_pending("tx-live") is not None
    assert store.get_token("expired-but-not-due") is not None  # waits for the next interval
    assert (
        store.count_hit("register:old", window_start=NOW + timedelta(minutes=5) - HIT_RETENTION)
        == 1
    )


@pytest.mark.spec("mcp.oauth.store")
def test_sqlite_purge_is_bounded_per_table(tmp_path: Path) -> None:
    """A backlog is cleared a slice at a time, so no single write pays for all of it."""
    db = SqliteDatabase(tmp_path / "oauth.sqlite3")
    clock = ManualClock(NOW)
    store = SqliteOAuthStore(db, clock=clock, purge_limit=2)
    for n in range(5):
        store.add_token(replace(_token(f"t{n}"), expires_at=NOW + timedelta(seconds=n + 1)))
    clock.now = NOW + timedelta(hours=1)

    deleted = [store.purge_expired(), store.purge_expired(), store.purge_expired()]

    assert deleted == [2, 2, 1]
    assert _rows(db, "oauth_tokens") == 0


@pytest.mark.emulator
@pytest.mark.spec("mcp.oauth.store")
def test_every_firestore_oauth_document_that_ends_has_a_ttl_timestamp(
    firestore_emulator: object, unique_prefix: str
) -> None:
    """Each collection's documents carry `expires_at` as a timestamp, and each collection has
    a TTL policy on it in the declarations Terraform is generated from."""
    from backends.gcp.firestore import firestore_client
    from backends.gcp.oauth import FirestoreOAuthStore
    from domain.indexes import FIRESTORE_TTL_POLICIES, TtlPolicy

    client = firestore_client(project="demo-frontdoor")
    store = FirestoreOAuthStore(client, prefix=unique_prefix)
    ends = NOW + timedelta(minutes=5)
    _one_of_each(store, "x", ends)
    store.save_client(OAuthClientRecord(client_id="dcr", information="{}", created_at=NOW))
    kinds = ("clients", "pending", "codes", "tokens", "hits")

    stamps = {
        kind: sorted(
            (doc.to_dict() or {}).get("expires_at") is not None
            for doc in client.collection(f"{unique_prefix}oauth_{kind}").stream()
        )
        for kind in kinds
    }
    ending = [
        (doc.to_dict() or {})["expires_at"]
        for kind in kinds
        for doc in client.collection(f"{unique_prefix}oauth_{kind}").stream()
        if (doc.to_dict() or {}).get("expires_at") is not None
    ]

    assert stamps == {"clients": [False, True], **{k: [True] for k in kinds[1:]}}
    assert all(isinstance(value, datetime) for value in ending)
    assert sorted(ending) == [ends] * 5
    for kind in kinds:
        assert TtlPolicy(f"oauth_{kind}", "expires_at") in FIRESTORE_TTL_POLICIES


@pytest.mark.parametrize("tx_id", ["__reserved__", "..", "a/b", "a" * 1600, ""])
def test_a_sign_in_id_no_pending_authorization_can_have_finds_nothing(
    store: OAuthStore, tx_id: str
) -> None:
    """The sign-in forms send `tx` back as the client wrote it: an id Firestore refuses as a
    document id is an unknown sign-in (the page says it expired), never a 500."""
    assert store.get_pending(tx_id) is None
