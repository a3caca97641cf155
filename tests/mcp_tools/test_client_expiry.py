"""A registered (DCR) client that gets no token for `unused_client_ttl` (30 days) is forgotten:
it then meets 401 invalid_client and registers again (DESIGN "MCP"). Each token it gets keeps it
for another 30 days, and never less than its newest refresh token lives."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from mcp.server.auth.provider import AuthorizationParams
from mcp.shared.auth import OAuthClientInformationFull
from pydantic import AnyUrl

from api.oauth.config import OAuthConfig
from api.oauth.provider import BuiltinOAuthProvider
from backends.embedded.oauth import SqliteOAuthStore
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import PendingAuthorization
from tests.clock import ManualClock

pytestmark = pytest.mark.anyio
RESOURCE = "http://127.0.0.1:8080/mcp"
REDIRECT = "http://127.0.0.1:33418/callback"
START = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def store(tmp_path: Path, clock: ManualClock) -> SqliteOAuthStore:
    return SqliteOAuthStore(SqliteDatabase(tmp_path / "oauth.sqlite3"), clock=clock)


@pytest.fixture
def provider(store: SqliteOAuthStore, clock: ManualClock) -> BuiltinOAuthProvider:
    config = OAuthConfig(issuer="http://127.0.0.1:8080", resource=RESOURCE)
    return BuiltinOAuthProvider(store, config, clock=clock)


async def register(provider: BuiltinOAuthProvider, client_id: str) -> OAuthClientInformationFull:
    client = OAuthClientInformationFull(
        client_id=client_id,
        redirect_uris=[AnyUrl(REDIRECT)],
        token_endpoint_auth_method="none",
        grant_types=["authorization_code"],
    )
    await provider.register_client(client)
    found = await provider.get_client(client_id)
    assert found is not None
    return found


async def sign_in(provider: BuiltinOAuthProvider, client: OAuthClientInformationFull) -> None:
    """A person consents and the client exchanges the code for tokens."""
    params = AuthorizationParams(
        state=None,
        scopes=["openid"],
        code_challenge="E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        redirect_uri=AnyUrl(REDIRECT),
        redirect_uri_provided_explicitly=True,
        resource=RESOURCE,
    )
    pending = PendingAuthorization(
        tx_id="tx-" + provider.clock().isoformat(),
        client_id=client.client_id or "",
        request=params.model_dump_json(),
        csrf_hash="0" * 64,
        expires_at=provider.clock() + timedelta(minutes=10),
    )
    code, _ = provider.issue_code(
        pending, subject="ada@acme.example", scopes=provider.config.scopes
    )
    loaded = await provider.load_authorization_code(client, code)
    assert loaded is not None
    tokens = await provider.exchange_authorization_code(client, loaded)
    assert tokens.refresh_token is not None


async def test_a_registered_client_that_gets_no_token_is_forgotten_after_30_days(
    provider: BuiltinOAuthProvider, clock: ManualClock
) -> None:
    await register(provider, "dcr-idle")

    clock.now = START + 30 * DAY - timedelta(seconds=1)
    assert await provider.get_client("dcr-idle") is not None
    clock.now = START + 30 * DAY
    assert await provider.get_client("dcr-idle") is None


async def test_each_token_keeps_the_client_for_30_days_more(
    provider: BuiltinOAuthProvider, clock: ManualClock
) -> None:
    client = await register(provider, "dcr-active")

    clock.now = START + 20 * DAY
    await sign_in(provider, client)

    clock.now = START + 49 * DAY
    assert await provider.get_client("dcr-active") is not None
    clock.now = START + 50 * DAY + timedelta(seconds=1)
    assert await provider.get_client("dcr-active") is None


async def test_a_client_lives_as_long_as_its_newest_refresh_token(
    store: SqliteOAuthStore, clock: ManualClock
) -> None:
    config = OAuthConfig(
        issuer="http://127.0.0.1:8080",
        resource=RESOURCE,
        unused_client_ttl=7 * DAY,
        refresh_token_ttl=60 * DAY,
    )
    provider = BuiltinOAuthProvider(store, config, clock=clock)
    client = await register(provider, "dcr-long-refresh")
    await sign_in(provider, client)

    clock.now = START + 59 * DAY
    assert await provider.get_client("dcr-long-refresh") is not None


async def test_a_token_within_a_day_of_the_last_move_writes_nothing(
    provider: BuiltinOAuthProvider, store: SqliteOAuthStore, clock: ManualClock
) -> None:
    client = await register(provider, "dcr-busy")
    saved = store.get_client("dcr-busy")
    assert saved is not None

    clock.now = START + timedelta(hours=20)
    await sign_in(provider, client)

    assert store.get_client("dcr-busy") == saved


async def test_the_store_deletes_a_forgotten_client(
    provider: BuiltinOAuthProvider, store: SqliteOAuthStore, clock: ManualClock
) -> None:
    await register(provider, "dcr-gone")

    clock.now = START + 31 * DAY
    assert store.purge_expired() == 1
    assert store.get_client("dcr-gone") is None
