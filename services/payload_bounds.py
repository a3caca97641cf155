"""How big a page or a brief may be, checked before any other work on it.

The schema, the character check and the gate each walk a whole payload, so a body of 1 MiB
holding 330,000 empty blocks (or 100,000 unknown fields) cost seconds of CPU and answered an
issue per element before the 30-block limit refused it. This walk runs first and reads no more
than the bounds allow: an array past its limit is one `too_many` issue and only its first
elements are read on (and checked by the schema and the gate, so the answer still names every
other field at fault there); an object with more members than any model has, more values or
more characters than any valid body holds, or deeper nesting, stop the walk, and the payload is
refused with these issues alone. The list limits are the schema's own (SitePageInput and its
blocks, GenerationBrief), read from the models, so the two never disagree.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Union, get_args, get_origin

from annotated_types import MaxLen
from pydantic import BaseModel

from schemas.content.jobs import GenerationBrief
from schemas.content.pages import SitePageInput
from schemas.errors import Issue

__all__ = [
    "BRIEF_BOUNDS",
    "MAX_COMMAS",
    "MAX_DEPTH",
    "MAX_MEMBERS",
    "MAX_TEXT_CHARACTERS",
    "MAX_VALUES",
    "PAGE_BOUNDS",
    "Bounded",
    "Bounds",
    "bound_issues",
    "bound_payload",
    "raw_bound_issue",
]

# No model has half this many fields: an object with more is refused whole (its names unread).
MAX_MEMBERS = 32
# Every string value and member name of one payload, in characters. The largest page the
# schema allows holds about 125,000 (30 richtext blocks of 4,000 characters and their titles).
MAX_TEXT_CHARACTERS = 150_000
# Values (objects, arrays, strings, numbers, ...) in one payload; the largest page the schema
# allows has about 1,500.
MAX_VALUES = 5_000
# Commas in a page's or a brief's bytes, those inside strings included: the largest page the
# schema allows needs about 1,500 between its values, so a body past this is refused before it
# is parsed (pydantic-core took 60-110 ms of CPU, holding the GIL, to build the 330,000 values
# of a 1 MiB body) unless its text holds a comma every eight characters, which no copy does.
MAX_COMMAS = 20_000
# An array whose path names no schema list (an unknown field, a string sent as a list).
OTHER_ARRAY_ITEMS = 30
# Objects and arrays inside one another (the API's JSON parser allows 32; the CLI reads files).
MAX_DEPTH = 32


@dataclass(frozen=True)
class Bounds:
    """The array limits by path (`*` for any index) of one kind of payload."""

    items: Mapping[str, int]


def _list_limits(model: type[BaseModel], prefix: str = "") -> dict[str, int]:
    """The `max_length` of each list field of `model` (and of the models inside it) by path."""
    limits: dict[str, int] = {}
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        bound = next((m.max_length for m in field.metadata if isinstance(m, MaxLen)), None)
        annotation = _without_none(field.annotation)
        if get_origin(annotation) is not list:
            continue
        if bound is not None:
            limits[path] = bound
        for inner in _models_in(get_args(annotation)[0]):
            for inner_path, inner_bound in _list_limits(inner, f"{path}.*.").items():
                limits[inner_path] = max(inner_bound, limits.get(inner_path, 0))
    return limits


def _without_none(annotation: Any) -> Any:
    """`list[X]` of `list[X] | None`; any other annotation as it is."""
    if get_origin(annotation) in (Union, types.UnionType):
        kept = [arg for arg in get_args(annotation) if arg is not type(None)]
        return kept[0] if len(kept) == 1 else annotation
    return annotation


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The models an item annotation may hold (one model, or each member of a union)."""
    if get_origin(annotation) is Annotated:
        return _models_in(get_args(annotation)[0])
    if get_origin(annotation) in (Union, types.UnionType):
        return [m for arg in get_args(annotation) for m in _models_in(arg)]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return []


PAGE_BOUNDS = Bounds(items=_list_limits(SitePageInput))
BRIEF_BOUNDS = Bounds(items=_list_limits(GenerationBrief))


@dataclass(frozen=True)
class Bounded:
    """A payload cut to its bounds, and the issues of what was cut.

    `whole`: the payload passed a bound that nothing may be read past (too many members, values
    or characters); refuse it with `issues` alone. Otherwise `payload` is the input with each
    array cut to its limit, to be checked as usual so that one answer still names every field
    at fault (an array over its limit is one issue, not one per element past it).
    """

    payload: object
    issues: tuple[Issue, ...] = ()
    whole: bool = False


def bound_payload(payload: object, bounds: Bounds) -> Bounded:
    """`payload` (a parsed JSON body) within `bounds`, in one walk that stops at the first
    bound nothing may be read past."""
    walk = _Walk(bounds)
    try:
        cut = walk.value(payload, "", "", depth=0)
    except _PastBoundError as err:
        return Bounded(payload=None, issues=(*walk.issues, err.issue), whole=True)
    if walk.whole:
        return Bounded(payload=None, issues=tuple(walk.issues), whole=True)
    return Bounded(payload=cut, issues=tuple(walk.issues))


def raw_bound_issue(raw: bytes) -> Issue | None:
    """The issue of a page's or a brief's body past MAX_COMMAS, read from its bytes before it is
    parsed (a count in C, about 1 ms for 1 MiB); None when within it."""
    if raw.count(b",") <= MAX_COMMAS:
        return None
    return Issue(
        field="",
        code="too_many",
        message=f"more than {MAX_COMMAS:,} commas: no page or brief holds that many values",
    )


def bound_issues(payload: object, bounds: Bounds) -> list[Issue]:
    """The bounds `payload` passes, as issues; empty when within them."""
    return list(bound_payload(payload, bounds).issues)


class _PastBoundError(Exception):
    def __init__(self, issue: Issue) -> None:
        super().__init__(issue.message)
        self.issue = issue


class _Walk:
    """One walk over a payload: the values and characters seen, the issues found."""

    def __init__(self, bounds: Bounds) -> None:
        self.bounds = bounds
        self.values = 0
        self.characters = 0
        self.issues: list[Issue] = []
        self.whole = False

    def value(self, value: object, path: str, pattern: str, *, depth: int) -> object:
        self.values += 1
        if self.values > MAX_VALUES:
            raise _PastBoundError(_whole("too_many", f"at most {MAX_VALUES} values in one body"))
        if depth > MAX_DEPTH:
            raise _PastBoundError(_whole("too_deep", f"at most {MAX_DEPTH} levels of nesting"))
        if isinstance(value, str):
            self._count(len(value))
            return value
        if isinstance(value, dict):
            if len(value) > MAX_MEMBERS:
                self.issues.append(_issue(path, f"at most {MAX_MEMBERS} fields"))
                self.whole = True
                return None
            cut: dict[str, object] = {}
            for name, child in value.items():
                self._count(len(name))
                cut[name] = self.value(
                    child, _join(path, name), _join(pattern, name), depth=depth + 1
                )
            return cut
        if isinstance(value, list):
            limit = self.bounds.items.get(pattern, OTHER_ARRAY_ITEMS)
            if len(value) > limit:
                self.issues.append(
                    _issue(path, f"at most {limit} item" + ("" if limit == 1 else "s"))
                )
            return [
                self.value(child, _join(path, str(index)), _join(pattern, "*"), depth=depth + 1)
                for index, child in enumerate(value[:limit])
            ]
        return value

    def _count(self, characters: int) -> None:
        self.characters += characters
        if self.characters > MAX_TEXT_CHARACTERS:
            message = f"at most {MAX_TEXT_CHARACTERS} characters of text in one body"
            raise _PastBoundError(_whole("too_long", message))


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _issue(path: str, message: str) -> Issue:
    return Issue(field=path, code="too_many", message=message)


def _whole(code: str, message: str) -> Issue:
    return Issue(field="", code=code, message=message)
