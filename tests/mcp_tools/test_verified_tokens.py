"""The built-in provider trusts a verified access token for one second (VERIFIED_TOKEN_TTL):
/mcp's per-request check is then a dict lookup. A revocation through this provider takes
effect at once; one made elsewhere (another process on the same store) within that second."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from api.oauth.config import OAuthConfig, sha256_hex
from api.oauth.provider import VERIFIED_TOKEN_TTL, BuiltinOAuthProvider
from backends.embedded.oauth import SqliteOAuthStore
from backends.embedded.sqlite import SqliteDatabase
from tests.clock import ManualClock
from tests.mcp_tools.tokens import plant_token

pytestmark = pytest.mark.anyio
RESOURCE = "http://127.0.0.1:8080/mcp"
START = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


def provider_on(path: Path, clock: ManualClock) -> tuple[BuiltinOAuthProvider, SqliteOAuthStore]:
    store = SqliteOAuthStore(SqliteDatabase(path), clock=clock)  # its purge runs on our clock
    config = OAuthConfig(issuer="http://127.0.0.1:8080", resource=RESOURCE)
    return BuiltinOAuthProvider(store, config, clock=clock), store


async def test_a_token_revoked_elsewhere_stops_working_within_the_ttl(tmp_path: Path) -> None:
    clock = ManualClock(START)
    provider, store = provider_on(tmp_path / "oauth.sqlite3", clock)
    expires_at = START + timedelta(hours=1)
    raw = plant_token(
        store, "fda_verified_0001", resource=RESOURCE, grant_id="g1", expires_at=expires_at
    )

    assert await provider.load_access_token(raw) is not None
    store.revoke_grant("g1", now=clock.now)  # another process revokes it
    clock.now += VERIFIED_TOKEN_TTL / 2
    assert await provider.load_access_token(raw) is not None  # trusted for the rest of the TTL
    clock.now += VERIFIED_TOKEN_TTL
    assert await provider.load_access_token(raw) is None


async def test_a_revocation_through_this_provider_takes_effect_at_once(tmp_path: Path) -> None:
    clock = ManualClock(START)
    provider, store = provider_on(tmp_path / "oauth.sqlite3", clock)
    raw = plant_token(
        store, "fda_verified_0002", resource=RESOURCE, expires_at=START + timedelta(hours=1)
    )
    access = await provider.load_access_token(raw)
    assert access is not None

    await provider.revoke_token(access)

    assert await provider.load_access_token(raw) is None


async def test_a_verified_token_is_never_trusted_past_its_expiry(tmp_path: Path) -> None:
    clock = ManualClock(START)
    provider, store = provider_on(tmp_path / "oauth.sqlite3", clock)
    expiry = START + VERIFIED_TOKEN_TTL / 4
    raw = plant_token(store, "fda_verified_0003", resource=RESOURCE, expires_at=expiry)

    assert await provider.load_access_token(raw) is not None
    clock.now = expiry
    assert await provider.load_access_token(raw) is None


async def test_an_unknown_token_is_refused_and_not_remembered(tmp_path: Path) -> None:
    clock = ManualClock(START)
    provider, store = provider_on(tmp_path / "oauth.sqlite3", clock)

    assert await provider.load_access_token("fda_not_yet_issued") is None
    plant_token(
        store, "fda_not_yet_issued", resource=RESOURCE, expires_at=START + timedelta(hours=1)
    )
    assert await provider.load_access_token("fda_not_yet_issued") is not None
    assert sha256_hex("fda_not_yet_issued") in provider._verified  # the memo itself
