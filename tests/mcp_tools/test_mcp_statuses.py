"""Every status /mcp gives is in the OpenAPI document, with a JSON body of the documented shape.

The refusals come from the MCP SDK itself (the served process has no code of its own in front
of it); its plain-text ones (Host, Origin, Content-Type, body size) reach the client as the
same JSON-RPC error object as its others.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from schemas.openapi.document import build_openapi
from schemas.openapi.placeholders import JsonRpcDoc, OAuthErrorDoc
from tests.mcp_tools.conftest import access_token
from tests.served import Served

pytestmark = pytest.mark.anyio

ACCEPT = "application/json, text/event-stream"
TOOLS_LIST = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
NOTIFICATION = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})

JSON = {"Accept": ACCEPT, "Content-Type": "application/json"}
EVIL = "https://evil.example"

# (what the request does, method, headers beyond the bearer token, body, status it gets)
CASES: list[tuple[str, str, dict[str, str], str | None, int]] = [
    ("a tools/list", "POST", JSON, TOOLS_LIST, 200),
    ("a notification", "POST", JSON, NOTIFICATION, 202),
    ("no Content-Type", "POST", {"Accept": ACCEPT}, TOOLS_LIST, 400),
    ("a text/plain body", "POST", {**JSON, "Content-Type": "text/plain"}, TOOLS_LIST, 400),
    ("broken JSON", "POST", JSON, "{", 400),
    ("JSON that is not JSON-RPC", "POST", JSON, "[1]", 400),
    ("an Accept without JSON", "POST", {**JSON, "Accept": "text/html"}, TOOLS_LIST, 406),
    ("a foreign Host", "POST", {**JSON, "Host": "evil.example"}, TOOLS_LIST, 421),
    ("a foreign Origin", "POST", {**JSON, "Origin": EVIL}, TOOLS_LIST, 403),
    ("a 5 MiB body", "POST", JSON, "x" * (5 << 20), 413),
    ("a GET without text/event-stream", "GET", {"Accept": "application/json"}, None, 406),
    ("a GET with a foreign Host", "GET", {"Accept": ACCEPT, "Host": "evil.example"}, None, 421),
    ("a DELETE", "DELETE", {}, None, 405),
    ("a DELETE with a foreign Origin", "DELETE", {"Origin": EVIL}, None, 403),
]


def documented(method: str, status: int) -> dict[str, Any]:
    """The OpenAPI response object of /mcp for this method and status (KeyError: none)."""
    responses: dict[str, Any] = build_openapi(base_url="http://x")["paths"]["/mcp"][method.lower()][
        "responses"
    ]
    return dict(responses[str(status)])


@pytest.fixture(scope="module")
async def token(served: Served) -> str:
    return (await access_token(served))["access_token"]


@pytest.mark.spec("mcp.tools")
@pytest.mark.parametrize(
    ("case", "method", "headers", "body", "status"), CASES, ids=[c[0] for c in CASES]
)
async def test_each_answer_of_mcp_is_documented_and_refusals_are_json(
    served: Served,
    token: str,
    case: str,
    method: str,
    headers: dict[str, str],
    body: str | None,
    status: int,
) -> None:
    """The status is in the OpenAPI for the method; a refusal is a JSON-RPC error object."""
    response = httpx2.request(
        method,
        f"{served.base}/mcp",
        headers={"Authorization": f"Bearer {token}", **headers},
        content=body,
        timeout=10,
    )

    assert response.status_code == status, response.text
    assert documented(method, status)
    if status >= 400:
        assert response.headers["content-type"].startswith("application/json")
        error = JsonRpcDoc.model_validate(response.json()).error
        assert error is not None
        assert isinstance(error["code"], int)
        assert error["message"]


@pytest.mark.parametrize("method", ["POST", "GET", "DELETE"])
async def test_a_request_without_a_token_gets_the_documented_oauth_error(
    served: Served, method: str
) -> None:
    """401 on every method, with the OAuth error body the document names."""
    response = httpx2.request(method, f"{served.base}/mcp", headers={"Accept": ACCEPT})

    assert response.status_code == 401
    assert "OAuthErrorDoc" in json.dumps(documented(method, 401))
    assert OAuthErrorDoc.model_validate(response.json()).error == "invalid_token"


async def test_get_mcp_sends_its_headers_before_any_event(served: Served, token: str) -> None:
    """The event stream's status and headers come at once, not with the first keep-alive (15 s),
    so a client with a 10 s timeout sees the stream open."""
    async with (
        httpx2.AsyncClient(timeout=5) as http,
        http.stream(
            "GET",
            f"{served.base}/mcp",
            headers={"Accept": ACCEPT, "Authorization": f"Bearer {token}"},
        ) as stream,
    ):
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        assert "text/event-stream" in json.dumps(documented("GET", 200))
