"""The served process the hostile tests storm, with an access token for /mcp."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hostile.served_clients import Storm, send
from tests.mcp_tools.conftest import access_token, start_served


@pytest.fixture
def storm(tmp_path: Path) -> Iterator[Storm]:
    # The public read limit (per client address) off: the tests read the public API from this
    # one address thousands of times to measure it, and its limit is tested in tests/api.
    served = start_served(tmp_path / "data", rate_limit_public="0")
    port = int(served.proc.host.rsplit(":", 1)[1])
    try:
        # The MCP side is built on its first request (seconds under load): build it first.
        assert send(port, "GET", "/.well-known/oauth-authorization-server", {}, b"") == 200
        token = asyncio.run(access_token(served))["access_token"]
        yield Storm(served, port, token)
    finally:
        served.proc.stop()
