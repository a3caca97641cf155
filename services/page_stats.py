"""A page's funnel (views, unique visitors, CTA clicks, lead forms, conversion): the range
rules and the answer, shared by the Content API, the MCP tool `page_funnel` and the CLI.

The figures come from the roll-ups the signal store keeps per page as events are stored
(schemas/signals/page_funnel.py), never from the events. Who may see a page's stats is who may
see the page (services/pages.py): another partner's page is NotFoundError.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from backends.ports import PageStore, SignalStore
from schemas.content.page_stats import FunnelFigures, FunnelRow, PageStatsBody, StatsBy
from schemas.errors import Issue
from schemas.signals.page_funnel import LOOK_BACK_DAYS, Figures, day_number, read_funnel
from services.pages import Editor, find_page

DEFAULT_DAYS = 28
MAX_DAYS = LOOK_BACK_DAYS  # the roll-ups count each visitor once in ranges this long at most
MAX_ROWS = 100  # source and campaign rows past the most viewed are summed as OTHER
OTHER = "(other)"
FIRST_DAY = date(1970, 1, 1)


class StatsQueryError(Exception):
    """The range or breakdown asked for is refused; `issues` name each parameter."""

    def __init__(self, issues: list[Issue]) -> None:
        super().__init__(", ".join(i.field for i in issues))
        self.issues = issues


@dataclass(frozen=True)
class StatsRange:
    """The days counted, both included (UTC)."""

    since: date
    until: date


def stats_range(
    *, today: date, days: int | None = None, since: date | None = None, until: date | None = None
) -> StatsRange:
    """The range asked for: `days` up to today (28 by default), or `since`..`until` (`until`
    defaults to today; `since` alone to 28 days before `until`), at most MAX_DAYS days.

    Raises: StatsQueryError.
    """
    issues: list[Issue] = []
    if days is not None and (since is not None or until is not None):
        issues.append(_issue("days", "not_with_since", "days, or since/until, not both"))
    if days is not None and not 1 <= days <= MAX_DAYS:
        issues.append(_issue("days", "out_of_range", f"a whole number from 1 to {MAX_DAYS}"))
    latest = today + timedelta(days=1)  # a reader east of UTC is a day ahead
    for name, value in (("since", since), ("until", until)):
        if value is not None and not FIRST_DAY <= value <= latest:
            issues.append(_issue(name, "out_of_range", f"a date from 1970-01-01 to {latest}"))
    if issues:
        raise StatsQueryError(issues)
    if since is None and until is None:
        span = days or DEFAULT_DAYS
        return StatsRange(since=today - timedelta(days=span - 1), until=today)
    last = until or today
    first = since or max(FIRST_DAY, last - timedelta(days=DEFAULT_DAYS - 1))
    if first > last:
        raise StatsQueryError([_issue("since", "after_until", "on or before until")])
    if (last - first).days + 1 > MAX_DAYS:
        raise StatsQueryError([_issue("since", "out_of_range", f"at most {MAX_DAYS} days")])
    return StatsRange(since=first, until=last)


def page_funnel(
    *,
    pages: PageStore,
    signals: SignalStore,
    slug: str,
    editor: Editor,
    today: date,
    days: int | None = None,
    since: date | None = None,
    until: date | None = None,
    by: StatsBy | None = None,
) -> PageStatsBody:
    """The page's funnel over the range asked, in total and `by` day, source, campaign or
    variant. Raises: NotFoundError (no such page, or another partner's), StatsQueryError."""
    window = stats_range(today=today, days=days, since=since, until=until)
    find_page(pages=pages, slug=slug, editor=editor)
    first, last = day_number(window.since), day_number(window.until)
    rows = signals.read_page_funnel(slug, first_day=first, last_day=last, dimension=by)
    totals, breakdown = read_funnel(rows, first=first, last=last, by=by)
    if by in ("source", "campaign") and len(breakdown) > MAX_ROWS:
        breakdown = [*breakdown[: MAX_ROWS - 1], (OTHER, _summed(breakdown[MAX_ROWS - 1 :]))]
    return PageStatsBody(
        slug=slug,
        since=window.since,
        until=window.until,
        days=last - first + 1,
        by=by,
        totals=FunnelFigures(**_figures(totals)),
        rows=[FunnelRow(key=key, **_figures(f)) for key, f in breakdown],
    )


def conversion_rate(lead_forms: int, unique_visitors: int) -> float | None:
    """Lead forms per unique visitor, to 4 places; None without a visitor."""
    return round(lead_forms / unique_visitors, 4) if unique_visitors else None


def _figures(f: Figures) -> dict[str, int | float | None]:
    return {
        "page_views": f.views,
        "unique_visitors": f.visitors,
        "cta_clicks": f.clicks,
        "lead_forms": f.leads,
        "conversion_rate": conversion_rate(f.leads, f.visitors),
    }


def _summed(rows: list[tuple[str, Figures]]) -> Figures:
    total = Figures()
    for _, f in rows:
        total.views += f.views
        total.visitors += f.visitors
        total.clicks += f.clicks
        total.leads += f.leads
    return total


def _issue(name: str, code: str, message: str) -> Issue:
    return Issue(field=name, code=code, message=message)
