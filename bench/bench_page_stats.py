"""Page stats (embedded): reading a page's funnel at 1,000,000 stored events vs 10,000.

Two SQLite signal stores are filled through SqliteSignalStore.store_events, the same path
ingest takes (each event stored, the account roll-ups and each page's roll-ups folded in the
same transaction), in batches of BATCH events generated as they are stored: bigger batches
than ingest's are the fast path, as each transaction's fixed cost is paid once per BATCH
events, while every event still goes through the real fold. The traffic: page views, CTA
clicks and lead forms on 50 pages over 30 days, from a pool of visitors who come back on other
days, with sources, campaigns and variants. Then one page's funnel is read (the store's
read_page_funnel and schemas/signals/page_funnel.py's read_funnel: what services/page_stats.py
does after the page lookup) over the last 28 days, in total and by day, source, campaign and
variant: the median of READS reads of each, at LARGE as a ratio to SMALL, in the same run
(goal <= 1.3x). The page's own traffic grows with the store (a 50th of it), so the read's cost
is what it is because it reads roll-ups, not because the page stayed small.
BENCH_PAGE_STATS_LARGE sets the large store's size (1,000,000 by default; filling it takes some
minutes).
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from backends.embedded.signals import SqliteSignalStore
from backends.embedded.sqlite import SqliteDatabase
from schemas.signals.events import NewEvent, Page
from schemas.signals.page_funnel import day_number, read_funnel

SMALL, LARGE = 10_000, int(os.environ.get("BENCH_PAGE_STATS_LARGE", "1000000"))
PAGES = 50
VISITORS_PER_EVENT = 0.2  # a pool of a fifth as many visitors as events
DAYS, WINDOW = 30, 28
BATCH = 2000
READS = 200
GOAL = 1.3
SHAPES: tuple[str | None, ...] = (None, "day", "source", "campaign", "variant")
NOW = datetime(2026, 11, 28, 18, 0, tzinfo=UTC)


def traffic(count: int, seed: int = 26) -> Iterator[list[NewEvent]]:
    """`count` page events on PAGES pages, spread over DAYS days before NOW, BATCH at a time."""
    rng = random.Random(seed)  # noqa: S311  # bench data, not secrets
    visitors = max(10, int(count * VISITORS_PER_EVENT))
    for start in range(0, count, BATCH):
        size = min(BATCH, count - start)
        kinds = rng.choices(["page_view", "cta_click", "lead_form"], [8, 2, 1], k=size)
        batch = []
        for i, kind in enumerate(kinds, start):
            properties: dict[str, Any] = {"visitor_id": f"visitor{rng.randrange(visitors):08d}"}
            source = rng.choice([None, "li", "news", "google"])
            if source:
                properties["utm_source"] = source
            campaign = rng.choice([None, "launch", "q4", "webinar"])
            if campaign:
                properties["utm_campaign"] = campaign
            if rng.random() < 0.5:
                properties["variant"] = "bold"
            slug = f"page-{rng.randrange(PAGES)}"
            batch.append(
                NewEvent(
                    id=f"site:bench{i}",
                    type=kind,
                    source="site",
                    occurred_at=NOW - timedelta(minutes=rng.randrange(DAYS * 24 * 60)),
                    page=Page(path=f"/p/{slug}"),
                    properties=properties,
                )
            )
        yield batch


def filled_store(path: Path, count: int) -> SqliteSignalStore:
    store = SqliteSignalStore(SqliteDatabase(path), clock=lambda: NOW)
    for batch in traffic(count):
        store.store_events(batch)
    return store


def read_times(store: SqliteSignalStore, by: str | None, reads: int) -> list[float]:
    """Seconds each read of page-0's funnel over the last WINDOW days took."""
    last = day_number(NOW.date())
    first = last - WINDOW + 1
    times = []
    for _ in range(reads):
        start = time.perf_counter()
        rows = store.read_page_funnel("page-0", first_day=first, last_day=last, dimension=by)
        read_funnel(rows, first=first, last=last, by=by)
        times.append(time.perf_counter() - start)
    return times


def measure(small: int, large: int, reads: int = READS) -> dict[str, Any]:
    """Median read times (µs) of each shape at both sizes, and the seconds the fills took."""
    figures: dict[str, Any] = {"events": {"small": small, "large": large}, "median_us": {}}
    with tempfile.TemporaryDirectory() as folder:
        fill: dict[str, float] = {}
        stores = {}
        for name, count in (("small", small), ("large", large)):
            start = time.perf_counter()
            stores[name] = filled_store(Path(folder) / f"{name}.sqlite3", count)
            fill[name] = round(time.perf_counter() - start, 1)
        figures["fill_seconds"] = fill
        for by in SHAPES:
            key = by or "totals"
            # Alternate sizes so a busy neighbour on the shared cores hits both alike.
            samples: dict[str, list[float]] = {"small": [], "large": []}
            for _ in range(4):
                for name in ("small", "large"):
                    samples[name] += read_times(stores[name], by, reads // 4)
            figures["median_us"][key] = {
                name: round(statistics.median(s) * 1e6, 1) for name, s in samples.items()
            }
    return figures


def report(figures: dict[str, Any]) -> dict[str, Any]:
    """Each shape's large/small ratio against the goal."""
    ratios = {key: round(m["large"] / m["small"], 2) for key, m in figures["median_us"].items()}
    return {
        **figures,
        "ratios": ratios,
        "goal": GOAL,
        "goals_met": {key: ratio <= GOAL for key, ratio in ratios.items()},
    }


def main() -> dict[str, Any]:
    print(  # the bench's own report
        f"page stats: filling stores of {SMALL:,} and {LARGE:,} events through store_events,"
        f" {BATCH:,} a batch, then {READS} reads of each shape at each size"
    )
    result = report(measure(SMALL, LARGE))
    for key, ratio in result["ratios"].items():
        m = result["median_us"][key]
        flag = "" if result["goals_met"][key] else "  (goal missed)"
        print(  # the bench's own report
            f"page stats {key}: {m['small']} µs at {SMALL:,} events, {m['large']} µs at"
            f" {LARGE:,}: {ratio}x (goal <= {GOAL}x){flag}"
        )
    return result
