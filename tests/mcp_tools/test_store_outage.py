"""The tool server and its authorization server while their OAuth store is down: 503
`temporarily_unavailable` with Retry-After, never a 500 and never an answer that reads as a
bad token or an unknown client (in-process through the ASGI app)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import grpc  # type: ignore[import-untyped]  # grpcio ships no stubs
import httpx2
import pytest

from api.oauth.config import OAuthConfig
from api.tools.mcp_app import McpConfig, create_mcp_asgi_app
from backends.content_files import load_catalog
from backends.embedded.mail import OutboxMailer
from backends.gcp.oauth import FirestoreOAuthStore
from frontdoor.settings import Settings
from tests.emulators import ManagedProcess
from tests.firestore_wire import Outage, client_of_flaky_firestore
from tests.mcp_tools.conftest import REDIRECT_URI, new_pkce
from tests.mcp_tools.tokens import plant_token

pytestmark = [pytest.mark.anyio, pytest.mark.spec("mcp.oauth")]
BASE = "http://localhost"


@pytest.fixture
def outage() -> Outage:
    """Nothing refused until a test says so; then every call it names answers ABORTED, which
    the client gives up on at once (tests/firestore_wire.py)."""
    return Outage(grpc.StatusCode.ABORTED)


@pytest.fixture
def store(
    firestore_emulator: ManagedProcess, outage: Outage, unique_prefix: str
) -> Iterator[FirestoreOAuthStore]:
    """The real Firestore adapter on a real client whose Firestore is the emulator, but for
    the calls `outage` refuses."""
    with client_of_flaky_firestore(firestore_emulator.host, outage) as client:
        yield FirestoreOAuthStore(client, prefix=unique_prefix)


@pytest.fixture
def http(store: FirestoreOAuthStore, tmp_path: Path) -> httpx2.AsyncClient:
    asgi = create_mcp_asgi_app(
        McpConfig(base_url=BASE, oauth=OAuthConfig(issuer=BASE, resource=f"{BASE}/mcp")),
        catalog=load_catalog(Settings().content_dir),
        oauth_store=store,
        mailer=OutboxMailer(tmp_path / "outbox"),
        clock=lambda: datetime.now(UTC),
    )
    transport = httpx2.ASGITransport(app=asgi.app, raise_app_exceptions=False)
    return httpx2.AsyncClient(transport=transport, base_url=BASE)


def authorize_params(client_id: str) -> dict[str, str]:
    return {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT_URI,
        "code_challenge": new_pkce().challenge,
        "code_challenge_method": "S256",
        "state": "s-1",
    }


async def test_every_oauth_endpoint_answers_503_temporarily_unavailable_while_the_store_is_down(
    http: httpx2.AsyncClient, store: FirestoreOAuthStore, outage: Outage
) -> None:
    """RFC 6749's shape with Retry-After: the client backs off; it is not told that its
    client, code or token is bad."""
    registered = await http.post(
        "/register",
        json={"redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"},
    )
    client_id = registered.json()["client_id"]
    token = plant_token(store, "fda_outage", resource=f"{BASE}/mcp")
    outage.methods = frozenset({"*"})

    answers = {
        "register": await http.post("/register", json={"redirect_uris": [REDIRECT_URI]}),
        "authorize": await http.get("/authorize", params=authorize_params(client_id)),
        "token": await http.post(
            "/token",
            data={"grant_type": "refresh_token", "client_id": client_id, "refresh_token": "x"},
        ),
        "revoke": await http.post("/revoke", data={"client_id": client_id, "token": "x"}),
        "signin": await http.get("/oauth/signin", params={"tx": "abc"}),
        "mcp": await http.post(
            "/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/json, text/event-stream",
            },
        ),
    }

    assert {name: a.status_code for name, a in answers.items()} == dict.fromkeys(answers, 503)
    for answer in answers.values():
        assert answer.headers["retry-after"] == "5"
        assert answer.json()["error"] == "temporarily_unavailable"


async def test_the_outage_answer_is_readable_by_a_browser_based_client(
    http: httpx2.AsyncClient, store: FirestoreOAuthStore, outage: Outage
) -> None:
    """Without Access-Control-Allow-Origin a browser hides the 503 and its Retry-After from
    the page, which then sees a network error instead of "retry shortly"."""
    registered = await http.post(
        "/register",
        json={"redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"},
    )
    client_id = registered.json()["client_id"]
    outage.methods = frozenset({"*"})
    browser = {"Origin": "https://agent.example"}

    answers = [
        await http.post("/register", json={"redirect_uris": [REDIRECT_URI]}, headers=browser),
        await http.post(
            "/token",
            data={"grant_type": "refresh_token", "client_id": client_id, "refresh_token": "x"},
            headers=browser,
        ),
        await http.post("/revoke", data={"client_id": client_id, "token": "x"}, headers=browser),
    ]

    for answer in answers:
        assert answer.status_code == 503
        assert answer.headers["access-control-allow-origin"] == "*"
        assert "retry-after" in answer.headers["access-control-expose-headers"].lower()


async def test_an_outage_after_the_client_is_known_answers_temporarily_unavailable_there(
    http: httpx2.AsyncClient, store: FirestoreOAuthStore, outage: Outage
) -> None:
    """mcp.md Errors: an outage while /authorize stores the pending sign-in is 503
    temporarily_unavailable with Retry-After (the SDK answered 400 server_error and logged an
    ERROR), answered at /authorize, never redirected (RFC 9700 §4.11.2)."""
    registered = await http.post(
        "/register",
        json={"redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"},
    )
    outage.methods = frozenset({"Commit"})  # a write: the pending authorization

    response = await http.get("/authorize", params=authorize_params(registered.json()["client_id"]))

    assert response.status_code == 503
    assert "location" not in response.headers
    assert response.json()["error"] == "temporarily_unavailable"
    assert int(response.headers["retry-after"]) > 0


async def test_the_store_back_up_answers_as_before(
    http: httpx2.AsyncClient, store: FirestoreOAuthStore, outage: Outage
) -> None:
    outage.methods = frozenset({"*"})
    assert (await http.get("/oauth/signin", params={"tx": "abc"})).status_code == 503
    outage.methods = frozenset()

    assert (await http.get("/oauth/signin", params={"tx": "abc"})).status_code == 400
