"""The official MCP client against the served process: discovery, registration, sign-in, tools."""

from __future__ import annotations

import json

import httpx2
import pytest

from tests.mcp_tools.conftest import HeadlessBrowser, Served, mcp_client, oauth_provider

pytestmark = pytest.mark.anyio

TOOLS_AND_REST = [
    ("get_company_info", {}, "/api/public/v1/company"),
    ("list_experiments", {}, "/api/public/v1/research"),
    ("list_blog_posts", {}, "/api/public/v1/blog"),
    ("list_careers", {}, "/api/public/v1/careers"),
]


def rest(served: Served, path: str) -> dict[str, object]:
    body = httpx2.get(f"{served.base}{path}").json()
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
        slug = results["list_experiments"].structured_content["experiments"][0]["slug"]  # type: ignore[index]
        role = results["list_careers"].structured_content["roles"][0]["slug"]  # type: ignore[index]
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
