"""The JSON body parser's depth limit reads nesting from the bytes, leaving strings out: a string
holding brackets, quotes or backslashes never changes the verdict, whatever their order."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.errors import ApiError
from api.rest.json_body import MAX_DEPTH, parse_json

# Strings made of the characters that could fool a reading of the bytes.
TRICKY = st.text(alphabet='[]{}"\\ax\n', max_size=8)
VALUES = st.recursive(
    st.none() | st.integers() | TRICKY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TRICKY, inner, max_size=3),
    max_leaves=40,
)


def depth(value: Any) -> int:
    """Objects and arrays inside one another, counted on the parsed value."""
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


def wrapped(value: Any, levels: int) -> Any:
    for _ in range(levels):
        value = [value, '"]}]"', {"k]\\": '[{\\"'}]
    return value


@settings(max_examples=300, deadline=None)
@given(value=VALUES, levels=st.integers(min_value=0, max_value=MAX_DEPTH + 3))
def test_a_body_is_refused_for_depth_exactly_when_it_nests_past_the_limit(
    value: Any, levels: int
) -> None:
    body = wrapped(value, levels)
    raw = json.dumps(body).encode()
    if depth(body) > MAX_DEPTH:
        with pytest.raises(ApiError) as refused:
            parse_json(raw)
        assert refused.value.status == 400
    else:
        assert parse_json(raw) == body


def test_brackets_inside_strings_that_would_read_as_shallow_do_not_hide_deep_nesting() -> None:
    # Real nesting past the limit, each level opened after a string that closes a bracket and
    # closed after one that opens a bracket: read with the strings in, it looks one level deep.
    body: Any = 1
    for _ in range(MAX_DEPTH + 5):
        body = ["]", body, "["]
    with pytest.raises(ApiError) as refused:
        parse_json(json.dumps(body).encode())
    assert refused.value.status == 400
