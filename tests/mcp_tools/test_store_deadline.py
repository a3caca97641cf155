"""The authorization server while Firestore never answers (tests/black_hole.py): 503
`temporarily_unavailable` with Retry-After within the deadline (GOOGLE_CLOUD_DEADLINE, 1 s
here), not after the client's own 60 to 300 s; once Firestore is back the same requests are
served and the client registered before is still known (in-process through the ASGI app)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import anyio
import httpx2
import pytest
from google.cloud import firestore

from api.oauth.config import OAuthConfig
from api.tools.mcp_app import McpConfig, create_mcp_asgi_app
from backends.content_files import load_catalog
from backends.embedded.mail import OutboxMailer
from backends.gcp.oauth import FirestoreOAuthStore
from frontdoor.settings import Settings
from tests.black_hole import ANSWERED_WITHIN, TEST_DEADLINE, BlackHole
from tests.mcp_tools.conftest import REDIRECT_URI
from tests.mcp_tools.test_store_outage import authorize_params

pytestmark = [pytest.mark.anyio, pytest.mark.spec("mcp.oauth"), pytest.mark.emulator]
BASE = "http://localhost"


@pytest.fixture
async def http(
    firestore_behind_hole: firestore.Client, unique_prefix: str, tmp_path: Path
) -> AsyncIterator[httpx2.AsyncClient]:
    # The first call through a new channel can take more than 1 s on this loaded machine.
    FirestoreOAuthStore(firestore_behind_hole, prefix=unique_prefix).get_client("warm-up")
    asgi = create_mcp_asgi_app(
        McpConfig(base_url=BASE, oauth=OAuthConfig(issuer=BASE, resource=f"{BASE}/mcp")),
        catalog=load_catalog(Settings().content_dir),
        oauth_store=FirestoreOAuthStore(
            firestore_behind_hole, prefix=unique_prefix, deadline=TEST_DEADLINE
        ),
        mailer=OutboxMailer(tmp_path / "outbox"),
        clock=lambda: datetime.now(UTC),
    )
    transport = httpx2.ASGITransport(app=asgi.app, raise_app_exceptions=False)
    async with httpx2.AsyncClient(transport=transport, base_url=BASE) as client:
        yield client


async def answer_of(send: Callable[[], Awaitable[httpx2.Response]]) -> httpx2.Response:
    with anyio.fail_after(ANSWERED_WITHIN):
        return await send()


async def retried_until_served(send: Callable[[], Awaitable[httpx2.Response]]) -> httpx2.Response:
    """`send()` again while it answers 503, as a client honouring Retry-After does (the
    client's connection to Firestore comes back on its own back-off); a bounded poll."""
    with anyio.fail_after(30):
        while (answer := await answer_of(send)).status_code == 503:
            await anyio.sleep(0.2)
    return answer


async def test_registration_and_authorization_answer_503_within_the_deadline_and_serve_once_back(
    http: httpx2.AsyncClient, firestore_hole: BlackHole
) -> None:
    """RFC 6749's shape with Retry-After, in seconds; the client registered before the outage
    is authorized after it."""

    async def register() -> httpx2.Response:
        return await http.post(
            "/register",
            json={"redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"},
        )

    registered = await retried_until_served(register)  # a 1 s deadline on a loaded machine
    client_id = registered.json()["client_id"]

    async def authorize() -> httpx2.Response:
        return await http.get("/authorize", params=authorize_params(client_id))

    firestore_hole.go_silent()
    during = [await answer_of(register), await answer_of(authorize)]
    firestore_hole.come_back()
    after = [await retried_until_served(register), await retried_until_served(authorize)]

    assert [a.status_code for a in during] == [503, 503]
    assert {a.headers["retry-after"] for a in during} == {"5"}
    assert {a.json()["error"] for a in during} == {"temporarily_unavailable"}
    assert [a.status_code for a in after] == [201, 302]
    assert "error" not in after[1].headers["location"]
