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
from api.mcp_fast_path import McpFastPath, run_coroutine
from api.mcp_tools import FIXED_RESULT_TOOLS
from api.oauth_provider import OAuthConfig, sha256_hex
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


@ERAS
@pytest.mark.parametrize("tool", sorted(FIXED_RESULT_TOOLS))
def test_every_tool_call_is_answered_from_the_memo_with_the_sdk_answer(
    sides: Sides, version: str, tool: str
) -> None:
    params = tool_args(sides, tool)
    answer, hits = call(sides, version, "tools/call", params, name=tool)
    result = json.loads(answer.body)["result"]
    assert answer.status == 200
    assert "structuredContent" in result
    assert not result.get("isError")
    assert hits >= 1
    # Another id, of either kind (non-ASCII too), is spliced in as the SDK writes it.
    for request_id in (987654321, "req-7", "é-ü-🙂"):
        answer, hits = call(sides, version, "tools/call", params, request_id=request_id, name=tool)
        assert json.loads(answer.body)["id"] == request_id
        assert hits == 2


@pytest.mark.parametrize(
    ("version", "method", "params"),
    [(LEGACY, "tools/list", {}), (MODERN, "tools/list", {}), (LEGACY, "ping", None)],
)
def test_listing_and_ping_are_answered_from_the_memo(
    sides: Sides, version: str, method: str, params: dict[str, Any] | None
) -> None:
    answer, hits = call(sides, version, method, params)
    assert answer.status == 200
    assert "result" in json.loads(answer.body)
    assert hits >= 1


def test_a_method_the_era_lacks_is_the_sdk_error_and_never_memoized(sides: Sides) -> None:
    answer, hits = call(sides, MODERN, "ping")  # 2026-07-28 has no ping
    assert answer.status == 404
    assert "error" in json.loads(answer.body)
    assert hits == 0


def test_initialize_is_answered_as_the_sdk_does(sides: Sides) -> None:
    params = {
        "protocolVersion": LEGACY,
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    }
    answer, hits = call(sides, LEGACY, "initialize", params)
    assert json.loads(answer.body)["result"]["protocolVersion"] == LEGACY
    assert hits >= 1


@ERAS
@pytest.mark.parametrize(
    "params",
    [
        {"name": "get_experiment", "arguments": {"slug": "no-such-slug"}},
        {"name": "get_career", "arguments": {"slug": "no-such-slug"}},
        {"name": "get_experiment", "arguments": {}},
        {"name": "get_experiment", "arguments": {"slug": ""}},
        {"name": "no_such_tool", "arguments": {}},
        {"arguments": {}},
    ],
)
def test_tool_errors_are_the_sdk_answers_and_never_memoized(
    sides: Sides, version: str, params: dict[str, Any]
) -> None:
    answer, hits = call(sides, version, "tools/call", params, name=params.get("name"))
    assert hits == 0
    decoded = json.loads(answer.body)
    assert "error" in decoded or decoded["result"].get("isError")


@ERAS
@pytest.mark.parametrize(
    ("token", "status"),
    [
        (None, 401),
        ("unknown", 401),
        ("other_resource", 401),
        ("expired", 401),
        ("revoked", 401),
        ("refresh", 401),
        ("openid_only", 403),
    ],
)
def test_a_refused_token_is_refused_by_the_sdk_even_with_a_memo(
    sides: Sides, version: str, token: str | None, status: int
) -> None:
    params = tool_args(sides, "get_company_info")
    call(sides, version, "tools/call", params, name="get_company_info")  # fills the memo
    sent = headers(
        version,
        sides.tokens[token] if token else None,
        method="tools/call",
        name="get_company_info",
    )
    data = json.dumps(body(version, "tools/call", params)).encode()
    before = sides.fast_path.hits
    answer = compare(sides, sent, data)
    assert answer.status == status
    assert sides.fast_path.hits == before
    assert "resource_metadata=" in answer.headers["www-authenticate"]
    if status == 403:
        assert 'scope="openid email profile"' in answer.headers["www-authenticate"]


@ERAS
@pytest.mark.parametrize(
    ("extra", "status"),
    [
        ({"Host": "evil.example"}, 421),
        ({"Host": ""}, 421),
        ({"Origin": "https://evil.example"}, 403),
        ({"Origin": "http://127.0.0.1:8080"}, 200),
        ({"Accept": "text/html"}, 406),
        ({"Accept": ""}, 406),
        ({"Accept": "*/*"}, 200),
        ({"Content-Type": "text/plain"}, 400),
        ({"Content-Type": "application/json; charset=utf-8"}, 200),
        ({"Mcp-Session-Id": "abc"}, None),
        ({"Mcp-Param-Slug": "x"}, None),
    ],
)
def test_unusual_headers_get_the_sdk_answer(
    sides: Sides, version: str, extra: dict[str, str], status: int | None
) -> None:
    params = tool_args(sides, "get_company_info")
    call(sides, version, "tools/call", params, name="get_company_info")
    answer, _hits = call(sides, version, "tools/call", params, name="get_company_info", **extra)
    if status is not None:
        assert answer.status == status


@pytest.mark.parametrize("version", ["1999-01-01", "2025-06-18", "2026-07-28x", ""])
def test_other_protocol_versions_get_the_sdk_answer(sides: Sides, version: str) -> None:
    params = tool_args(sides, "get_company_info")
    answer, hits = call(sides, version or None, "tools/call", params)  # type: ignore[arg-type]
    assert hits == 0
    assert answer.status in (200, 400)


@pytest.mark.parametrize(
    ("method", "name"),
    [("tools/list", "get_company_info"), ("tools/call", "list_careers"), ("tools/call", None)],
)
def test_modern_routing_headers_that_disagree_with_the_body_get_the_sdk_answer(
    sides: Sides, method: str, name: str | None
) -> None:
    params = tool_args(sides, "get_company_info")
    call(sides, MODERN, "tools/call", params, name="get_company_info")
    sent = headers(MODERN, sides.tokens["good"], method=method, name=name)
    data = json.dumps(body(MODERN, "tools/call", params)).encode()
    before = sides.fast_path.hits
    answer = compare(sides, sent, data)
    assert answer.status == 400
    assert sides.fast_path.hits == before


@ERAS
@pytest.mark.parametrize(
    "data",
    [
        b"{not json",
        b"",
        b"[]",
        b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        b'{"jsonrpc":"1.0","id":1,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":null,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}',
        b'{"jsonrpc":"2.0","id":1,"method":"no/such/method","params":{}}',
        b'{"jsonrpc":"2.0","id":1,"result":{}}',
    ],
)
def test_malformed_or_unusual_bodies_get_the_sdk_answer(
    sides: Sides, version: str, data: bytes
) -> None:
    sent = headers(version, sides.tokens["good"], method="ping")
    before = sides.fast_path.hits
    compare(sides, sent, data)
    assert sides.fast_path.hits == before


# GET is left out: in stateless mode the SDK holds a GET open as an event stream, which a
# buffered WSGI test client would wait on forever. The fast path passes every non-POST through.
@pytest.mark.parametrize("method", ["DELETE", "PUT", "OPTIONS"])
def test_other_http_methods_get_the_sdk_answer(sides: Sides, method: str) -> None:
    sent = headers(LEGACY, sides.tokens["good"])
    compare(sides, sent, b"", method)


def test_arguments_that_differ_in_any_way_are_another_memo(sides: Sides) -> None:
    slug = sides.slugs["get_experiment"]
    call(sides, LEGACY, "tools/call", {"name": "get_experiment", "arguments": {"slug": slug}})
    answer, _ = call(
        sides,
        LEGACY,
        "tools/call",
        {"name": "get_experiment", "arguments": {"slug": slug, "extra": 1}},
    )
    assert answer.status == 200
    # A progress token is part of the key too: the first such request is the SDK's.
    params = {"name": "list_careers", "arguments": {}, "_meta": {"progressToken": "p-1"}}
    _, hits = call(sides, LEGACY, "tools/call", params)
    assert hits == 1  # the SDK filled it on the first of compare's two fast requests


def test_the_memo_is_bounded(sides: Sides) -> None:
    size = sides.fast_path.config.memo_size
    for n in range(size + 5):
        params = {"name": "get_company_info", "arguments": {}, "_meta": {"progressToken": n}}
        sent = headers(LEGACY, sides.tokens["good"])
        send(sides.fast, sent, json.dumps(body(LEGACY, "tools/call", params)).encode())
    assert len(sides.fast_path._memos) == size  # the bound itself


def test_run_coroutine_steps_a_coroutine_that_never_suspends_and_loops_one_that_does() -> None:
    import anyio

    async def plain() -> int:
        return 7

    async def suspends() -> int:
        await anyio.sleep(0)
        return 8

    async def offloaded() -> int:
        return await anyio.to_thread.run_sync(lambda: 9)

    assert run_coroutine(plain) == 7
    assert run_coroutine(suspends) == 8
    assert run_coroutine(offloaded) == 9


def test_every_tool_is_declared_memoizable_or_not(sides: Sides) -> None:
    """A new tool must be a deliberate choice: a caller- or time-dependent one stays out."""
    listed, _ = call(sides, LEGACY, "tools/list", {})
    names = {tool["name"] for tool in json.loads(listed.body)["result"]["tools"]}
    assert names == FIXED_RESULT_TOOLS
