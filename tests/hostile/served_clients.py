"""What the hostile tests share: the served process with an access token for /mcp, and one
request on a fresh connection."""

from __future__ import annotations

import http.client
from dataclasses import dataclass

from frontdoor.rsgi_front import BODY_READ_TIMEOUT
from tests.api.content_client import page_body
from tests.served import Served

PAGES = "/api/public/content/pages"
SIGNALS = "/api/public/v1/signals"
STALLED = 200  # clients that send half a body and then nothing
MIB = 1024 * 1024


def send(port: int, method: str, path: str, headers: dict[str, str], body: bytes) -> int:
    """One request on a fresh connection; the status."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=BODY_READ_TIMEOUT + 20)
    try:
        conn.request(method, path, body=body, headers=headers)
        status = conn.getresponse().status
    finally:
        conn.close()
    return status


@dataclass(frozen=True)
class Storm:
    """The served process, its port and an OAuth access token for /mcp."""

    served: Served
    port: int
    token: str


EVENT = {"source": "crm", "row_id": "1", "type": "book_call", "occurred_at": "2026-01-01T00:00Z"}
VALID = {
    "page": page_body("storm-page"),
    "brief": {"slug": "storm-brief", "topic": "Audits", "icp": "Heads of growth"},
    "events": {"events": [EVENT]},
    "webhook": {"url": "https://hooks.example.com/x"},
    "beacon": {"type": "page_view"},
    "register": {"redirect_uris": ["http://127.0.0.1/cb"], "client_name": "x"},
    "rpc": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
}
