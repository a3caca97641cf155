"""Request bodies as JSON: the one parser every endpoint that reads a JSON body uses.

It parses with pydantic-core's parser (no recursion in Python, so no RecursionError), then
refuses what later steps could not hold: nesting deeper than MAX_DEPTH levels, numbers past
the float range (`1e400`), `NaN`/`Infinity`, lone surrogates and control characters inside
strings. Each gives 400 `invalid_json`. Type and field checks stay with each surface's schema.
"""

from __future__ import annotations

import math

import pydantic_core
from flask import Request

from api.errors import ApiError, bad_request, invalid_payload, unsupported_media_type
from schemas.errors import Issue
from services.payload_bounds import raw_bound_issue

MAX_DEPTH = 32  # objects and arrays inside one another; documented in the API references
_NOT_JSON = "The request body is not valid JSON"
_CONTAINERS = (dict, list)  # a tuple: `dict | list` would build a union at every check
_NOT_SKELETON = bytes(set(range(256)) - set(b'"[]{}'))
_ONE_KIND = bytes.maketrans(b"{}", b"[]")
# Digits as 1, e/E as e, signs as +, the rest as a space: a number that may parse past the float
# range shows as an exponent of 3 digits or 309 digits in a row; only a body that holds one is
# walked for it (words such as "More1000" look so too: walked, fine). Substring searches, in C.
_SHAPE_OF = {**dict.fromkeys(b"0123456789", ord("1")), **dict.fromkeys(b"eE", ord("e"))}
_NUMBER_SHAPES = bytes(
    {**_SHAPE_OF, ord("+"): ord("+"), ord("-"): ord("+")}.get(c, 32) for c in range(256)
)
_PAST_RANGE = (b"e111", b"e+111", b"1" * 309)


def request_json(
    request: Request,
    *,
    max_bytes: int | None = None,
    merge_patch: bool = False,
    content: bool = False,
    what: str = "the body",
) -> object:
    """A view's request body as JSON: its media type, then its size, then its bytes.

    Raises: ApiError 415 unless sent as application/json (or application/merge-patch+json
    where `merge_patch`), 413 past `max_bytes`, then parse_json's (or, for a page's, a
    variant's or a brief's `content`, parse_content_json's) refusals."""
    allowed = {"application/json"} | ({"application/merge-patch+json"} if merge_patch else set())
    if request.mimetype not in allowed:
        raise unsupported_media_type(f"Send {what} as {' or '.join(sorted(allowed))}")
    if max_bytes is not None:
        request.max_content_length = max_bytes
    raw = request.get_data(cache=True)
    return parse_content_json(raw) if content else parse_json(raw)


def parse_json(raw: bytes) -> object:
    """The body's value. Raises: ApiError 400 `invalid_json`."""
    try:
        value = pydantic_core.from_json(raw, allow_inf_nan=False)
    except ValueError as err:
        # pydantic-core says what and where: "key must be a string at line 1 column 2".
        raise _not_json(_NOT_JSON, str(err) or "not JSON") from err
    problem = _too_deep(_outside_strings(raw)) or (
        _refusal(value) if _may_pass_range(raw) else None
    )
    if problem is not None:
        raise _not_json(f"{_NOT_JSON}: {problem}", problem)
    return value


def parse_content_json(raw: bytes) -> object:
    """A page's, a variant's or a brief's body: refused from its bytes, before it is parsed,
    when it holds more values than any of them can (422 `too_many` on `""`), else parsed.

    Raises: ApiError 422 `invalid_payload`, or 400 `invalid_json`."""
    past = raw_bound_issue(raw)
    if past is not None:
        raise invalid_payload([past], "The body is over a size or count limit")
    return parse_json(raw)


def _not_json(message: str, why: str) -> ApiError:
    """400 `invalid_json`, its issue naming the whole body (`""`)."""
    return bad_request("invalid_json", message, [Issue(field="", code="invalid_json", message=why)])


def _may_pass_range(raw: bytes) -> bool:
    shapes = raw.translate(_NUMBER_SHAPES)
    return any(shape in shapes for shape in _PAST_RANGE)


def _too_deep(skeleton: bytes) -> str | None:
    """Whether the (parsed, so well-formed) JSON nests deeper than MAX_DEPTH, read from its
    bytes: strings left out, each round drops the innermost empty pairs, in C (a walk over
    330,000 parsed elements took 0.65 s of CPU holding the GIL; this takes milliseconds)."""
    # One kind of bracket: the body parsed, so they pair up, and one replace per round drops
    # exactly one level (dropping `{}` then `[]` took `[{}]` whole in one round).
    brackets = skeleton.translate(_ONE_KIND)
    for _ in range(MAX_DEPTH):
        if not brackets:
            return None
        brackets = brackets.replace(b"[]", b"")
    return f"nested deeper than {MAX_DEPTH} levels" if brackets else None


def _outside_strings(raw: bytes) -> bytes:
    """The body's brackets, with those inside strings left out.

    Escaped backslashes and quotes go first; then only quotes and brackets are kept, so a
    string without brackets is a pair of adjacent quotes, and dropping those pairs in one
    left-to-right pass leaves no quote exactly when every string was such a pair (a pass pairs
    each quote with the next one only when they touch). Otherwise the strings are cut out by
    splitting on the quotes of that short skeleton. A regex over the strings of a 1 MiB body
    took 45-65 ms of CPU holding the GIL; this takes about 4 ms.
    """
    kept = raw.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_SKELETON)
    brackets = kept.replace(b'""', b"")
    if b'"' not in brackets:
        return brackets
    return b"".join(kept.split(b'"')[::2])


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
