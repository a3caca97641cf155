"""Generation: POST generate end to end against the same pipeline called directly, same run.

Embedded mode, template writer and procedural hero image. Each round times one brief through
`POST /api/public/content/pages/generate` (Flask, job store, in-process queue and worker
thread, the API's bounded wait) and one brief through `run_generation` on the calling thread
with the same ports, back to back, the order alternating. The goal (queue and API overhead
<= 10%) is judged on the median over rounds of each round's POST / direct ratio: the two runs
of a round share the machine's load, while the ratio of the two medians can compare medians
that fell in different load regimes (a shared machine's load comes and goes in bursts).
Rounds go on (100 at least, 300 at most) until the 95% interval of that median is within
+-0.025, so a loaded machine gets more rounds rather than a wider error. Printed beside it:
the ratio of medians, the ratio of minimums (the least disturbed run of each path), and the
per-round ratio of CPU time (the whole process: request thread and worker thread), which
shows the work the queue and API add whatever the load. Then each of a set of jobs is
delivered four times at once (duplicate deliveries) and its writer calls are read from the
job record, where they are counted before each call (goal: <= 2 per brief).
"""

from __future__ import annotations

import logging
import math
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from api.app import create_app
from backends.lease_holders import new_holder
from domain.editors import Editor
from frontdoor.generation_wiring import generation_ports
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from schemas.content.jobs import GenerationBrief, JobRecord
from workers.pipeline import run_generation

KEY = "bench-content-key-0123456789"
GENERATE = "/api/public/content/pages/generate"
WARM_UP = 3
MIN_ROUNDS, MORE_ROUNDS, MAX_ROUNDS = 100, 50, 300
CI_HALF_WIDTH = 0.025  # stop adding rounds once the median ratio is known this well
DUPLICATE_JOBS = 10
DELIVERIES = 4
GOAL_OVERHEAD = 0.10
GOAL_WRITER_CALLS = 2


def brief(slug: str) -> dict[str, Any]:
    return {
        "slug": slug,
        "topic": "Attribution your CFO can check",
        "icp": "Heads of growth at Series A SaaS companies",
        "goal": "Book a two-week attribution audit",
        "offer": "One attribution table from ads, analytics and CRM. Disagreements are flagged.",
        "proof": ["Found 18% of pipeline double-counted across 3 ad platforms"],
        "sections": ["How it works", "Results", "Questions"],
    }


@dataclass
class Runs:
    """Seconds per round for each path: wall clock, and CPU time of the whole process."""

    direct: list[float] = field(default_factory=list)
    over_http: list[float] = field(default_factory=list)
    direct_cpu: list[float] = field(default_factory=list)
    http_cpu: list[float] = field(default_factory=list)


def report(runs: Runs, writer_calls: Sequence[int]) -> dict[str, Any]:
    """Ratios and goals from paired timings (pure: the tests feed it figures)."""
    direct, over_http = runs.direct, runs.over_http
    ratio = _median_ratio(over_http, direct)
    low, high = median_interval([h / d for h, d in zip(over_http, direct, strict=True)])
    return {
        "rounds": len(direct),
        "direct_pipeline_median_ms": round(statistics.median(direct) * 1000, 1),
        "post_generate_median_ms": round(statistics.median(over_http) * 1000, 1),
        "ratio_median_per_round": round(ratio, 3),  # the goal's figure
        "ratio_ci95": [round(low, 3), round(high, 3)],
        "ratio_of_medians": round(statistics.median(over_http) / statistics.median(direct), 3),
        "ratio_of_minimums": round(min(over_http) / min(direct), 3),
        "cpu_ratio_median_per_round": round(_median_ratio(runs.http_cpu, runs.direct_cpu), 3),
        "overhead": round(ratio - 1, 3),
        "goal_overhead": GOAL_OVERHEAD,
        "overhead_met": ratio - 1 <= GOAL_OVERHEAD,
        "duplicate_jobs": len(writer_calls),
        "deliveries_per_job": DELIVERIES,
        "writer_calls_per_brief_max": max(writer_calls),
        "writer_calls_per_brief_mean": round(statistics.mean(writer_calls), 2),
        "goal_writer_calls": GOAL_WRITER_CALLS,
        "writer_calls_met": max(writer_calls) <= GOAL_WRITER_CALLS,
        "method": (
            f"{len(direct)} rounds after {WARM_UP} warm-ups, one brief each way per round,"
            " the order alternating; Flask test client, embedded backends, template writer"
        ),
    }


def format_report(result: dict[str, Any]) -> str:
    """The figures as lines for the terminal."""
    overhead = "ok" if result["overhead_met"] else "ABOVE GOAL"
    low, high = result["ratio_ci95"]
    writer = "ok" if result["writer_calls_met"] else "ABOVE GOAL"
    return "\n".join(
        [
            f"  direct pipeline, median    {result['direct_pipeline_median_ms']:>8.1f} ms",
            f"  POST generate, median      {result['post_generate_median_ms']:>8.1f} ms",
            f"  POST / direct, per round   {result['ratio_median_per_round']:>8.3f}"
            f"  (median of {result['rounds']}, 95% {low:.3f}-{high:.3f};"
            f" goal <= {1 + GOAL_OVERHEAD:.2f}: {overhead})",
            f"  ratio of medians           {result['ratio_of_medians']:>8.3f}",
            f"  ratio of minimums          {result['ratio_of_minimums']:>8.3f}",
            f"  CPU time, per round        {result['cpu_ratio_median_per_round']:>8.3f}",
            f"  writer calls per brief     {result['writer_calls_per_brief_max']:>8d}"
            f"  (max of {result['duplicate_jobs']} jobs x {result['deliveries_per_job']}"
            f" deliveries; goal <= {GOAL_WRITER_CALLS}: {writer})",
        ]
    )


def main() -> dict[str, Any]:
    """Time both paths, count writer calls under duplicates, print and return the figures."""
    with tempfile.TemporaryDirectory(prefix="bench-generation-") as data_dir:
        settings = Settings(
            data_dir=Path(data_dir),
            public_base_url="http://bench",
            content_api_key=KEY,
            generation_threads=4,
        )
        backends = build_backends(settings)
        try:
            client = create_app(app_config(settings), backends).test_client()
            ports = generation_ports(settings, backends)
            lease = timedelta(seconds=settings.job_lease_seconds)

            def direct(slug: str) -> tuple[float, float]:
                job = new_job(slug, backends.clock())
                started, cpu = time.perf_counter(), time.process_time()
                backends.jobs.create_job(job)
                done = run_generation(job.id, ports=ports, worker=new_holder(), lease=lease)
                spent = time.perf_counter() - started, time.process_time() - cpu
                assert done.status == "succeeded", done.error
                return spent

            def over_http(slug: str) -> tuple[float, float]:
                started, cpu = time.perf_counter(), time.process_time()
                response = client.post(GENERATE, json=brief(slug), headers={"x-api-key": KEY})
                spent = time.perf_counter() - started, time.process_time() - cpu
                assert response.status_code == 201, response.get_data(as_text=True)
                return spent

            for _ in range(WARM_UP):
                direct(f"warm-{uuid.uuid4().hex[:6]}")
                over_http(f"warm-{uuid.uuid4().hex[:6]}")
            runs = Runs()
            while _more_rounds(runs):
                index = len(runs.direct)
                pair = [("d", direct), ("h", over_http)]
                for kind, run in pair if index % 2 == 0 else reversed(pair):
                    wall, cpu = run(f"{kind}-{index}-{uuid.uuid4().hex[:6]}")
                    if kind == "d":
                        runs.direct.append(wall)
                        runs.direct_cpu.append(cpu)
                    else:
                        runs.over_http.append(wall)
                        runs.http_cpu.append(cpu)
            with _quiet_redeliveries():
                writer_calls = duplicate_deliveries(backends)
        finally:
            backends.close()
    result = report(runs, writer_calls)
    print(format_report(result))
    return result


def new_job(slug: str, now: Any) -> JobRecord:
    return JobRecord(
        id=uuid.uuid4().hex,
        editor=Editor(partner="bench", key_id=""),
        brief=GenerationBrief.model_validate(brief(slug)),
        created_at=now,
        updated_at=now,
    )


def duplicate_deliveries(backends: Any) -> list[int]:
    """Each job published DELIVERIES times at once to the in-process queue; its writer calls."""
    jobs = [
        new_job(f"dup-{i}-{uuid.uuid4().hex[:6]}", backends.clock()) for i in range(DUPLICATE_JOBS)
    ]
    for job in jobs:
        backends.jobs.create_job(job)
        for _ in range(DELIVERIES):
            backends.job_queue.publish_job(job.id)
    for job in jobs:
        backends.jobs.wait_finished(job.id, 120)
    backends.job_queue.drain(60)
    return [backends.jobs.get_job(job.id).writer_calls for job in jobs]


def median_interval(values: Sequence[float]) -> tuple[float, float]:
    """A distribution-free 95% interval for the median: two order statistics around it."""
    ordered, half = sorted(values), len(values) / 2
    spread = 1.96 * math.sqrt(len(values)) / 2
    low_rank, high_rank = math.floor(half - spread), math.ceil(1 + half + spread)  # 1-based
    return ordered[max(low_rank, 1) - 1], ordered[min(high_rank, len(ordered)) - 1]


def _more_rounds(runs: Runs) -> bool:
    done = len(runs.direct)
    if done < MIN_ROUNDS:
        return True
    if done >= MAX_ROUNDS:
        return False
    if (done - MIN_ROUNDS) % MORE_ROUNDS:
        return True  # finish the block before judging the interval again
    low, high = median_interval([h / d for h, d in zip(runs.over_http, runs.direct, strict=True)])
    return (high - low) / 2 > CI_HALF_WIDTH


def _median_ratio(over_http: Sequence[float], direct: Sequence[float]) -> float:
    return statistics.median(h / d for h, d in zip(over_http, direct, strict=True))


@contextmanager
def _quiet_redeliveries() -> Iterator[None]:
    # A duplicate that finds the job held raises to be delivered again, and the in-process
    # queue logs each such retry with a traceback: expected here, and pages of noise.
    queue_logger = logging.getLogger("backends.embedded.queues")
    level = queue_logger.level
    queue_logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        queue_logger.setLevel(level)


if __name__ == "__main__":
    main()
