"""Normal MCP sessions leave nothing wrong in the service's log.

Sessions of the official Python client (both protocol eras, OAuth included), a GET stream and
the MCP Inspector's CLI (from npm, `tools/inspector/package.json`, installed by `make setup`) run
against one served process of their own; the process is then stopped and its log read whole.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.emulators import REPO
from tests.mcp_tools.conftest import (
    HeadlessBrowser,
    MemoryStorage,
    access_token,
    oauth_provider,
    start_served,
)
from tests.served import Served

pytestmark = pytest.mark.anyio

INSPECTOR = REPO / "tools" / "inspector" / "node_modules" / ".bin" / "mcp-inspector"
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A served process that only this module's sessions talk to."""
    server = start_served(tmp_path_factory.mktemp("mcp-log"), log_level="INFO")
    yield server
    server.proc.stop()


def log_problems(served: Served) -> list[str]:
    """Every log line at ERROR or above, and any traceback, from stdout and stderr."""
    texts = [served.proc.log_path.read_text(encoding="utf-8", errors="replace")]
    if served.proc.stderr_path is not None:
        texts.append(served.proc.stderr_path.read_text(encoding="utf-8", errors="replace"))
    problems = []
    for line in "\n".join(texts).splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            entry = None
        if isinstance(entry, dict):
            if entry.get("severity") in ("ERROR", "CRITICAL") or "stack_trace" in entry:
                problems.append(line)
        elif "Traceback" in line or "ERROR" in line or "Error" in line:
            problems.append(line)
    return problems


def inspector(served: Served, token: str, *args: str) -> dict[str, object]:
    """One `mcp-inspector --cli` call over streamable HTTP with a bearer token; its JSON."""
    assert INSPECTOR.exists(), "the MCP Inspector is not installed: run `make setup`"
    result = subprocess.run(  # noqa: S603  # our pinned npm tool against our loopback server
        [
            str(INSPECTOR),
            "--cli",
            f"{served.base}/mcp",
            "--transport",
            "http",
            "--header",
            f"Authorization: Bearer {token}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=Path(REPO),
    )
    assert result.returncode == 0, result.stderr + result.stdout
    parsed: dict[str, object] = json.loads(result.stdout)
    return parsed


@pytest.mark.spec("mcp.tools")
async def test_sessions_of_the_python_client_and_the_inspector_leave_no_error_in_the_log(
    own_server: Served,
) -> None:
    """Sign-in, both eras, a GET stream opened and dropped, the Inspector: a clean log."""
    storage = MemoryStorage()
    browser = HeadlessBrowser(own_server)
    for mode in ("auto", "legacy"):
        auth = oauth_provider(own_server, browser, storage=storage)
        async with (
            httpx2.AsyncClient(auth=auth, timeout=30) as http,
            Client(
                streamable_http_client(f"{own_server.base}/mcp", http_client=http), mode=mode
            ) as client,
        ):
            assert len((await client.list_tools()).tools) == 6
            info = await client.call_tool("get_company_info", {})
            assert info.structured_content is not None
            missing = await client.call_tool("get_career", {"slug": "no-such-role"})
            assert missing.is_error
    token = (await access_token(own_server))["access_token"]
    async with (
        httpx2.AsyncClient(timeout=5) as http,
        http.stream(
            "GET",
            f"{own_server.base}/mcp",
            headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"},
        ) as stream,
    ):
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")

    tools = inspector(own_server, token, "--method", "tools/list")
    called = inspector(
        own_server, token, "--method", "tools/call", "--tool-name", "get_company_info"
    )
    own_server.proc.stop()

    assert len(tools["tools"]) == 6  # type: ignore[arg-type]
    assert called.get("isError") is not True
    assert log_problems(own_server) == []
