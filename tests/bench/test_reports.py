"""bench/: every benchmark module imports, and its pure report turns figures into ratios.

The benchmarks themselves run only under `make bench`: speed never belongs in `make test`.
"""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import bench
from bench import (
    bench_body_flood,
    bench_mcp,
    bench_pages,
    bench_public_read,
    bench_signals,
    bench_startup,
)

BENCH_MODULES = sorted(
    info.name for info in pkgutil.iter_modules(bench.__path__) if info.name.startswith("bench_")
)


@pytest.mark.parametrize("name", BENCH_MODULES)
def test_every_bench_module_imports_and_has_a_main(name: str) -> None:
    """`make bench` runs each bench_*.py module's main()."""
    module = importlib.import_module(f"bench.{name}")

    assert callable(module.main)


def test_public_read_report_gives_each_ratio_against_its_baseline() -> None:
    """company/empty, 304/empty, company/bare and granian/uvicorn, each against its goal."""
    figures = {
        "granian_empty": 5000.0,
        "granian_company": 4500.0,
        "granian_company_304": 4400.0,
        "bare_wsgi_company": 5000.0,
        "uvicorn_empty": 2000.0,
        "uvicorn_company": 1800.0,
    }

    result = bench_public_read.report(figures)

    assert result["ratios"] == {
        "company_vs_empty": 0.9,
        "not_modified_vs_empty": 0.88,
        "company_vs_bare_wsgi": 0.9,
        "granian_vs_uvicorn_empty": 2.5,
    }
    assert result["goals_met"] == {
        "company_vs_empty": True,
        "not_modified_vs_empty": False,
        "company_vs_bare_wsgi": True,
        "granian_vs_uvicorn_empty": False,
    }
    assert result["requests_per_second"]["uvicorn_company"] == 1800.0


def test_public_read_report_prints_every_figure_and_flags_a_missed_goal() -> None:
    """The terminal report shows every figure and marks a goal that was missed."""
    figures = {
        "granian_empty": 4000.0,
        "granian_company": 2000.0,
        "granian_company_304": 3900.0,
        "bare_wsgi_company": 2100.0,
        "uvicorn_empty": 1000.0,
        "uvicorn_company": 900.0,
    }

    text = bench_public_read.format_report(bench_public_read.report(figures))

    assert "4,000.0 req/s" in text
    assert "company_vs_empty" in text
    assert text.count("BELOW GOAL") == 1


def test_pages_report_takes_the_median_of_round_ratios_and_the_best_rounds() -> None:
    """page/empty is the median of per-round ratios; one slow round cannot sink it."""
    rounds = [
        {"empty": 5000.0, "page_from_cache": 4500.0, "page_304": 4900.0},
        {"empty": 4000.0, "page_from_cache": 1000.0, "page_304": 3600.0},  # a burst elsewhere
        {"empty": 4800.0, "page_from_cache": 4560.0, "page_304": 4800.0},
    ]
    weight = {"html_plus_css_kb": 31.0, "scripts": 1, "inline_scripts": 0}
    scores = {"performance": 100, "accessibility": 100, "best-practices": 100, "seo": 99}

    result = bench_pages.report(
        rounds,
        weight=weight,
        lighthouse={"mobile": scores, "mobile_no_js": scores},
        beacon_posts={"mobile": 1, "mobile_no_js": 0},
    )

    assert result["ratios"] == {
        "page_vs_empty": 0.9,
        "page_vs_empty_best_rounds": 0.912,
        "page_304_vs_empty": 0.98,
    }
    assert result["ratio_per_round"]["page_from_cache"] == [0.9, 0.25, 0.95]
    assert result["requests_per_second"]["empty"] == 4800.0
    assert result["goals_met"] == {
        "page_vs_empty": True,
        "html_plus_css_kb": True,
        "lighthouse": False,
        "no_javascript_sends_no_beacon": True,
    }


def test_signals_ingest_is_judged_against_a_raw_insert_of_the_rows_the_store_writes() -> None:
    """Ingest vs the same rows (events and roll-ups) inserted raw; the event rows alone
    and the event rows built in Python without roll-ups are there for information."""
    rates = {
        "store": 13_000.0,
        "raw_insert": 20_000.0,
        "raw_event_rows": 50_000.0,
        "event_rows_in_python": 30_000.0,
    }

    figures = bench_signals.ingest_figures(rates)

    assert figures["ingest_vs_raw_insert"] == 0.65
    assert figures["information"] == {
        "ingest_vs_raw_event_rows": 0.26,
        "raw_insert_vs_raw_event_rows": 0.4,
        "event_rows_in_python_vs_raw_event_rows": 0.6,
    }
    assert figures["events_per_second"]["raw_insert"] == 20_000.0


WRK_LATENCY_OUTPUT = """\
Running 5s test @ http://127.0.0.1:8080/mcp
  1 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    30.12ms    5.01ms  80.00ms   90.00%
  Latency Distribution
     50%   29.50ms
     75%   31.00ms
     90%   35.00ms
     99%    1.20s
  5300 requests in 5.00s, 4.10MB read
Requests/sec:   1060.25
Transfer/sec:    840.00KB
"""


def test_mcp_report_gives_requests_per_second_and_latency_with_no_goal() -> None:
    """The SDK path is reported for information: req/s, p50 and p99, no ratio goal."""
    run = bench_mcp.parse_wrk(WRK_LATENCY_OUTPUT)
    runs = {
        "mcp_tools_call_stateless_2025": run,
        "mcp_tools_call_stateless_2025_uvicorn_alone": bench_mcp.Run(2120.5, 14.0, 20.0),
    }

    result = bench_mcp.report(runs)

    assert run == bench_mcp.Run(rps=1060.25, p50_ms=29.5, p99_ms=1200.0)
    assert result["latency_ms"]["mcp_tools_call_stateless_2025"] == {"p50": 29.5, "p99": 1200.0}
    assert result["requests_per_second"]["mcp_tools_call_stateless_2025_uvicorn_alone"] == 2120.5
    assert result["information"]["bridged_vs_asgi_alone"] == 0.5
    assert "goals" not in result


def test_mcp_bench_refuses_a_wrk_run_with_errors() -> None:
    """A run with non-2xx answers is an error, never a figure."""
    with pytest.raises(RuntimeError, match="wrk saw errors"):
        bench_mcp.parse_wrk(WRK_LATENCY_OUTPUT + "  Non-2xx or 3xx responses: 12\n")


def test_startup_report_takes_medians_and_judges_the_ratio_and_the_memory() -> None:
    """Start to first 200 against a bare Flask app (goal <= 2x), RSS <= 150 MB,
    both on the medians of several runs, so one slow start cannot decide either."""
    samples = {
        "served": [(0.5, 100.0, 0.4), (2.0, 101.0, 0.41), (0.55, 160.0, 0.45)],
        "bare_flask": [(0.3, 60.0, 0.2), (0.25, 61.0, 0.19), (0.35, 60.5, 0.2)],
    }

    result = bench_startup.report(samples)

    assert result["medians"]["served"] == {
        "start_seconds": 0.55,
        "rss_mb": 101.0,
        "cpu_seconds": 0.41,
    }
    assert result["ratios"] == {"start_vs_bare_flask": round(0.55 / 0.3, 3)}
    assert result["goals_met"] == {"start_vs_bare_flask": True, "served_rss_mb": True}
    assert result["information"]["cpu_vs_bare_flask"] == 2.05
    assert len(result["runs"]["served"]) == 3


def test_body_flood_report_sets_frontdoor_against_the_floor_in_the_same_rounds() -> None:
    """Each server's slowdown is the median of its rounds, and frontdoor's is also read over
    the floor's: a flood that slows a bare app as much is the server's cost, not the app's."""
    slowdowns = {"frontdoor": [6.0, 3.0, 4.0], "floor": [5.0, 2.0, 4.0]}

    result = bench_body_flood.report(slowdowns)

    assert result["ratios"] == {
        "frontdoor_slowdown": 4.0,
        "floor_slowdown": 4.0,
        "frontdoor_vs_floor": 1.0,
    }
    assert result["goals_met"] == {"frontdoor_slowdown": False, "frontdoor_vs_floor": True}
    assert bench_body_flood.format_report(result).count("BELOW GOAL") == 1
