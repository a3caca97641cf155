"""Public reads while four clients send 1 MiB bodies back to back: frontdoor against the floor.

The content bounds refuse an array bomb from its bytes before any other work (a page body of
330,000 empty blocks, a hero with 200,000 bullets, 60,000 unknown fields), so what such a flood
still costs is receiving the bodies. This bench measures how much slower a public read answers
during the flood than alone (the median of 60 reads on one connection), for frontdoor
(`python -m frontdoor.serve`, 1 worker) and, in the same interleaved rounds, for bench/bare_rsgi.py
on granian (1 worker): an app that only reads each body and counts its commas, the least any
app on this server does. Figures: each server's slowdown (goal <= 2.0 for frontdoor, as the
security review asked) and frontdoor's over the floor's (goal <= 1.5: the app adds little to
what receiving the bytes costs). Medians of the rounds.
"""

from __future__ import annotations

import http.client
import itertools
import json
import statistics
import tempfile
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

from bench.bench_public_read import BOOTSTRAP_KEYS, COMPANY, Served

CLIENTS = 4
READS = 60
ROUNDS = 5
PAGES = "/api/public/content/pages"
GOALS = {"frontdoor_slowdown": 2.0, "frontdoor_vs_floor": 1.5}
FLOOR = ["-m", "granian", "--interface", "rsgi", "--workers", "1", "--no-access-log"]
FLOOR += ["bench.bare_rsgi:app"]
CONTENT = {"x-api-key": BOOTSTRAP_KEYS["CONTENT_API_KEY"], "Content-Type": "application/json"}


def bombs() -> list[bytes]:
    """Page bodies just under 1 MiB that a schema or gate would spend seconds on."""
    page = {"slug": "bomb", "title": "Bomb", "blocks": []}
    hero = {"type": "hero", "title": "Find the leaks", "sub": "For heads of growth."}
    bodies: list[object] = [
        {**page, "blocks": [{}] * 330_000},
        {**page, "blocks": [{**hero, "bullets": ["x"] * 200_000}]},
        {**page, **{f"x{n}": 1 for n in range(60_000)}},
    ]
    return [json.dumps(body, separators=(",", ":")).encode() for body in bodies]


def report(slowdowns: Mapping[str, list[float]]) -> dict[str, Any]:
    """Medians and goals from each round's slowdown (pure: the tests feed it figures)."""
    frontdoor = statistics.median(slowdowns["frontdoor"])
    floor = statistics.median(slowdowns["floor"])
    ratios = {"frontdoor_slowdown": frontdoor, "floor_slowdown": floor}
    ratios["frontdoor_vs_floor"] = frontdoor / floor
    return {
        "slowdowns": {name: [round(v, 2) for v in values] for name, values in slowdowns.items()},
        "ratios": {name: round(value, 3) for name, value in ratios.items()},
        "goals": GOALS,
        "goals_met": {name: ratios[name] <= goal for name, goal in GOALS.items()},
        "load": (
            f"{CLIENTS} clients sending 1 MiB bodies on fresh connections, back to back;"
            f" median of {READS} reads; {ROUNDS} interleaved rounds"
        ),
    }


def format_report(result: Mapping[str, Any]) -> str:
    """The figures and ratios as lines for the terminal."""
    lines = [
        f"  {name:<20} " + " ".join(f"{v:.2f}x" for v in values)
        for name, values in result["slowdowns"].items()
    ]
    for name, ratio in result["ratios"].items():
        goal = GOALS.get(name)
        verdict = "" if goal is None else ("ok" if result["goals_met"][name] else "BELOW GOAL")
        suffix = "" if goal is None else f"  (goal <= {goal}x: {verdict})"
        lines.append(f"  {name:<20} {ratio:>6.2f}x{suffix}")
    return "\n".join(lines)


def main() -> dict[str, Any]:
    """Flood both servers in interleaved rounds and print the report."""
    bodies = bombs()
    slowdowns: dict[str, list[float]] = {"frontdoor": [], "floor": []}
    with (
        tempfile.TemporaryDirectory(prefix="bench-body-flood-") as data_dir,
        Served(["-m", "frontdoor.serve"], data_dir) as frontdoor,
        Served(FLOOR, data_dir, port_flag=True) as floor,
    ):
        servers = {"frontdoor": (frontdoor, COMPANY), "floor": (floor, "/")}
        for _round in range(ROUNDS):
            for name, (base, read) in servers.items():
                slowdowns[name].append(slowdown(base, read, bodies))
    result = report(slowdowns)
    print(format_report(result))
    return result


def slowdown(base: str, read: str, bodies: list[bytes]) -> float:
    """How many times slower a read answers while CLIENTS clients send `bodies`."""
    address = urlsplit(base)
    host, port = address.hostname or "127.0.0.1", address.port or 80
    alone = read_latency(host, port, read)
    cycle = itertools.cycle(bodies)
    lock = threading.Lock()
    refused = threading.Semaphore(0)
    stop = threading.Event()

    def flood() -> None:
        while not stop.is_set():
            with lock:
                body = next(cycle)
            status = send(host, port, body)
            if status != 422:
                raise RuntimeError(f"a flood body answered {status}, not 422")
            refused.release()

    with ThreadPoolExecutor(CLIENTS) as pool:
        running = [pool.submit(flood) for _ in range(CLIENTS)]
        try:
            for _ in range(CLIENTS):  # every client is sending before the reads start
                refused.acquire(timeout=60)
            loaded = read_latency(host, port, read)
        finally:
            stop.set()
            for future in running:
                future.result()
    return loaded / alone


def read_latency(host: str, port: int, path: str) -> float:
    """The median seconds of READS reads, one after another on one connection."""
    conn = http.client.HTTPConnection(host, port, timeout=30)
    took: list[float] = []
    try:
        for _ in range(READS):
            began = time.perf_counter()
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            took.append(time.perf_counter() - began)
            if response.status != 200:
                raise RuntimeError(f"GET {path} answered {response.status}")
    finally:
        conn.close()
    return statistics.median(took)


def send(host: str, port: int, body: bytes) -> int:
    """One page POST on a fresh connection; its status."""
    conn = http.client.HTTPConnection(host, port, timeout=60)
    try:
        conn.request("POST", PAGES, body=body, headers=CONTENT)
        return conn.getresponse().status
    finally:
        conn.close()
