"""GET /api/public/content/pages/{slug}/stats: a page's funnel (services/page_stats.py).

Parses the query (every bad parameter named at once, 400 `invalid_query`), calls the use case
and renders its body; the range rules and who may see a page are the service's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date, datetime

from flask import Blueprint, Response, request

from api.auth import KeyCheck
from api.errors import answer_unavailable, invalid_query, not_found
from backends.ports import NotFoundError, PageStore, SignalStore
from domain.numbers import ascii_whole_number
from schemas.content.page_stats import STATS_BY, StatsBy
from schemas.errors import Issue
from services import page_stats

PREFIX = "/api/public/content/pages"
STATS_PARAMS = frozenset({"days", "since", "until", "by"})


def create_page_stats_blueprint(
    *, pages: PageStore, signals: SignalStore, clock: Callable[[], datetime], keys: KeyCheck
) -> Blueprint:
    """The funnel route, beside the Content API's page routes (same key, same lanes)."""
    bp = Blueprint("page_stats", __name__, url_prefix=PREFIX)
    answer_unavailable(bp, "The signal store is unavailable; retry")

    @bp.get("/<slug>/stats")
    def page_funnel(slug: str) -> Response:
        principal = keys.require("content")
        days, since, until, by = _stats_query(request.args)
        editor = principal.editor
        try:
            body = page_stats.page_funnel(
                pages=pages,
                signals=signals,
                slug=slug,
                editor=editor,
                today=clock().date(),
                days=days,
                since=since,
                until=until,
                by=by,
            )
        except NotFoundError as err:
            # Another partner's page answers exactly as a slug nobody has.
            raise not_found(f"No page {slug!r}") from err
        return Response(body.model_dump_json(), status=200, mimetype="application/json")

    return bp


def _stats_query(
    args: Mapping[str, str],
) -> tuple[int | None, date | None, date | None, StatsBy | None]:
    issues = [
        Issue(field=name, code="unknown_parameter", message="not a parameter of this endpoint")
        for name in sorted(set(args) - STATS_PARAMS)
    ]
    days = None
    if "days" in args:
        days = ascii_whole_number(args["days"], max_digits=9)
        if days is None:
            issues.append(Issue(field="days", code="invalid_format", message="a whole number"))
    since, until = (_date(args, name, issues) for name in ("since", "until"))
    by = next((b for b in STATS_BY if b == args.get("by")), None)
    if "by" in args and by is None:
        issues.append(
            Issue(field="by", code="invalid_format", message="one of " + "|".join(STATS_BY))
        )
    if issues:
        raise invalid_query(issues)
    return days, since, until, by


def _date(args: Mapping[str, str], name: str, issues: list[Issue]) -> date | None:
    raw = args.get(name)
    if raw is None:
        return None
    try:
        if len(raw) == 10:
            return date.fromisoformat(raw)
    except ValueError:
        pass
    issues.append(Issue(field=name, code="invalid_format", message="a date, YYYY-MM-DD"))
    return None
