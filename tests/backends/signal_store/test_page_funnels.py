"""Signal store contract, continued (both backends): each page's funnel, folded as events are
stored, equals a count taken from a fresh walk of the stream (content-api.md "A page's
funnel")."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from backends.ports import SignalStore, StreamQuery
from schemas.signals.events import Event, NewEvent
from schemas.signals.page_funnel import Figures, day_number, read_funnel
from tests.backends.signal_store.conftest import EPOCH, event

PAGES = ("audit", "pricing", "demo")
TODAY = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)


def seeded_traffic(rng: random.Random, count: int) -> list[NewEvent]:
    """A day of traffic and the two before it: page views, clicks and lead forms on three
    pages from 40 visitors (some without a visitor id), with sources, campaigns and variants,
    and events that belong to no page's funnel (another path, another type)."""
    visitors = [f"visitor{i:04d}" for i in range(40)]
    out = []
    for i in range(count):
        kind = rng.choices(["page_view", "cta_click", "lead_form", "article_read"], [7, 2, 1, 1])[0]
        path = rng.choice([*(f"/p/{p}" for p in PAGES), "/blog/notes", "/p/audit/"])
        picked = {
            "visitor_id": rng.choice([*visitors, None]),
            "utm_source": rng.choice([None, "li", "news"]),
            "utm_campaign": rng.choice([None, "q4", "spring"]),
            "variant": rng.choice([None, "bold", "calm"]),
        }
        properties = {name: value for name, value in picked.items() if value is not None}
        when = TODAY - timedelta(days=rng.choice([0, 0, 0, 1, 2]), minutes=rng.randrange(600))
        out.append(
            event(
                f"t{i}",
                type=kind,
                email=None,
                path=path,
                occurred_at=when,
                source="site",
                properties=properties,
            )
        )
    return out


def stream_of(store: SignalStore) -> list[Event]:
    """Every stored event, by a fresh walk of the stream."""
    events: list[Event] = []
    after = EPOCH
    while True:
        page = store.read_stream(StreamQuery(after=after, forward=True, limit=200))
        events += reversed(page.events)
        after = page.last or after
        if not page.has_more:
            return events


def counted(events: list[Event], slug: str, first: date, last: date, by: str | None) -> Any:
    """The funnel counted from the events themselves: totals and rows, as dictionaries."""

    def value(e: Event, name: str) -> str:
        found = e.properties.get(name)
        return str(found) if found else ("control" if name == "variant" else "(none)")

    keyed: dict[str, list[Event]] = {"": []}
    for e in events:
        on_page = e.page.path in (f"/p/{slug}", f"/p/{slug}/")
        if not on_page or e.type not in ("page_view", "cta_click", "lead_form"):
            continue
        if not first <= e.occurred_at.date() <= last:
            continue
        keyed[""].append(e)
        if by == "day":
            keyed.setdefault(e.occurred_at.date().isoformat(), []).append(e)
        elif by is not None:
            field_name = {"source": "utm_source", "campaign": "utm_campaign"}.get(by, by)
            keyed.setdefault(value(e, field_name), []).append(e)

    def figures(group: list[Event]) -> tuple[int, int, int, int]:
        kinds = Counter(e.type for e in group)
        visitors = {e.properties["visitor_id"] for e in group if "visitor_id" in e.properties}
        return kinds["page_view"], len(visitors), kinds["cta_click"], kinds["lead_form"]

    return figures(keyed.pop("")), {k: figures(g) for k, g in keyed.items()}


def folded(store: SignalStore, slug: str, first: date, last: date, by: str | None) -> Any:
    """The funnel as the store's roll-ups give it."""
    a, b = day_number(first), day_number(last)
    rows = store.read_page_funnel(slug, first_day=a, last_day=b, dimension=by)
    totals, breakdown = read_funnel(rows, first=a, last=b, by=by)

    def figures(f: Figures) -> tuple[int, int, int, int]:
        return f.views, f.visitors, f.clicks, f.leads

    empty = (0, 0, 0, 0)
    return figures(totals), {k: figures(f) for k, f in breakdown if figures(f) != empty}


@pytest.mark.spec("content.page_stats")
def test_each_pages_funnel_equals_a_count_from_a_fresh_walk_of_the_stream(
    store: SignalStore,
) -> None:
    """Seeded traffic over three days, stored in shuffled batches with redeliveries: every
    page's figures, for each range and breakdown, are what counting the stream gives."""
    rng = random.Random(26)  # noqa: S311  # test data, not secrets
    events = seeded_traffic(rng, 500)
    rng.shuffle(events)  # days arrive out of order
    start = 0
    while start < len(events):
        size = rng.randrange(1, 30)  # transactions well inside the emulator's deadline
        resent = events[max(0, start - 5) : start]  # a redelivery overlapping the last batch
        store.store_events(resent + events[start : start + size])
        start += size
    store.store_events(events[:50])  # a source re-sending a whole batch

    stream = stream_of(store)
    today = TODAY.date()
    ranges = [(today, today), (today - timedelta(days=1), today), (today - timedelta(2), today)]
    checks = [
        (slug, first, last, by)
        for slug in PAGES
        for first, last in ranges
        for by in (None, "day", "source", "campaign", "variant")
    ]
    assert len(stream) == 500
    for slug, first, last, by in checks:
        assert folded(store, slug, first, last, by) == counted(stream, slug, first, last, by), (
            slug,
            first,
            last,
            by,
        )


@pytest.mark.spec("content.page_stats")
def test_visitors_back_after_any_gap_count_once_in_every_range_up_to_366_days(
    store: SignalStore,
) -> None:
    """Visitors who come back after a day, a month or more than a year (the longest range a
    read may ask): every range, up to 366 days long, counts each of them once, as counting the
    stream does; and a read gives one visit row per day and value, however many gaps are
    behind it."""
    rng = random.Random(366)  # noqa: S311  # test data, not secrets
    today = TODAY.date()
    events = []
    for v in range(12):
        days = {rng.randrange(800) for _ in range(rng.randrange(2, 7))} | {400 - v, 366 + v}
        for back in sorted(days):
            properties = {
                "visitor_id": f"visitor-back{v:02d}",
                "utm_source": rng.choice(["li", "news"]),
            }
            events.append(
                event(
                    f"g{v}-{back}",
                    type="page_view",
                    email=None,
                    path="/p/audit",
                    occurred_at=TODAY - timedelta(days=back),
                    source="site",
                    properties=properties,
                )
            )
    rng.shuffle(events)  # late arrivals move later days' gaps
    for start in range(0, len(events), 5):
        store.store_events(events[start : start + 5])

    stream = stream_of(store)
    windows = [(366, 0), (366, 30), (366, 400), (365, 1), (200, 150), (28, 370), (2, 366)]
    for length, end in windows:
        last = today - timedelta(days=end)
        first = last - timedelta(days=length - 1)
        for by in (None, "source"):
            assert folded(store, "audit", first, last, by) == counted(
                stream, "audit", first, last, by
            ), (first, last, by)
        rows = store.read_page_funnel(
            "audit", first_day=day_number(first), last_day=day_number(last), dimension="source"
        )
        keys = [(day, dimension, value) for day, dimension, value, *_ in rows.visits]
        assert len(keys) == len(set(keys))
