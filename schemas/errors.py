"""The error model every surface shares: Issue, the problem body, pydantic errors as issues."""

from collections.abc import Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic_core import ErrorDetails

Severity = Literal["error", "warning"]


class Issue(BaseModel):
    """One field that failed: a dotted path with numeric indexes (`""` for the whole body).

    `severity`: an `error` refuses the write; a `warning` (a judgement call of the quality
    gate) never does and comes back as `warnings[]` beside the page.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    field: str = Field(examples=["blocks.0.sub"])
    code: str = Field(examples=["icp_missing"])
    message: str
    severity: Severity = Field(
        default="error", description="`error` refuses the write; `warning` never does"
    )


def errors_of(issues: Iterable[Issue]) -> list[Issue]:
    """The issues that refuse a write."""
    return [issue for issue in issues if issue.severity == "error"]


def warnings_of(issues: Iterable[Issue]) -> list[Issue]:
    """The judgement calls that never refuse a write."""
    return [issue for issue in issues if issue.severity == "warning"]


class Problem(BaseModel):
    """Every error body: our members plus the RFC 9457 ones."""

    model_config = ConfigDict(defer_build=True)

    ok: bool = False
    error: str = Field(description="Stable machine-readable code", examples=["invalid_payload"])
    message: str
    issues: list[Issue] | None = Field(
        default=None, description="Each field at fault; at most 50, the first ones found"
    )
    issues_omitted: int | None = Field(
        default=None,
        ge=1,
        description="How many more issues there were past the 50 listed (absent when none)",
    )
    type: str = Field(description="A page that explains the code")
    title: str
    status: int
    detail: str
    instance: str = Field(description="The request id")
    retryable: bool | None = None


class NotFoundBody(BaseModel):
    """The public read 404 body, exactly as SPEC.md gives it."""

    model_config = ConfigDict(defer_build=True)

    error: str = Field(examples=["not_found"])
    slug: str


_CODES = {
    "missing": "missing",
    "extra_forbidden": "unknown_field",
    "string_too_long": "too_long",
    "too_long": "too_many",
    "too_short": "too_few",
    "string_too_short": "too_short",
    "string_pattern_mismatch": "invalid_format",
    "union_tag_invalid": "unknown_block_type",
    "union_tag_not_found": "missing",
}


def field_path(loc: Sequence[int | str]) -> str:
    """A pydantic location as a dotted path; discriminated-union tags are dropped."""
    parts: list[str] = []
    for index, part in enumerate(loc):
        # The tag pydantic inserts after a list index; a field of that name (quote.quote) stays.
        after_index = index > 0 and isinstance(loc[index - 1], int)
        if isinstance(part, str) and part in _UNION_TAGS and after_index:
            continue
        parts.append(str(part))
    return ".".join(parts)


_UNION_TAGS = frozenset(
    {"hero", "logos", "stats", "features", "steps", "quote", "richtext", "faq", "leadform", "cta"}
)


def issues_from_errors(errors: Iterable[ErrorDetails], *, prefix: str = "") -> list[Issue]:
    """Pydantic's errors as our issues, each naming its field."""
    issues: list[Issue] = []
    for err in errors:
        path = field_path(err["loc"])
        if prefix:
            path = f"{prefix}.{path}" if path else prefix
        code = _CODES.get(
            err["type"],
            "invalid_type"
            if err["type"].endswith("_type") or err["type"].endswith("_parsing")
            else err["type"],
        )
        issues.append(Issue(field=path, code=code, message=_message(err)))
    return issues


def _message(err: ErrorDetails) -> str:
    ctx: dict[str, Any] = dict(err.get("ctx") or {})
    if err["type"] == "extra_forbidden":
        return "unknown field"
    if err["type"] == "missing":
        return "required"
    for bound, words in (("max_length", "at most"), ("min_length", "at least")):
        if bound in ctx:
            unit = "character" if err["type"].startswith("string") else "item"
            count = ctx[bound]
            return f"{words} {count} {unit}" + ("" if count == 1 else "s")
    return str(err["msg"])
