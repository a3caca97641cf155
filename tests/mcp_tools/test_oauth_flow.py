"""The official MCP client against the served process: discovery, registration, sign-in, tools."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest

from tests.mcp_tools.conftest import (
    REDIRECT_URI,
    HeadlessBrowser,
    MemoryStorage,
    json_documents,
    mcp_client,
    oauth_provider,
    start_served,
)
from tests.served import Served

pytestmark = pytest.mark.anyio

TOOLS_AND_REST: list[tuple[str, dict[str, Any], str]] = [
    ("get_company_info", {}, "/api/public/v1/company"),
    ("list_experiments", {}, "/api/public/v1/research"),
    ("list_blog_posts", {}, "/api/public/v1/blog"),
    ("list_careers", {}, "/api/public/v1/careers"),
]


def rest(served: Served, path: str) -> dict[str, Any]:
    """The REST body without `ok`: what the matching tool's structured result must equal."""
    body: dict[str, Any] = httpx2.get(f"{served.base}{path}").json()
    assert body.pop("ok") is True
    return body


@pytest.mark.spec("mcp.tools")
async def test_an_agent_registers_signs_in_and_calls_every_tool_with_rest_equal_results(
    served: Served,
) -> None:
    """SPEC Tool server: DCR, PKCE, sign-in, consent, then six tools equal to the REST records."""
    browser = HeadlessBrowser(served)

    async with mcp_client(served, oauth_provider(served, browser)) as client:
        tools = await client.list_tools()
        results = {name: await client.call_tool(name, args) for name, args, _ in TOOLS_AND_REST}
        slug = results["list_experiments"].structured_content["experiments"][0]["slug"]
        role = results["list_careers"].structured_content["roles"][0]["slug"]
        experiment = await client.call_tool("get_experiment", {"slug": slug})
        career = await client.call_tool("get_career", {"slug": role})

    assert sorted(t.name for t in tools.tools) == sorted(
        [
            "get_company_info",
            "list_experiments",
            "get_experiment",
            "list_blog_posts",
            "list_careers",
            "get_career",
        ]
    )
    for name, _args, path in TOOLS_AND_REST:
        assert results[name].structured_content == rest(served, path), name
        assert json.loads(results[name].content[0].text) == rest(served, path)  # type: ignore[union-attr]
    assert experiment.structured_content == rest(served, f"/api/public/v1/research/{slug}")
    assert career.structured_content == rest(served, f"/api/public/v1/careers/{role}")
    assert len(browser.authorize_urls) == 1
    assert "code_challenge_method=S256" in browser.authorize_urls[0]


@pytest.fixture(scope="module")
def short_lived(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The served process with one-second access tokens."""
    server = start_served(tmp_path_factory.mktemp("mcp-short"), oauth_access_token_ttl="1")
    yield server
    server.proc.stop()


@pytest.mark.spec("mcp.oauth.refresh")
async def test_an_agent_keeps_working_past_access_token_expiry_by_refreshing_silently(
    short_lived: Served,
) -> None:
    """DESIGN MCP: short access tokens, rotating refresh tokens, one interactive sign-in."""
    browser = HeadlessBrowser(short_lived)
    storage = MemoryStorage()

    async with mcp_client(
        short_lived, oauth_provider(short_lived, browser, storage=storage)
    ) as client:
        first = await client.call_tool("get_company_info", {})
        tokens = storage.tokens
        assert tokens is not None
        deadline = time.monotonic() + 10
        while storage.tokens is not None and storage.tokens.access_token == tokens.access_token:
            assert time.monotonic() < deadline, "the client never refreshed"
            await client.call_tool("list_blog_posts", {})
        after = await client.call_tool("get_company_info", {})

    assert (
        after.structured_content
        == first.structured_content
        == rest(short_lived, "/api/public/v1/company")
    )
    assert storage.tokens is not None
    assert storage.tokens.refresh_token != tokens.refresh_token
    assert len(browser.authorize_urls) == 1


@pytest.mark.spec("mcp.oauth.cimd")
async def test_an_agent_identified_by_a_client_id_metadata_document_needs_no_registration(
    served: Served,
) -> None:
    """DESIGN MCP: an https client_id URL (here loopback http, allowed for tests) replaces DCR."""
    documents: dict[str, object] = {}
    with json_documents(documents) as origin:
        client_id = f"{origin}/oauth/client.json"
        documents["/oauth/client.json"] = {
            "client_id": client_id,
            "client_name": "Metadata Document Agent",
            "redirect_uris": [REDIRECT_URI],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }
        browser = HeadlessBrowser(served)
        auth = oauth_provider(served, browser, client_metadata_url=client_id)

        async with mcp_client(served, auth) as client:
            result = await client.call_tool("list_careers", {})

    assert result.structured_content == rest(served, "/api/public/v1/careers")
    assert parse_qs(urlsplit(browser.authorize_urls[0]).query)["client_id"] == [client_id]
    assert "Metadata Document Agent" in browser.pages["consent"]
