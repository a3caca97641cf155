"""bench/bench_page_stats.py: its report, and a quick run of the whole bench at small sizes
(speed is never asserted here: that is what `make bench` reports)."""

from __future__ import annotations

from bench import bench_page_stats


def test_page_stats_report_gives_each_shapes_ratio_against_the_goal() -> None:
    figures = {
        "events": {"small": 10_000, "large": 1_000_000},
        "median_us": {
            "totals": {"small": 100.0, "large": 120.0},
            "source": {"small": 200.0, "large": 300.0},
        },
    }

    result = bench_page_stats.report(figures)

    assert result["ratios"] == {"totals": 1.2, "source": 1.5}
    assert result["goals_met"] == {"totals": True, "source": False}


def test_the_page_stats_bench_runs_in_a_quick_mode() -> None:
    """The whole bench at 300 and 3,000 events, a few reads of each shape."""
    result = bench_page_stats.report(bench_page_stats.measure(300, 3000, reads=8))

    assert result["events"] == {"small": 300, "large": 3000}
    assert set(result["ratios"]) == {"totals", "day", "source", "campaign", "variant"}
    assert all(m["small"] > 0 and m["large"] > 0 for m in result["median_us"].values())
