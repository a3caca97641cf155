"""Landing pages: /p/{slug} from the render cache against an empty route, page weight, Lighthouse.

The served process (`python -m frontdoor.serve`, granian WSGI, 1 worker) answers wrk from a
second process: /p/{slug} of a ten-block page (rendered once, then from the per-version cache)
against /healthz in the same run, in alternating rounds (goal >= 0.8x). Then the page's HTML
and CSS bytes (goal <= 35 KB, no JavaScript), and Lighthouse (bench/package.json; `npm ci
--prefix bench` installs it) with Debian's chromium, loopback only, for performance,
accessibility, best practices and SEO (goal 100 each; the median of LIGHTHOUSE_RUNS runs per
form factor, since a busy machine moves the performance score; LIGHTHOUSE_RUNS=0 skips it).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import statistics
import subprocess
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

from bench.bench_public_read import EMPTY, WARM_UP, Served, wrk
from frontdoor.settings import Settings
from frontdoor.wiring import build_backends
from tests.e2e.sample_page import all_blocks_page, store_page

SLUG = "pipeline-audit"
LIGHTHOUSE = Path(__file__).resolve().parent / "node_modules" / ".bin" / "lighthouse"
CHROMIUM = "/usr/bin/chromium"
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-background-networking"
    " --disable-component-update --disable-sync --no-first-run"
)
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
# Alternating short rounds keep a busy machine's swings out of the ratio (median of rounds).
ROUNDS = 5
ROUND = "2s"
GOALS = {"page_vs_empty": 0.8, "html_plus_css_kb": 35.0, "lighthouse": 100}


def main() -> dict[str, Any]:
    """Serve a ten-block page, measure it, and print the figures."""
    runs = int(os.environ.get("LIGHTHOUSE_RUNS", "3"))
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as data_dir:
        seed_page(Path(data_dir))
        with Served(["-m", "frontdoor.serve"], data_dir) as base:
            page_url = f"{base}/p/{SLUG}"
            weight = page_weight(page_url)
            for url in (base + EMPTY, page_url):
                wrk(url, (), duration=WARM_UP)
            rounds = [
                (wrk(base + EMPTY, (), duration=ROUND), wrk(page_url, (), duration=ROUND))
                for _ in range(ROUNDS)
            ]
            lighthouse = {
                form: lighthouse_scores(page_url, desktop=form == "desktop", runs=runs)
                for form in ("mobile", "desktop")
                if runs > 0
            }
    ratio = statistics.median(page / empty for empty, page in rounds)
    result: dict[str, Any] = {
        "requests_per_second": {
            "empty": round(statistics.median(empty for empty, _ in rounds), 1),
            "page_from_cache": round(statistics.median(page for _, page in rounds), 1),
        },
        "ratios": {"page_vs_empty": round(ratio, 3)},
        "ratio_per_round": [round(page / empty, 3) for empty, page in rounds],
        "weight": weight,
        "lighthouse": lighthouse,
        "goals": GOALS,
        "goals_met": {
            "page_vs_empty": ratio >= GOALS["page_vs_empty"],
            "html_plus_css_kb": weight["html_plus_css_kb"] <= GOALS["html_plus_css_kb"]
            and weight["scripts"] == 0,
            "lighthouse": all(
                score >= GOALS["lighthouse"]
                for form in lighthouse.values()
                for score in form.values()
            ),
        },
        "load": f"wrk -t1 -c32, {ROUNDS} rounds of {ROUND} per route, alternating, after a"
        f" {WARM_UP} warm-up; the ratio is the median of the rounds' ratios",
    }
    print(json.dumps(result, indent=2))
    return result


def seed_page(data_dir: Path) -> None:
    """Store the ten-block page, published, in the served process's embedded database."""
    backends = build_backends(Settings(data_dir=data_dir))
    try:
        store_page(backends.pages, SLUG, page_input=all_blocks_page(SLUG))
    finally:
        backends.close()


def page_weight(url: str) -> dict[str, Any]:
    """Bytes of the page and its stylesheet, raw and gzipped, and how many scripts could run."""
    html = _get(url)
    match = re.search(rb'<link rel="stylesheet" href="([^"]+)"', html)
    if match is None:
        raise RuntimeError("the page links no stylesheet")
    css = _get(url.split("/p/")[0] + match.group(1).decode())
    scripts = len(re.findall(rb"<script(?![^>]*application/ld\+json)", html))
    return {
        "html_bytes": len(html),
        "css_bytes": len(css),
        "html_plus_css_kb": round((len(html) + len(css)) / 1024, 1),
        "html_plus_css_gzip_kb": round(
            (len(gzip.compress(html)) + len(gzip.compress(css))) / 1024, 1
        ),
        "scripts": scripts,
    }


def lighthouse_scores(url: str, *, desktop: bool, runs: int) -> dict[str, int]:
    """Median Lighthouse category scores (0-100) over `runs` runs."""
    if not LIGHTHOUSE.exists():
        raise RuntimeError(f"{LIGHTHOUSE} is missing: run `npm ci --prefix bench`")
    samples: dict[str, list[float]] = {name: [] for name in CATEGORIES}
    with tempfile.TemporaryDirectory(prefix="lighthouse-") as out_dir:
        report = Path(out_dir) / "report.json"
        cmd = [
            str(LIGHTHOUSE),
            url,
            "--quiet",
            "--output=json",
            f"--output-path={report}",
            f"--only-categories={','.join(CATEGORIES)}",
            f"--chrome-flags={CHROME_FLAGS}",
        ]
        if desktop:
            cmd.append("--preset=desktop")
        env = {**os.environ, "CHROME_PATH": CHROMIUM}
        for _ in range(runs):
            subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=180)
            categories = json.loads(report.read_text(encoding="utf-8"))["categories"]
            for name in CATEGORIES:
                samples[name].append(categories[name]["score"] * 100)
    return {name: round(statistics.median(values)) for name, values in samples.items()}


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as resp:  # noqa: S310  # loopback only
        body: bytes = resp.read()
        return body


if __name__ == "__main__":
    main()
