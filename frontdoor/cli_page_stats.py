"""`frontdoor pages stats SLUG`: a page's funnel as the operator sees it, with a small bar
chart (services/page_stats.py, the same answer as the Content API's `.../stats`)."""

from __future__ import annotations

from datetime import datetime

import click
from rich.console import Console
from rich.table import Table

from backends.ports import NotFoundError
from frontdoor.cli_page_admin import OPERATOR
from frontdoor.cli_pages import backends_for
from frontdoor.settings import Settings
from schemas.content.page_stats import STATS_BY, FunnelFigures, PageStatsBody, StatsBy
from services import page_stats

__all__ = ["stats"]

BAR_WIDTH = 30


@click.command("stats")
@click.argument("slug")
@click.option("--days", type=int, default=None, help="The last N days up to today (UTC) [28]")
@click.option("--since", type=click.DateTime(["%Y-%m-%d"]), default=None, help="First day")
@click.option("--until", type=click.DateTime(["%Y-%m-%d"]), default=None, help="Last day")
@click.option("--by", type=click.Choice(STATS_BY), default=None, help="One row per day or value")
@click.pass_context
def stats(
    ctx: click.Context,
    slug: str,
    days: int | None,
    since: datetime | None,
    until: datetime | None,
    by: StatsBy | None,
) -> None:
    """Print SLUG's funnel: page views, unique visitors, CTA clicks, lead forms, conversion."""
    backends = backends_for(ctx, Settings(), workers=False)
    try:
        body = page_stats.page_funnel(
            pages=backends.pages,
            signals=backends.signals,
            slug=slug,
            editor=OPERATOR,
            today=backends.clock().date(),
            days=days,
            since=since.date() if since else None,
            until=until.date() if until else None,
            by=by,
        )
    except NotFoundError:
        click.echo(f"no page {slug}", err=True)
        ctx.exit(1)
    except page_stats.StatsQueryError as err:
        for issue in err.issues:
            click.echo(f"--{issue.field}: {issue.message} ({issue.code})", err=True)
        ctx.exit(2)
    print_funnel(body, Console(width=100))


def print_funnel(body: PageStatsBody, console: Console) -> None:
    """The totals as a funnel of bars, then the rows of `by` with a bar of their views."""
    console.print(f"{body.slug}: {body.since} to {body.until} ({body.days} days, UTC)")
    totals = body.totals
    steps = [
        ("page views", totals.page_views),
        ("unique visitors", totals.unique_visitors),
        ("CTA clicks", totals.cta_clicks),
        ("lead forms", totals.lead_forms),
    ]
    top = max(n for _, n in steps)
    funnel = Table("", "count", "", box=None)
    for name, n in steps:
        funnel.add_row(name, str(n), _bar(n, top))
    console.print(funnel)
    console.print(f"conversion: {_rate(totals)} (lead forms per unique visitor)")
    if body.by is None:
        return
    rows = Table(body.by, "views", "visitors", "clicks", "leads", "conversion", "views")
    widest = max((r.page_views for r in body.rows), default=0)
    for row in body.rows:
        rows.add_row(
            row.key,
            str(row.page_views),
            str(row.unique_visitors),
            str(row.cta_clicks),
            str(row.lead_forms),
            _rate(row),
            _bar(row.page_views, widest),
        )
    console.print(rows)


def _bar(n: int, top: int) -> str:
    return "█" * round(BAR_WIDTH * n / top) if top else ""


def _rate(figures: FunnelFigures) -> str:
    rate = figures.conversion_rate
    return "n/a (no visitor)" if rate is None else f"{rate:.2%}"
