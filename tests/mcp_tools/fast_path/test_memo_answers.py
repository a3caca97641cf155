"""The fast path answers from memos of the SDK's own answers, byte for byte (see conftest)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from api.mcp_fast_path import run_coroutine
from api.mcp_tools import FIXED_RESULT_TOOLS
from tests.mcp_tools.fast_path.conftest import (
    ERAS,
    LEGACY,
    MODERN,
    Sides,
    body,
    call,
    headers,
    send,
    tool_args,
)


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
