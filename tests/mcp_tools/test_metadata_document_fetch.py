"""The Client ID Metadata Document fetch resolves its host once, checks that address and
connects to it, keeping the name in `Host` (DNS rebinding: a name that answers the check with
one address and the connection with another)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from api.oauth.clients import MetadataDocumentError, fetch_metadata_document
from tests.mcp_tools.conftest import REDIRECT_URI

pytestmark = [pytest.mark.anyio, pytest.mark.spec("mcp.oauth")]


class RebindingResolver:
    """A name server that answers the first lookup with `first` and every later one with
    `later`, counting the lookups."""

    def __init__(self, first: str, later: str) -> None:
        self.first, self.later = first, later
        self.lookups: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        return [self.first if len(self.lookups) == 1 else self.later]


@pytest.fixture
def document_server() -> Iterator[tuple[int, list[str]]]:
    """A loopback server that answers GET /client.json with a metadata document naming
    `http://localhost:<port>/client.json`; its port and the Host headers it was sent."""
    hosts: list[str] = []
    ports: list[int] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hosts.append(self.headers.get("Host", ""))
            document = {
                "client_id": f"http://localhost:{ports[0]}/client.json",
                "redirect_uris": [REDIRECT_URI],
                "token_endpoint_auth_method": "none",
            }
            body = json.dumps(document).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    ports.append(server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield ports[0], hosts
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


async def test_the_document_is_fetched_from_the_address_that_was_checked(
    document_server: tuple[int, list[str]],
) -> None:
    """One lookup: the connection goes to the checked address (here loopback, allowed in
    local runs), not to what a second lookup would answer (a private address), and the
    request still names the host."""
    port, hosts = document_server
    resolver = RebindingResolver(first="127.0.0.1", later="10.0.0.7")
    client_id = f"http://localhost:{port}/client.json"

    client = await fetch_metadata_document(
        client_id, default_scope="openid", allow_loopback=True, resolve=resolver
    )

    assert client.client_id == client_id
    assert resolver.lookups == ["localhost"]
    assert hosts == [f"localhost:{port}"]


@pytest.mark.parametrize("address", ["10.0.0.7", "169.254.169.254", "192.168.1.1", "fd00::1"])
async def test_a_host_that_resolves_to_a_private_address_is_refused_before_any_connection(
    document_server: tuple[int, list[str]], address: str
) -> None:
    """SSRF: private and link-local addresses (the metadata server among them) are never
    fetched, in local runs either."""
    port, hosts = document_server
    resolver = RebindingResolver(first=address, later="127.0.0.1")

    with pytest.raises(MetadataDocumentError, match="not a public address"):
        await fetch_metadata_document(
            f"http://localhost:{port}/client.json",
            default_scope="openid",
            allow_loopback=True,
            resolve=resolver,
        )

    assert hosts == []
