"""Landing pages: /p/{slug} from the response cache against an empty route, page weight, Lighthouse.

The served process (`python -m frontdoor.serve`, granian, 1 worker) answers wrk from a
second process: /p/{slug} of a ten-block page (rendered once, then from the per-version cache)
and its 304 against /healthz in the same run (goal: page >= 0.8x the empty route). The routes
take turns in ROUNDS short rounds, each round in a rotated order, so a burst of load elsewhere on
the machine lowers one round, not one route; the figure is the median of the rounds' ratios,
next to the ratio of each route's best round. Then the page's HTML and CSS bytes (goal <= 35 KB,
no inline script: the one script is the first-party beacon, a file), and Lighthouse
(bench/package.json; `make bench` installs it with npm ci) with Debian's chromium, loopback
only, for performance, accessibility, best practices and SEO (goal 100 each; the median of
LIGHTHOUSE_RUNS runs per form factor, since a busy machine moves the performance score;
LIGHTHOUSE_RUNS=0 skips it), mobile and desktop, each with JavaScript and without.
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
from urllib.parse import urlsplit

from bench.bench_public_read import EMPTY, WARM_UP, WRK_ARGS, Served, wrk
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
# JavaScript off, as Lighthouse can do it: Chrome's own switch (--blink-settings=
# scriptEnabled=false, or DevTools' Emulation.setScriptExecutionDisabled) stops Lighthouse too
# ("Debugger.enable: Script execution is prohibited", Lighthouse 13.5), so no script file is
# loaded instead. The page has no inline script (page_weight checks it), so none runs at all:
# the report shows the beacon's request blocked and no post to /collect (beacon_posts).
NO_JAVASCRIPT = "--blocked-url-patterns=*.js"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
# Each audited form: (desktop preset, JavaScript on).
FORMS = {
    "mobile": (False, True),
    "desktop": (True, True),
    "mobile_no_js": (False, False),
    "desktop_no_js": (True, False),
}
BEACON_PATH = "/api/public/v1/collect"
# Ten rounds of three 2 s runs: about a minute of load in all.
ROUNDS = 10
ROUND = "2s"
GOALS = {"page_vs_empty": 0.8, "html_plus_css_kb": 35.0, "lighthouse": 100}
ROUTES = ("empty", "page_from_cache", "page_304")


def main() -> dict[str, Any]:
    """Serve a ten-block page, measure it, and print the figures."""
    runs = int(os.environ.get("LIGHTHOUSE_RUNS", "3"))
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as data_dir:
        seed_page(Path(data_dir))
        with Served(["-m", "frontdoor.serve"], data_dir) as base:
            page_url = f"{base}/p/{SLUG}"
            weight = page_weight(page_url)
            etag = _etag(page_url)
            routes = {
                "empty": (base + EMPTY, ()),
                "page_from_cache": (page_url, ()),
                "page_304": (page_url, (f"If-None-Match: {etag}",)),
            }
            for url, headers in routes.values():
                wrk(url, headers, duration=WARM_UP)
            rounds: list[dict[str, float]] = []
            for n in range(ROUNDS):
                order = ROUTES[n % len(ROUTES) :] + ROUTES[: n % len(ROUTES)]
                rounds.append({name: wrk(*routes[name], duration=ROUND) for name in order})
            audits = {
                form: lighthouse_scores(page_url, desktop=desktop, javascript=js, runs=runs)
                for form, (desktop, js) in FORMS.items()
                if runs > 0
            }
    lighthouse = {form: scores for form, (scores, _) in audits.items()}
    beacons = {form: posts for form, (_, posts) in audits.items()}
    result = report(rounds, weight=weight, lighthouse=lighthouse, beacon_posts=beacons)
    print(json.dumps(result, indent=2))
    return result


def report(
    rounds: list[dict[str, float]],
    *,
    weight: dict[str, Any],
    lighthouse: dict[str, dict[str, int]],
    beacon_posts: dict[str, int] | None = None,
) -> dict[str, Any]:
    """Ratios and goals from each round's requests/s (pure: the tests feed it fake figures)."""
    per_round = {name: [r[name] / r["empty"] for r in rounds] for name in ROUTES if name != "empty"}
    best = {name: max(r[name] for r in rounds) for name in ROUTES}
    ratio = statistics.median(per_round["page_from_cache"])
    return {
        "requests_per_second": {
            name: round(statistics.median(r[name] for r in rounds), 1) for name in ROUTES
        },
        "best_round_requests_per_second": {name: round(rps, 1) for name, rps in best.items()},
        "ratios": {
            "page_vs_empty": round(ratio, 3),
            "page_vs_empty_best_rounds": round(best["page_from_cache"] / best["empty"], 3),
            "page_304_vs_empty": round(statistics.median(per_round["page_304"]), 3),
        },
        "ratio_per_round": {
            name: [round(value, 3) for value in values] for name, values in per_round.items()
        },
        "weight": weight,
        "lighthouse": lighthouse,
        # Beacon posts Lighthouse saw in its last run of each form: none proves JavaScript off.
        "beacon_posts": beacon_posts or {},
        "goals": GOALS,
        "goals_met": {
            "page_vs_empty": ratio >= GOALS["page_vs_empty"],
            "html_plus_css_kb": weight["html_plus_css_kb"] <= GOALS["html_plus_css_kb"]
            and weight["inline_scripts"] == 0,
            "lighthouse": bool(lighthouse)
            and all(
                score >= GOALS["lighthouse"]
                for form in lighthouse.values()
                for score in form.values()
            ),
            # Proof the *_no_js audits ran without JavaScript: their pages posted no beacon.
            "no_javascript_sends_no_beacon": all(
                posts == 0
                for form, posts in (beacon_posts or {}).items()
                if form.endswith("_no_js")
            ),
        },
        "load": f"wrk {' '.join(WRK_ARGS)}, {len(rounds)} rounds of {ROUND} per route, each"
        f" round in a rotated order, after a {WARM_UP} warm-up per route; page_vs_empty is the"
        " median of the rounds' ratios, page_vs_empty_best_rounds the best page round over the"
        " best empty round",
    }


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
    scripts = re.findall(rb"<script(?![^>]*application/ld\+json)[^>]*>", html)
    inline = [tag for tag in scripts if b" src=" not in tag]
    return {
        "html_bytes": len(html),
        "css_bytes": len(css),
        "html_plus_css_kb": round((len(html) + len(css)) / 1024, 1),
        "html_plus_css_gzip_kb": round(
            (len(gzip.compress(html)) + len(gzip.compress(css))) / 1024, 1
        ),
        "scripts": len(scripts),
        "inline_scripts": len(inline),
    }


def lighthouse_scores(
    url: str, *, desktop: bool, javascript: bool, runs: int
) -> tuple[dict[str, int], int]:
    """Median Lighthouse category scores (0-100) over `runs` runs, and how many beacon posts
    the page sent in the last run (none when JavaScript is off)."""
    if not LIGHTHOUSE.exists():
        raise RuntimeError(f"{LIGHTHOUSE} is missing: `make bench` installs it (npm ci)")
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
        if not javascript:
            cmd.append(NO_JAVASCRIPT)
        if desktop:
            cmd.append("--preset=desktop")
        env = {**os.environ, "CHROME_PATH": CHROMIUM}
        posts = 0
        for _ in range(runs):
            subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=180)
            result = json.loads(report.read_text(encoding="utf-8"))
            for name in CATEGORIES:
                samples[name].append(result["categories"][name]["score"] * 100)
            requests = result["audits"]["network-requests"]["details"]["items"]
            posts = sum(urlsplit(item["url"]).path == BEACON_PATH for item in requests)
    scores = {name: round(statistics.median(values)) for name, values in samples.items()}
    return scores, posts


def _etag(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as resp:  # noqa: S310  # loopback only
        etag: str = resp.headers["ETag"]
        return etag


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as resp:  # noqa: S310  # loopback only
        body: bytes = resp.read()
        return body


if __name__ == "__main__":
    main()
