"""Whatever the fast path does not answer exactly goes to the SDK, memo or not (see conftest)."""

from __future__ import annotations

import json

import pytest

from tests.mcp_tools.fast_path.conftest import (
    ERAS,
    LEGACY,
    MODERN,
    Sides,
    body,
    call,
    compare,
    headers,
    tool_args,
)


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
