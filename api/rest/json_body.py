"""Request bodies as JSON: the one parser every endpoint that reads a JSON body uses.

It parses with pydantic-core's parser (no recursion in Python, so no RecursionError), then
refuses what later steps could not hold: nesting deeper than MAX_DEPTH levels, numbers past
the float range (`1e400`), `NaN`/`Infinity`, lone surrogates and control characters inside
strings. Each gives 400 `invalid_json`. Type and field checks stay with each surface's schema.
"""

from __future__ import annotations

import math

import pydantic_core

from api.errors import ApiError
from schemas.errors import Issue

MAX_DEPTH = 32  # objects and arrays inside one another; documented in the API references
_NOT_JSON = "The request body is not valid JSON"
_CONTAINERS = (dict, list)  # a tuple: `dict | list` would build a union at every check


def parse_json(raw: bytes) -> object:
    """The body's value. Raises: ApiError 400 `invalid_json`."""
    try:
        value = pydantic_core.from_json(raw, allow_inf_nan=False)
    except ValueError as err:
        # pydantic-core says what and where: "key must be a string at line 1 column 2".
        raise _not_json(_NOT_JSON, str(err) or "not JSON") from err
    problem = _refusal(value)
    if problem is not None:
        raise _not_json(f"{_NOT_JSON}: {problem}", problem)
    return value


def _not_json(message: str, why: str) -> ApiError:
    """400 `invalid_json`, its issue naming the whole body (`""`)."""
    return ApiError(
        400, "invalid_json", message, issues=[Issue(field="", code="invalid_json", message=why)]
    )


def _refusal(value: object) -> str | None:
    """Why a parsed value is refused (too deep, a number out of range), or None."""
    if isinstance(value, float):
        return None if math.isfinite(value) else "a number is out of range"
    if not isinstance(value, _CONTAINERS):
        return None
    stack: list[tuple[dict[str, object] | list[object], int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"nested deeper than {MAX_DEPTH} levels"
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, _CONTAINERS):
                if child:  # an empty one nests nothing: 330,000 `{}` cost no visit each
                    stack.append((child, depth + 1))
                elif depth >= MAX_DEPTH:
                    return f"nested deeper than {MAX_DEPTH} levels"
            elif isinstance(child, float) and not math.isfinite(child):
                return "a number is out of range"
    return None
