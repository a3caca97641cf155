"""bench/bench_generation.py's pure report: the overhead ratio and writer-call goals."""

from __future__ import annotations

from bench import bench_generation


def test_generation_report_judges_the_overhead_on_the_median_of_per_round_ratios() -> None:
    """The goal's figure pairs each round's runs; the medians' and minimums' ratios go beside."""
    runs = bench_generation.Runs(
        direct=[0.200, 0.100, 0.300],
        over_http=[0.240, 0.105, 0.300],
        direct_cpu=[0.100, 0.100, 0.100],
        http_cpu=[0.103, 0.101, 0.102],
    )

    result = bench_generation.report(runs, [1, 1, 2])

    assert result["direct_pipeline_median_ms"] == 200.0
    assert result["post_generate_median_ms"] == 240.0
    assert result["ratio_median_per_round"] == 1.05  # of 1.2, 1.05 and 1.0
    assert result["ratio_ci95"] == [1.0, 1.2]
    assert result["ratio_of_medians"] == 1.2
    assert result["ratio_of_minimums"] == 1.05
    assert result["cpu_ratio_median_per_round"] == 1.02
    assert result["overhead_met"] is True
    assert result["writer_calls_per_brief_max"] == 2
    assert result["writer_calls_met"] is True


def test_generation_report_flags_a_missed_goal_and_prints_each_verdict() -> None:
    runs = bench_generation.Runs(
        direct=[0.2, 0.2, 0.2],
        over_http=[0.21, 0.23, 0.24],
        direct_cpu=[0.2, 0.2, 0.2],
        http_cpu=[0.2, 0.2, 0.2],
    )

    result = bench_generation.report(runs, [1, 3, 1])

    lines = bench_generation.format_report(result)

    assert result["ratio_median_per_round"] == 1.15
    assert result["overhead_met"] is False
    assert result["writer_calls_met"] is False
    assert "goal <= 1.10: ABOVE GOAL" in lines
    assert "goal <= 2: ABOVE GOAL" in lines


def test_the_median_interval_is_the_order_statistics_of_a_95_percent_interval() -> None:
    """For 100 values, ranks 40 and 61 (the textbook distribution-free 95% interval)."""
    values = [float(v) for v in range(100, 0, -1)]

    assert bench_generation.median_interval(values) == (40.0, 61.0)
    assert bench_generation.median_interval([1.0, 2.0, 3.0]) == (1.0, 3.0)
