"""Generation: POST generate end to end against the same pipeline called directly, same run.

Embedded mode, template writer and procedural hero image. Each round times one brief through
`POST /api/public/content/pages/generate` (Flask, job store, in-process queue and worker
thread, the API's bounded wait) and one brief through `run_generation` on the calling thread
with the same ports; the rounds alternate so drift hits both. The figure is the ratio of the
medians (goal: overhead <= 10%, a ratio <= 1.10). Then each of a set of jobs is delivered
four times at once (duplicate deliveries) and its writer calls are read from the job record,
where they are counted before each call (goal: <= 2 per brief).
"""

from __future__ import annotations

import statistics
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

from api.app import create_app
from frontdoor.generation import generation_ports, worker_id
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from schemas.jobs import GenerationBrief, JobRecord
from workers.pipeline import run_generation

KEY = "bench-content-key-0123456789"
ROUNDS = 25
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

            def direct(slug: str) -> float:
                job = new_job(slug, backends.clock())
                started = time.perf_counter()
                backends.jobs.create_job(job)
                done = run_generation(job.id, ports=ports, worker=worker_id(), lease=lease)
                elapsed = time.perf_counter() - started
                assert done.status == "succeeded", done.error
                return elapsed

            def over_http(slug: str) -> float:
                started = time.perf_counter()
                response = client.post(
                    "/api/public/content/pages/generate",
                    json=brief(slug),
                    headers={"x-api-key": KEY},
                )
                elapsed = time.perf_counter() - started
                assert response.status_code == 201, response.get_data(as_text=True)
                return elapsed

            direct(f"warm-{uuid.uuid4().hex[:6]}")
            over_http(f"warm-{uuid.uuid4().hex[:6]}")
            direct_times: list[float] = []
            http_times: list[float] = []
            for index in range(ROUNDS):
                pair = [("d", direct), ("h", over_http)]
                for kind, run in pair if index % 2 == 0 else reversed(pair):
                    seconds = run(f"{kind}-{index}-{uuid.uuid4().hex[:6]}")
                    (direct_times if kind == "d" else http_times).append(seconds)
            writer_calls = duplicate_deliveries(backends)
        finally:
            backends.close()
    direct_median, http_median = statistics.median(direct_times), statistics.median(http_times)
    result = {
        "rounds": ROUNDS,
        "direct_pipeline_median_ms": round(direct_median * 1000, 1),
        "post_generate_median_ms": round(http_median * 1000, 1),
        "ratio_post_to_direct": round(http_median / direct_median, 3),
        # The fastest run of each path: the least disturbed by other load on the machine.
        "ratio_of_minimums": round(min(http_times) / min(direct_times), 3),
        "overhead": round(http_median / direct_median - 1, 3),
        "goal_overhead": GOAL_OVERHEAD,
        "overhead_met": http_median / direct_median - 1 <= GOAL_OVERHEAD,
        "duplicate_jobs": DUPLICATE_JOBS,
        "deliveries_per_job": DELIVERIES,
        "writer_calls_per_brief_max": max(writer_calls),
        "writer_calls_per_brief_mean": round(statistics.mean(writer_calls), 2),
        "goal_writer_calls": GOAL_WRITER_CALLS,
        "writer_calls_met": max(writer_calls) <= GOAL_WRITER_CALLS,
    }
    print(result)
    return result


def new_job(slug: str, now: Any) -> JobRecord:
    return JobRecord(
        id=uuid.uuid4().hex,
        partner="bench",
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
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = [backends.jobs.get_job(job.id) for job in jobs]
        if all(f is not None and f.finished for f in found):
            break
        time.sleep(0.05)
    backends.job_queue.drain(60)
    return [backends.jobs.get_job(job.id).writer_calls for job in jobs]


if __name__ == "__main__":
    main()
