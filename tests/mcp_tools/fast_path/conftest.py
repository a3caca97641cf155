"""The /mcp fast path against the SDK transport it stands in front of: same answers.

Both sides run in this process over one bridged app (api.mcp_app + LifespanBridge), driven
as WSGI: `sdk` is the bridge alone (every request through the SDK transport), `fast` is
McpFastPath in front of it, as frontdoor.serve composes them. Every request goes to the SDK
side, then twice to the fast side (the first may fill a memo, the second may be answered
from it), and status, the headers that matter and the body must agree. Refusals are sent
after a good request of the same kind, so they meet a filled memo and must still be refused
by the SDK itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from werkzeug.test import Client

from api.mcp_app import McpConfig, create_mcp_asgi_app
from api.mcp_fast_path import McpFastPath
from api.oauth_config import OAuthConfig, sha256_hex
from backends.content_files import load_catalog
from backends.embedded.mail import OutboxMailer
from backends.embedded.oauth import SqliteOAuthStore
from backends.embedded.sqlite import SqliteDatabase
from frontdoor.composition import LifespanBridge
from frontdoor.settings import Settings
from tests.mcp_tools.tokens import plant_token

BASE = "http://127.0.0.1:8080"
RESOURCE = f"{BASE}/mcp"
LEGACY, MODERN = "2025-11-25", "2026-07-28"
# Headers whose value matters to a client; date/server come from the WSGI server.
COMPARED = ("content-type", "www-authenticate", "vary", "mcp-session-id", "allow")


@dataclass
class Sides:
    sdk: Client
    fast: Client
    fast_path: McpFastPath
    tokens: dict[str, str]
    slugs: dict[str, str]


def _token(store: SqliteOAuthStore, name: str, **fields: Any) -> str:
    return plant_token(store, f"fda_test_{name}", **({"resource": RESOURCE} | fields))


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sides]:
    data = Path(tmp_path_factory.mktemp("fast-path"))
    store = SqliteOAuthStore(SqliteDatabase(data / "frontdoor.sqlite3"))
    tokens = {
        "good": _token(store, "good"),
        "other_resource": _token(store, "other", resource="http://elsewhere.example/mcp"),
        "openid_only": _token(store, "narrow", scopes=("openid",)),
        "expired": _token(store, "expired", expires_at=datetime.now(UTC) - timedelta(minutes=1)),
        "revoked": _token(store, "revoked"),
        "refresh": _token(store, "refresh", kind="refresh"),
    }
    store.revoke_token(sha256_hex(tokens["revoked"]), now=datetime.now(UTC))
    tokens["unknown"] = "fda_never_issued"
    catalog = load_catalog(Settings().content_dir)
    asgi = create_mcp_asgi_app(
        McpConfig(base_url=BASE, oauth=OAuthConfig(issuer=BASE, resource=RESOURCE)),
        catalog=catalog,
        oauth_store=store,
        mailer=OutboxMailer(data / "outbox"),
        clock=lambda: datetime.now(UTC),
    )
    bridge = LifespanBridge(asgi.app)
    fast_path = McpFastPath(bridge.wsgi_app, asgi.fast_path)
    slugs = {
        "get_experiment": catalog.experiments[0].slug,
        "get_career": catalog.roles[0].slug,
    }
    try:
        yield Sides(
            sdk=Client(bridge.wsgi_app),
            fast=Client(fast_path),
            fast_path=fast_path,
            tokens=tokens,
            slugs=slugs,
        )
    finally:
        bridge.close()


def headers(
    version: str | None,
    token: str | None,
    *,
    method: str | None = None,
    name: str | None = None,
    **extra: str,
) -> dict[str, str]:
    sent = {
        "Host": "127.0.0.1:8080",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    if version is not None:
        sent["MCP-Protocol-Version"] = version
    if version == MODERN and method is not None:
        sent["Mcp-Method"] = method
        if name is not None:
            sent["Mcp-Name"] = name
    for key, value in extra.items():
        sent[key.replace("_", "-")] = value
    return {k: v for k, v in sent.items() if v != ""}


def body(
    version: str, method: str, params: dict[str, Any] | None = None, request_id: Any = 1
) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    params = dict(params or {})
    if version == MODERN:
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    if params or method != "ping":
        message["params"] = params
    return message


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def send(client: Client, sent: dict[str, str], data: bytes, method: str = "POST") -> Answer:
    response = client.open("/mcp", method=method, headers=sent, data=data)
    answer = Answer(
        response.status_code,
        {k.lower(): v for k, v in response.headers.items()},
        response.get_data(),
    )
    response.close()
    return answer


def parsed(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def compare(sides: Sides, sent: dict[str, str], data: bytes, method: str = "POST") -> Answer:
    """The SDK's answer, after checking that both fast-side answers equal it."""
    expected = send(sides.sdk, sent, data, method)
    for _ in range(2):
        got = send(sides.fast, sent, data, method)
        assert got.status == expected.status, (got, expected)
        for name in COMPARED:
            assert got.headers.get(name) == expected.headers.get(name), name
        assert got.headers.get("content-length") == str(len(got.body))
        assert parsed(got.body) == parsed(expected.body)
        if expected.headers.get("content-type") == "application/json":
            # One serializer per era: the replayed bytes are the SDK's bytes.
            assert got.body == expected.body
    return expected


def call(
    sides: Sides,
    version: str,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    request_id: Any = 1,
    token: str = "good",  # noqa: S107  # a key of Sides.tokens
    name: str | None = None,
    **extra: str,
) -> tuple[Answer, int]:
    """compare() one JSON-RPC request; also the fast path's memo hits it caused."""
    sent = headers(version, sides.tokens.get(token, token), method=method, name=name, **extra)
    data = json.dumps(body(version, method, params, request_id)).encode()
    before = sides.fast_path.hits
    answer = compare(sides, sent, data)
    return answer, sides.fast_path.hits - before


def tool_args(sides: Sides, tool: str) -> dict[str, Any]:
    slug = sides.slugs.get(tool)
    return {"name": tool, "arguments": {"slug": slug} if slug else {}}


ERAS = pytest.mark.parametrize("version", [LEGACY, MODERN])
