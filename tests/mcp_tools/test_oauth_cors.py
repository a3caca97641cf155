"""A browser-based MCP client can call the authorization server from another origin: the
CORS preflight of /token, /register and /revoke allows the `Authorization` header it sends
with client_secret_basic (RFC 6749 §2.3.1), over a socket."""

from __future__ import annotations

import httpx2
import pytest

from tests.mcp_tools.test_client_secrets import (
    code_exchanged_with_basic,
)
from tests.served import Served

pytestmark = [pytest.mark.anyio, pytest.mark.spec("mcp.oauth")]

ORIGIN = "https://agent.example"


def preflight(served: Served, path: str, headers: str) -> httpx2.Response:
    return httpx2.options(
        f"{served.base}{path}",
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": headers,
        },
    )


@pytest.mark.parametrize("path", ["/token", "/register", "/revoke"])
async def test_the_preflight_of_an_oauth_endpoint_allows_the_authorization_header(
    served: Served, path: str
) -> None:
    response = preflight(served, path, "authorization, content-type, mcp-protocol-version")

    assert response.status_code == 200, response.text
    assert response.headers["access-control-allow-origin"] == "*"
    allowed = response.headers["access-control-allow-headers"].lower().replace(" ", "").split(",")
    assert {"authorization", "content-type", "mcp-protocol-version"} <= set(allowed)
    assert "POST" in response.headers["access-control-allow-methods"]


@pytest.mark.parametrize("path", ["/token", "/register", "/revoke"])
async def test_the_preflight_of_an_oauth_endpoint_still_refuses_a_header_it_does_not_read(
    served: Served, path: str
) -> None:
    response = preflight(served, path, "x-custom-thing")

    assert response.status_code == 400
    assert "headers" in response.text


async def test_a_cross_origin_token_request_with_http_basic_is_answered_with_open_cors(
    served: Served,
) -> None:
    response = await code_exchanged_with_basic(served, {"Origin": ORIGIN})

    assert response.status_code == 200, response.text
    assert response.headers["access-control-allow-origin"] == "*"
    assert response.headers.get_list("access-control-allow-origin") == ["*"]
    assert "access_token" in response.json()


@pytest.mark.parametrize(
    ("path", "form", "status"),
    [
        ("/token", {"client_id": "x"}, 400),
        ("/token", {"grant_type": "password"}, 400),
        ("/token", {"grant_type": "authorization_code", "pad": "a" * 70_000}, 413),
        ("/revoke", {"token": "x", "pad": "a" * 70_000}, 413),
        ("/register", {"pad": "a" * 70_000}, 413),
    ],
)
async def test_every_refusal_of_an_oauth_endpoint_is_readable_from_another_origin(
    served: Served, path: str, form: dict[str, str], status: int
) -> None:
    """A browser hides an answer without Access-Control-Allow-Origin from the page: the client
    would see a network error, not the OAuth error that says what to fix."""
    response = httpx2.post(f"{served.base}{path}", data=form, headers={"Origin": ORIGIN})

    assert response.status_code == status
    assert response.headers.get_list("access-control-allow-origin") == ["*"]
    assert "retry-after" in response.headers["access-control-expose-headers"].lower()
    assert response.json()["error"]
