"""Content API bodies of a page's variants and its traffic allocation.

A variant's `page` is a SitePageInput (schemas/content/pages.py), checked by the same gate as
the page; its `slug` is the page's and may be left out.
"""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from domain.variants import VARIANT_ID_PATTERN
from schemas.content.pages import GateResult, ScheduleTime
from schemas.errors import Issue


class VariantInput(BaseModel):
    """POST .../pages/{slug}/variants."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str | None = Field(
        default=None,
        pattern=VARIANT_ID_PATTERN,
        description="Left out: the first free of b, c, d, ...; never `control`",
        examples=["b"],
    )
    page: dict[str, Any] = Field(
        description="A whole page content (SitePageInput); the slug is the page's"
    )
    start_at: ScheduleTime | None = Field(
        default=None,
        description="RFC 3339 with an offset: before it the variant gets no traffic (its share"
        " goes to the other arms, as if it did not exist); from it, it enters the allocation."
        " Left out or null: at once. A time already past is taken as started",
        examples=["2026-12-01T09:00:00+01:00"],
    )


class VariantPatch(BaseModel):
    """PATCH .../pages/{slug}/variants/{id}: a merge patch of `page`, and `start_at` set or
    cleared (null)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str | None = None
    page: dict[str, Any] = Field(default_factory=dict)
    start_at: ScheduleTime | None = None


class VariantRecord(BaseModel):
    """A stored variant."""

    model_config = ConfigDict(defer_build=True)

    id: str
    slug: str
    version: int = Field(ge=1, description="Grows by one per write; the strong ETag is from it")
    page: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    start_at: datetime | None = Field(
        default=None, description="Before it the variant gets no traffic; null: no wait"
    )
    gate: GateResult


class VariantBody(BaseModel):
    """GET, POST and PATCH of one variant."""

    model_config = ConfigDict(defer_build=True)

    ok: Literal[True] = True
    variant: VariantRecord
    warnings: list[Issue] = Field(default_factory=list)


class VariantListBody(BaseModel):
    """GET .../pages/{slug}/variants: every variant of the page (at most 4), by id."""

    model_config = ConfigDict(defer_build=True)

    ok: Literal[True] = True
    variants: list[VariantRecord]


class AllocationInput(BaseModel):
    """PUT .../pages/{slug}/allocation: fixed shares in percent, summing to 100; or adaptive
    (no shares: the allocator sets them from each arm's conversions)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    mode: Literal["fixed", "adaptive"] = "fixed"
    shares: dict[str, float] = Field(
        default_factory=dict,
        description="fixed: percent of visitors by arm, `control` (the page itself) and variant"
        " ids; an arm left out gets none. adaptive: left out (GET .../experiment shows the"
        " shares the allocator set)",
        examples=[{"control": 50, "b": 50}],
    )


class AllocationRecord(BaseModel):
    """A page's allocation as stored."""

    model_config = ConfigDict(defer_build=True)

    slug: str
    mode: Literal["fixed", "adaptive"]
    shares: dict[str, float]
    version: int = Field(ge=0, description="0 while none was set (every visitor sees the control)")
    updated_at: datetime | None = None


class AllocationBody(BaseModel):
    """GET and PUT of a page's allocation."""

    model_config = ConfigDict(defer_build=True)

    ok: Literal[True] = True
    allocation: AllocationRecord
