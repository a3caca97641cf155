"""Query parameters of the Signal API read endpoints, parsed into port queries or 400 issues."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TypeVar, get_args

from api.errors import invalid_query
from backends.ports import AccountPosition, AccountQuery, AccountSort, StreamQuery
from domain.numbers import ascii_whole_number
from schemas.errors import Issue
from schemas.signals.events import (
    EVENT_TYPES,
    MAX_INT64,
    Position,
    normalize_domain,
    normalize_email,
    parse_since,
    split_words,
)
from schemas.signals.rollups import STAGES, Stage, stages_at_or_above
from schemas.signals.scores import heat_log_for_score
from schemas.signals.webhooks import DeliveryStatusName

DEFAULT_DAYS = 7
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MAX_DAYS = 365
# Campaign filters: events whose site properties hold this value (api/rest/collect.py keeps them).
PROPERTY_PARAMS = ("utm_campaign", "utm_source")
# The filters of the stream and of /signals/latest (which has no window: it is the newest).
FILTER_PARAMS = frozenset({"type", "domain", "email", "q", "path", "limit", *PROPERTY_PARAMS})
STREAM_PARAMS = FILTER_PARAMS | {"since", "until", "days"}
LATEST_PARAMS = FILTER_PARAMS
LATEST_LIMIT = 20
ACCOUNT_PARAMS = frozenset(
    {"since", "days", "active_days", "stage", "limit", "sort", "min_score", "cursor"}
)
SORTS: tuple[AccountSort, ...] = ("recent", "score")
DELIVERY_PARAMS = frozenset({"status", "limit"})
DELIVERY_STATUSES: tuple[DeliveryStatusName, ...] = get_args(DeliveryStatusName)
T = TypeVar("T")


@dataclass(frozen=True)
class ParsedStream:
    """The port query and the position to answer with when no event comes back."""

    query: StreamQuery
    start: Position


class _Issues:
    def __init__(self, args: Mapping[str, str], allowed: frozenset[str]) -> None:
        self.args = args
        self.issues = [
            Issue(field=name, code="unknown_parameter", message="not a parameter of this endpoint")
            for name in sorted(set(args) - allowed)
        ]

    def take(self, name: str, parse: Callable[[str], T | None], message: str) -> T | None:
        raw = self.args.get(name)
        if raw is None:
            return None
        value = parse(raw)
        if value is None:
            self.issues.append(Issue(field=name, code="invalid_format", message=message))
        return value

    def number(self, name: str, default: int, low: int, high: int) -> int:
        raw = self.args.get(name)
        if raw is None:
            return default
        value = ascii_whole_number(raw, max_digits=9)
        if value is None or not low <= value <= high:
            self.issues.append(
                Issue(field=name, code="out_of_range", message=f"a whole number {low}-{high}")
            )
            return default
        return value

    def check(self) -> None:
        if self.issues:
            raise invalid_query(self.issues)


def _types(raw: str) -> tuple[str, ...] | None:
    names = tuple(dict.fromkeys(t.strip() for t in raw.split(",") if t.strip()))
    return names if names and all(n in EVENT_TYPES for n in names) else None


def _until(raw: str) -> datetime | None:
    position = parse_since(raw)
    return position.recorded_at if position else None


def _short_text(raw: str) -> str | None:
    return raw if 0 < len(raw) <= 200 else None


def _stage(raw: str) -> Stage | None:
    return next((s for s in STAGES if s == raw), None)


def _path(raw: str) -> str | None:
    return raw if raw.startswith("/") and len(raw) <= 500 else None


def _filters(p: _Issues, *, default_limit: int) -> StreamQuery:
    """The stream's filters and limit, as a query with no bounds yet."""
    types = p.take("type", _types, "event types, comma-separated: " + ", ".join(EVENT_TYPES))
    domain = p.take("domain", normalize_domain, "a domain such as acme.com")
    email = p.take("email", normalize_email, "an email address")
    q = p.take("q", lambda raw: raw if len(raw) <= 200 else None, "at most 200 characters")
    path = p.take("path", _path, "a page path: / and at most 500 characters")
    limit = p.number("limit", default_limit, 1, 1000)
    properties = tuple(
        (name, value)
        for name in PROPERTY_PARAMS
        if (value := p.take(name, _short_text, "1-200 characters")) is not None
    )
    return StreamQuery(
        types=types or (),
        domain=domain,
        email=email,
        words=tuple(dict.fromkeys(split_words(q or ""))),
        properties=properties,
        path=path,
        limit=limit,
    )


def parse_latest_query(args: Mapping[str, str]) -> StreamQuery:
    """GET /signals/latest parameters: the stream's filters, no window, the newest first.
    Raises: ApiError 400 `invalid_query`."""
    p = _Issues(args, LATEST_PARAMS)
    query = _filters(p, default_limit=LATEST_LIMIT)
    p.check()
    return query


def parse_stream_query(args: Mapping[str, str], *, now: datetime) -> ParsedStream:
    """GET /signals parameters. Raises: ApiError 400 `invalid_query` naming each bad one."""
    p = _Issues(args, STREAM_PARAMS)
    since = p.take("since", parse_since, "an ISO-8601 time or a next_since cursor")
    until = p.take("until", _until, "an ISO-8601 time")
    days = p.number("days", DEFAULT_DAYS, 1, MAX_DAYS)
    filters = _filters(p, default_limit=100)
    p.check()
    window = Position(recorded_at=now - timedelta(days=days))
    after = since or window
    if since is not None and "days" in args and window.recorded_at > since.recorded_at:
        after = window  # an explicit days narrows an older since
    # Without since, the window start is the since: the same forward walk.
    query = dataclasses.replace(filters, after=after, until=until, forward=True)
    return ParsedStream(query=query, start=after)


def parse_account_query(args: Mapping[str, str], *, now: datetime) -> AccountQuery:
    """GET /signals/accounts parameters. Raises: ApiError 400 `invalid_query`.

    `sort=score` takes no default window (a score already fades with time): only an explicit
    `since` or `days` narrows it. Neither does `active_days` (when the latest touch happened,
    `occurred_at`): the recorded-at window is then only what `since` or `days` ask for.
    """
    p = _Issues(args, ACCOUNT_PARAMS)
    since = p.take("since", parse_since, "an ISO-8601 time or a next_since cursor")
    days = p.number("days", DEFAULT_DAYS, 1, MAX_DAYS)
    active_days = p.number("active_days", 0, 1, MAX_DAYS)
    stage: Stage | None = p.take("stage", _stage, "one of " + ", ".join(STAGES))
    limit = p.number("limit", 50, 1, 500)
    sort: AccountSort = p.take("sort", _sort, "recent or score") or "recent"
    min_score = p.number("min_score", 0, 0, 100)
    after = p.take("cursor", lambda raw: decode_account_cursor(raw, sort), "a next_cursor")
    p.check()
    active_since = since.recorded_at if since else now - timedelta(days=days)
    if since is not None and "days" in args:
        active_since = max(active_since, now - timedelta(days=days))
    explicit_window = since is not None or "days" in args
    if (sort == "score" or "active_days" in args) and not explicit_window:
        active_since = EPOCH
    return AccountQuery(
        active_since=active_since,
        seen_since=now - timedelta(days=active_days) if active_days else None,
        stages=stages_at_or_above(stage) if stage else (),
        limit=limit,
        sort=sort,
        min_heat_log=heat_log_for_score(min_score, now),
        after=after,
    )


def parse_deliveries_query(args: Mapping[str, str]) -> tuple[DeliveryStatusName | None, int]:
    """GET .../webhooks/{id}/deliveries parameters: `status` and `limit`, named with the codes
    of the other reads. Raises: ApiError 400 `invalid_query`."""
    p = _Issues(args, DELIVERY_PARAMS)
    status: DeliveryStatusName | None = p.take(
        "status", _delivery_status, "one of " + ", ".join(DELIVERY_STATUSES)
    )
    limit = p.number("limit", 100, 1, 500)
    p.check()
    return status, limit


def _delivery_status(raw: str) -> DeliveryStatusName | None:
    return next((s for s in DELIVERY_STATUSES if s == raw), None)


def _sort(raw: str) -> AccountSort | None:
    return next((s for s in SORTS if s == raw), None)


def encode_account_cursor(sort: AccountSort, position: AccountPosition) -> str:
    """The opaque `next_cursor` of the accounts list."""
    raw = json.dumps([sort, position.key, position.domain], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_account_cursor(value: str, sort: AccountSort) -> AccountPosition | None:
    """A next_cursor of a list in this `sort`, or None."""
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        given, key, domain = json.loads(raw)
    except (binascii.Error, ValueError, TypeError):
        return None
    if given != sort or not isinstance(domain, str) or not _cursor_key(key, sort):
        return None
    return AccountPosition(key=key, domain=domain)


def _cursor_key(key: object, sort: AccountSort) -> bool:
    """A key this sort's cursors carry: `recent`, microseconds as a stored whole number (signed
    64-bit, as SQLite and Firestore keep them); `score`, a finite heat_log."""
    if isinstance(key, bool):
        return False
    if isinstance(key, int):
        return (0 if sort == "recent" else -MAX_INT64) <= key <= MAX_INT64
    return sort == "score" and isinstance(key, float) and math.isfinite(key)


def refuse_parameters(args: Mapping[str, str], allowed: frozenset[str] = frozenset()) -> None:
    """For endpoints that take no query parameter (or only `allowed`): any other is named as
    `unknown_parameter`, so a typo never widens or changes a request.

    Raises: ApiError 400 `invalid_query`.
    """
    _Issues(args, allowed).check()
