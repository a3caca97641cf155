"""Benchmarks: each `bench_<thing>.py` reports ratios to a baseline measured in the same run."""
