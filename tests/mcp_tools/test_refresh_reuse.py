"""Refresh token rotation with reuse detection (RFC 9700 §4.14.2), in-process at /token on a
clock the test moves: a refresh token is replaced the moment it is exchanged; presented again
it ends the whole grant, except for the same client retrying the same exchange within the
retry grace, which gets the same successor."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx2
import pytest

from api.oauth.config import OAuthConfig, sha256_hex
from api.tools.mcp_app import McpConfig, create_mcp_asgi_app
from backends.content_files import load_catalog
from backends.embedded.mail import OutboxMailer
from backends.embedded.oauth import SqliteOAuthStore
from backends.embedded.sqlite import SqliteDatabase
from frontdoor.logs import CloudJsonFormatter
from frontdoor.settings import Settings
from tests.clock import ManualClock
from tests.mcp_tools.conftest import REDIRECT_URI
from tests.mcp_tools.tokens import plant_token

pytestmark = [pytest.mark.anyio, pytest.mark.spec("mcp.oauth")]
BASE = "http://localhost"
START = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
CONFIG = OAuthConfig(issuer=BASE, resource=f"{BASE}/mcp")
GRANT = "grant-under-test"


@dataclass
class Grant:
    """A live grant of a registered public client: its first access and refresh tokens."""

    http: httpx2.AsyncClient
    store: SqliteOAuthStore
    clock: ManualClock
    client_id: str
    access: str
    refresh: str

    async def refreshed(self, refresh_token: str) -> httpx2.Response:
        return await self.http.post(
            "/token",
            data={
                "grant_type": "refresh_token",
                "client_id": self.client_id,
                "refresh_token": refresh_token,
                "resource": f"{BASE}/mcp",
            },
        )

    def revoked(self, token: str) -> bool:
        record = self.store.get_token(sha256_hex(token))
        assert record is not None
        return record.revoked_at is not None


@pytest.fixture
async def grant(tmp_path: Path) -> AsyncIterator[Grant]:
    clock = ManualClock(START)
    store = SqliteOAuthStore(SqliteDatabase(tmp_path / "oauth.sqlite3"), clock=clock)
    asgi = create_mcp_asgi_app(
        McpConfig(base_url=BASE, oauth=CONFIG),
        catalog=load_catalog(Settings().content_dir),
        oauth_store=store,
        mailer=OutboxMailer(tmp_path / "outbox"),
        clock=clock,
    )
    transport = httpx2.ASGITransport(app=asgi.app)
    async with httpx2.AsyncClient(transport=transport, base_url=BASE) as http:
        registered = await http.post(
            "/register",
            json={"redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"},
        )
        client_id = registered.json()["client_id"]
        planted = {"client_id": client_id, "grant_id": GRANT, "resource": f"{BASE}/mcp"}
        access = plant_token(
            store, "fda_first-access", expires_at=START + timedelta(hours=1), **planted
        )
        refresh = plant_token(
            store,
            "fdr_first-refresh",
            kind="refresh",
            expires_at=START + timedelta(days=30),
            **planted,
        )
        yield Grant(http, store, clock, client_id, access, refresh)


async def test_a_replaced_refresh_token_presented_again_revokes_every_token_of_its_grant(
    grant: Grant, caplog: pytest.LogCaptureFixture
) -> None:
    """mcp.md Tokens: past the retry grace, a replaced refresh token ends the whole grant (a
    thief's copy and the real one can no longer each fork a grant that never ends), logged as
    a security event that names no token."""
    caplog.set_level(logging.INFO)
    first = await grant.refreshed(grant.refresh)
    grant.clock.now += CONFIG.refresh_retry_grace + timedelta(seconds=1)

    replayed = await grant.refreshed(grant.refresh)
    successor = first.json()
    after = await grant.refreshed(successor["refresh_token"])

    assert first.status_code == 200
    assert (replayed.status_code, replayed.json()["error"]) == (400, "invalid_grant")
    assert (after.status_code, after.json()["error"]) == (400, "invalid_grant")
    issued = (grant.access, grant.refresh, successor["access_token"], successor["refresh_token"])
    assert [grant.revoked(token) for token in issued] == [True] * 4
    events = [r for r in caplog.records if getattr(r, "security_event", None)]
    assert [(r.levelname, r.security_event) for r in events] == [  # type: ignore[attr-defined]
        ("WARNING", "oauth_refresh_token_reuse")
    ] * 2
    log = "\n".join(CloudJsonFormatter(None).format(r) for r in caplog.records)
    assert not any(token in log for token in issued)


async def test_the_same_client_retrying_a_refresh_within_the_grace_gets_the_same_successor(
    grant: Grant,
) -> None:
    """mcp.md Tokens: an answer lost on the way is asked for again: within the retry grace the
    same client gets the same successor (not a second, forked one), which then works; once
    that successor has been used, the replaced token ends the grant even within the grace."""
    first = await grant.refreshed(grant.refresh)
    grant.clock.now += CONFIG.refresh_retry_grace / 2

    retried = await grant.refreshed(grant.refresh)
    onward = await grant.refreshed(first.json()["refresh_token"])
    stale = await grant.refreshed(grant.refresh)

    assert (first.status_code, retried.status_code, onward.status_code) == (200, 200, 200)
    assert retried.json() == first.json()
    assert (stale.status_code, stale.json()["error"]) == (400, "invalid_grant")
    assert grant.revoked(onward.json()["access_token"])


async def test_the_same_refresh_token_exchanged_twice_at_once_gets_one_successor(
    grant: Grant,
) -> None:
    """Rotation is atomic: two exchanges of one refresh token at the same moment do not fork
    the grant; both get the one successor, and the grant stays live."""
    answers = await asyncio.gather(*(grant.refreshed(grant.refresh) for _ in range(4)))

    assert [a.status_code for a in answers] == [200] * 4
    assert len({a.json()["refresh_token"] for a in answers}) == 1
    assert not grant.revoked(answers[0].json()["access_token"])


async def test_a_retry_asking_for_other_scopes_is_not_the_same_exchange(grant: Grant) -> None:
    """Only the same exchange is answered again: a replaced token sent with other scopes is
    reuse, and ends the grant."""
    first = await grant.refreshed(grant.refresh)

    narrowed = await grant.http.post(
        "/token",
        data={
            "grant_type": "refresh_token",
            "client_id": grant.client_id,
            "refresh_token": grant.refresh,
            "scope": "openid",
            "resource": f"{BASE}/mcp",
        },
    )

    assert first.status_code == 200
    assert (narrowed.status_code, narrowed.json()["error"]) == (400, "invalid_grant")
    assert grant.revoked(first.json()["refresh_token"])
