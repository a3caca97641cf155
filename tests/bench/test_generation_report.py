"""bench/bench_generation.py's pure report: issue 5's overhead ratio and writer-call goals."""

from __future__ import annotations

from bench import bench_generation


def test_generation_report_judges_the_overhead_on_the_ratio_of_medians() -> None:
    """The goal's figure is median(POST) / median(direct); the others are shown beside it."""
    direct = [0.200, 0.100, 0.300]
    over_http = [0.240, 0.105, 0.300]

    result = bench_generation.report(direct, over_http, [1, 1, 2])

    assert result["direct_pipeline_median_ms"] == 200.0
    assert result["post_generate_median_ms"] == 240.0
    assert result["ratio_post_to_direct"] == 1.2
    assert result["ratio_of_minimums"] == 1.05
    assert result["ratio_per_round_median"] == 1.05
    assert result["overhead_met"] is False
    assert result["writer_calls_per_brief_max"] == 2
    assert result["writer_calls_met"] is True


def test_generation_report_flags_a_third_writer_call_and_prints_each_verdict() -> None:
    result = bench_generation.report([0.2, 0.2], [0.21, 0.21], [1, 3])

    lines = bench_generation.format_report(result)

    assert result["overhead_met"] is True
    assert result["writer_calls_met"] is False
    assert "goal <= 1.10: ok" in lines
    assert "goal <= 2: ABOVE GOAL" in lines
