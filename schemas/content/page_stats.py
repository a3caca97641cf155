"""A page's funnel as the Content API answers it (`GET .../pages/{slug}/stats`) and the MCP
tool `page_funnel` returns it: totals over a range of days and, with `by`, one row per day or
per source, campaign or variant. services/page_stats.py builds it."""

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

StatsBy = Literal["day", "source", "campaign", "variant"]
STATS_BY: tuple[StatsBy, ...] = ("day", "source", "campaign", "variant")


class FunnelFigures(BaseModel):
    """A page's funnel over some days."""

    model_config = ConfigDict(defer_build=True)

    page_views: int = Field(description="`page_view` events on /p/{slug}")
    unique_visitors: int = Field(
        description="Distinct beacon visitor ids with any event on the page in these days"
    )
    cta_clicks: int = Field(description="`cta_click` events: clicks on the page's buttons")
    lead_forms: int = Field(description="`lead_form` events: the page's form, sent")
    conversion_rate: float | None = Field(
        description="lead_forms / unique_visitors, rounded to 4 places; null when there is no "
        "visitor (forms sent with JavaScript off carry no visitor id, so it may exceed 1)",
        examples=[0.0417],
    )


class FunnelRow(FunnelFigures):
    """One row of `by`: a day (`YYYY-MM-DD`, UTC) or a source, campaign or variant."""

    key: str = Field(
        description="The day, or the utm_source / utm_campaign value (`(none)` without one, "
        "`(other)` past the most viewed MAX_ROWS), or the variant (`control` without one)",
        examples=["2026-11-27", "linkedin", "control"],
    )


class PageStatsBody(BaseModel):
    """GET /api/public/content/pages/{slug}/stats."""

    model_config = ConfigDict(defer_build=True)

    ok: Literal[True] = True
    slug: str
    since: date = Field(description="The first day counted (UTC)")
    until: date = Field(description="The last day counted (UTC), included")
    days: int = Field(description="Days in the range")
    by: StatsBy | None = None
    totals: FunnelFigures
    rows: list[FunnelRow] = Field(
        default_factory=list,
        description="With `by`: every day of the range, oldest first; or the values, most "
        "viewed first. Empty without `by`",
    )
