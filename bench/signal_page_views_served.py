"""The page-view figure as page views arrive: many browsers at once, over HTTP, to the
served process (`python -m frontdoor.serve`, as `make run` serves it).

wrk (WRK_ARGS: 32 connections, each a browser posting beacons back to back, from a process of
its own on the second core) POSTs page-view beacons to /api/public/v1/collect for RUN, each
with its own `id` and one of VISITORS visitor ids (bench/page_views.lua). The served process
checks the origin, counts every beacon against its per-visitor and per-address limits
(COLLECT_LIMIT_VISITOR and COLLECT_LIMIT_ADDRESS set above what the load reaches, as
bench_public_read sets RATE_LIMIT_PUBLIC: the limiter still runs and counts), validates it,
commits it to its queue file before the 202, and its ingest worker stores it. A round's clock
runs from starting wrk until the queue file holds no message and the store holds every page
view wrk saw answered (counted in DATA_DIR/frontdoor.sqlite3, read-only); page views/s are the
page views stored in that time. Against `store.store_events([event])` of as many page views,
one call per event as they arrive, in the same run (taking turns round by round). Any answer
but 202 (a 429 included) or a socket error fails the bench.
"""

from __future__ import annotations

import os
import re
import sqlite3
import statistics
import subprocess
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from backends.embedded.queue_table import QueueTable, queue_database
from backends.embedded.signals import SqliteSignalStore
from backends.embedded.sqlite import SqliteDatabase
from bench.bench_public_read import Served, wrk
from schemas.signals.events import NewEvent, normalize_event

COLLECT = "/api/public/v1/collect"
ORIGIN = "http://bench.local"
SCRIPT = Path(__file__).resolve().parent / "page_views.lua"
# The machine has 2 cores: one for the server, one for wrk (as bench_public_read).
WRK_ARGS = ("-t1", "-c32")
RUN, WARM_UP, ROUNDS = "5s", "2s", 3
VISITORS = 2000
FAR_ABOVE_THE_LOAD = "1000000000"


def beacon(i: int, visitor: str) -> dict[str, Any]:
    return {
        "id": f"b{uuid.uuid4().hex}",
        "type": "page_view",
        "page": {"url": f"http://bench.local/p/page-{i % 40}", "path": f"/p/page-{i % 40}"},
        "properties": {"visitor_id": visitor, "utm_source": "li", "utm_campaign": "q4"},
    }


def served_page_views(folder: Path) -> dict[str, Any]:
    """Median ratio over ROUNDS of page views/s served end to end against the direct store."""
    data_dir = folder / "served-page-views"
    data_dir.mkdir(parents=True, exist_ok=True)
    env = {
        "PUBLIC_BASE_URL": ORIGIN,
        "LOG_LEVEL": "WARNING",
        "COLLECT_LIMIT_VISITOR": FAR_ABOVE_THE_LOAD,
        "COLLECT_LIMIT_ADDRESS": FAR_ABOVE_THE_LOAD,
    }
    direct = SqliteSignalStore(SqliteDatabase(folder / "served-direct.sqlite3"))
    queue = QueueTable(queue_database(data_dir))
    rates: dict[str, list[float]] = {"end_to_end": [], "direct_store": []}
    ratios: list[float] = []
    with Served(["-m", "frontdoor.serve"], str(data_dir), env=env) as base:
        store = data_dir / "frontdoor.sqlite3"
        _wrk(base, "warm", WARM_UP)
        _until_stored(queue, store, _stored(store))
        for n in range(ROUNDS):
            before = _stored(store)
            began = time.perf_counter()
            answered = _wrk(base, f"r{n}", RUN)
            stored = _until_stored(queue, store, before + answered) - before
            served_rate = stored / (time.perf_counter() - began)
            events = _events(stored, f"r{n}")
            began = time.perf_counter()
            for event in events:
                direct.store_events([event])
            direct_rate = stored / (time.perf_counter() - began)
            rates["end_to_end"].append(served_rate)
            rates["direct_store"].append(direct_rate)
            ratios.append(served_rate / direct_rate)
        # Information: the same process answering wrk's GETs of /healthz (no body, no work):
        # what HTTP, granian and Flask cost a request before /collect does anything.
        empty = wrk(base + "/healthz", (), duration=RUN)
    return {
        "page_view_ingest_vs_direct_store": round(statistics.median(ratios), 3),
        "rounds": [round(r, 3) for r in ratios],
        "page_views_per_second": {
            name: round(statistics.median(found), 1) for name, found in rates.items()
        },
        "empty_route_per_second": round(empty, 1),
        "empty_route_vs_direct_store": round(empty / statistics.median(rates["direct_store"]), 3),
        "load": f"wrk {' '.join(WRK_ARGS)} -d{RUN}, {VISITORS} visitors; median of {ROUNDS}",
    }


def _wrk(base: str, run: str, duration: str) -> int:
    """Beacons wrk saw answered 202 in `duration`; anything else fails the bench."""
    env = {**os.environ, "BENCH_RUN": run, "BENCH_ORIGIN": ORIGIN, "BENCH_VISITORS": str(VISITORS)}
    # A browser's beacon waits longer than wrk's 2 s default: a slow answer is counted, not cut.
    cmd = ["wrk", *WRK_ARGS, "--timeout", "30s", f"-d{duration}", "-s", str(SCRIPT)]
    cmd.append(base + COLLECT)
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout
    if "Non-2xx or 3xx responses" in out or "Socket errors" in out:
        raise RuntimeError(f"wrk saw errors:\n{out}")
    match = re.search(r"(\d+) requests in", out)
    if match is None:
        raise RuntimeError(f"no request count in wrk output:\n{out}")
    return int(match.group(1))


def _stored(store: Path) -> int:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
        (count,) = conn.execute(
            "SELECT COUNT(*) FROM signal_events WHERE type = 'page_view'"
        ).fetchone()
    return int(count)


def _until_stored(queue: QueueTable, store: Path, at_least: int) -> int:
    """Poll until the queue file is empty and the store holds `at_least` page views."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if not queue.waiting("ingest"):
            count = _stored(store)
            if count >= at_least:
                return count
        time.sleep(0.005)
    raise RuntimeError(f"fewer than {at_least} page views stored after 300 s")


def _events(count: int, run: str) -> list[NewEvent]:
    """`count` page views as the served process stores them, validated beforehand."""
    now = datetime.now(UTC)
    events = []
    for i in range(count):
        body = beacon(i, f"visitor-{run}-{i % VISITORS}")
        raw = {k: v for k, v in body.items() if k != "id"}
        event = normalize_event(
            {**raw, "source": "site", "row_id": body["id"], "occurred_at": now.isoformat()},
            now=now,
        )
        assert isinstance(event, NewEvent)  # bench sanity
        events.append(event)
    return events


def main() -> dict[str, Any]:
    """This figure alone (`python -m bench.signal_page_views_served`)."""
    import json

    with tempfile.TemporaryDirectory(prefix="bench-page-views-") as tmp:
        result = served_page_views(Path(tmp))
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
