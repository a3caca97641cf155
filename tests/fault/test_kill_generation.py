"""No job is lost, and leases follow the work: generation jobs queued and running
when the server is killed with SIGKILL each reach `succeeded` or `failed` within
TERMINAL_SECONDS of the restarted server answering, in each of ROUNDS kill -9 rounds on one
DATA_DIR with the leases the service ships with (the jobs the dead process held are taken back
at the start, not after their lease), with at most one page per slug and at most two writer
calls per brief; an Idempotency-Key repeat then answers with the job as it is now.

The figures of a run (seconds from the restart answering to the last job terminal, per round)
are logged: `pytest tests/fault/test_kill_generation.py --log-cli-level=INFO`.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.emulators import REPO, ManagedProcess, free_port, http_ok, start_process
from tests.fault.served_crash import CONTENT_KEY
from tests.polling import wait_for
from tests.served import served_env
from tests.wire import providers
from tests.wire.server import WireServer

pytestmark = pytest.mark.spec("content.generate")

logger = logging.getLogger(__name__)

ROUNDS = 2
JOBS = 8  # per round: two running (the writer's answer held) and six queued at the kill
TERMINAL_SECONDS = 30.0
GENERATE = "/api/public/content/pages/generate"


@pytest.fixture
def wire() -> Iterator[WireServer]:
    server = WireServer(providers.openai_page()).start()
    yield server
    server.stop()


def _start(data_dir: Path, port: int, wire: WireServer) -> ManagedProcess:
    env = {
        **served_env(data_dir, port),
        "GENERATE_WAIT_SECONDS": "0",
        "AUTHOR_MODEL": "openai",
        "AUTHOR_BASE_URL": f"{wire.url}/v1",
        "AUTHOR_API_KEY": "wire-test-key-0123456789",
    }
    return start_process(
        "frontdoor-fault-gen",
        [sys.executable, "-m", "frontdoor.serve"],
        port=port,
        ready=http_ok("/healthz"),
        env=env,
        cwd=REPO,
    )


def _brief(n: int) -> dict[str, object]:
    return {
        "slug": f"fault-gen-{n}",
        "topic": "A pipeline audit for revenue teams",
        "icp": "RevOps leads at Series B SaaS companies",
        "goal": "Book an audit call with teams whose funnel reporting disagrees with the CRM",
        "offer": "A two-week review of tracking and funnel conversion. You keep the written plan.",
    }


def _writer_calls(wire: WireServer, slug: str) -> int:
    return sum(1 for r in wire.requests if f'"{slug}"' in json.dumps(r.body).replace('\\"', '"'))


def _post_then_kill(
    server: ManagedProcess, base: str, wire: WireServer, *, numbers: range
) -> list[str]:
    """Post a job per number with every writer call held, SIGKILL with jobs running and
    queued; the job ids."""
    headers = {"x-api-key": CONTENT_KEY, "Prefer": "respond-async"}
    wire.hold()  # every writer call waits: two jobs running, the rest queued
    try:
        with httpx.Client(timeout=30) as client:
            posted = [
                client.post(
                    f"{base}{GENERATE}",
                    json=_brief(n),
                    headers={**headers, "Idempotency-Key": f"fault-{n}"},
                )
                for n in numbers
            ]
            assert {answer.status_code for answer in posted} == {202}
            assert wire.arrived.wait(30)
            states = [
                client.get(f"{base}{answer.headers['Location']}", headers=headers).json()["job"]
                for answer in posted
            ]
        assert {"running", "queued"} <= {job["status"] for job in states}
    finally:
        server.kill()  # SIGKILL to the whole group
    wire.release.set()  # the held calls answer a process that is gone
    return [answer.json()["job"]["id"] for answer in posted]


def test_jobs_queued_and_running_at_each_kill_9_are_terminal_within_seconds_of_the_restart(
    tmp_path: Path, wire: WireServer
) -> None:
    data_dir, port = tmp_path / "data", free_port()
    base = f"http://127.0.0.1:{port}"
    headers = {"x-api-key": CONTENT_KEY, "Prefer": "respond-async"}
    job_ids: list[str] = []
    terminal: list[float] = []
    server = _start(data_dir, port, wire)
    try:
        with httpx.Client(timeout=30) as client:

            def jobs() -> list[dict[str, object]]:
                return [
                    client.get(f"{base}/api/public/content/jobs/{job_id}", headers=headers).json()[
                        "job"
                    ]
                    for job_id in job_ids
                ]

            for round_no in range(ROUNDS):
                numbers = range(round_no * JOBS, (round_no + 1) * JOBS)
                job_ids += _post_then_kill(server, base, wire, numbers=numbers)
                server = _start(data_dir, port, wire)
                answering = time.monotonic()
                wait_for(
                    lambda: all(job["status"] in ("succeeded", "failed") for job in jobs()),
                    timeout=90,
                    interval=0.2,
                    what="every job finished",
                )
                terminal.append(round(time.monotonic() - answering, 1))
                logger.info(
                    "round %d: %d jobs, all terminal %.1f s after the restart",
                    round_no + 1,
                    len(job_ids),
                    terminal[-1],
                )
            final = jobs()
            repeats = [
                client.post(
                    f"{base}{GENERATE}",
                    json=_brief(n),
                    headers={**headers, "Idempotency-Key": f"fault-{n}"},
                )
                for n in range(ROUNDS * JOBS)
            ]
            listed = client.get(
                f"{base}/api/public/content/pages", params={"limit": 100}, headers=headers
            ).json()
    finally:
        server.stop()

    assert [seconds for seconds in terminal if seconds > TERMINAL_SECONDS] == [], terminal
    assert [job["status"] for job in final] == ["succeeded"] * ROUNDS * JOBS
    assert all(int(job["writer_calls"]) <= 2 for job in final)  # type: ignore[call-overload]
    calls = [_writer_calls(wire, f"fault-gen-{n}") for n in range(ROUNDS * JOBS)]
    assert min(calls) >= 1
    assert max(calls) <= 2
    slugs = [page["slug"] for page in listed["pages"] if page["slug"].startswith("fault-gen-")]
    assert sorted(slugs) == sorted(f"fault-gen-{n}" for n in range(ROUNDS * JOBS))
    assert [answer.status_code for answer in repeats] == [201] * ROUNDS * JOBS
    assert [answer.json()["job"]["id"] for answer in repeats] == job_ids
