"""A served process (`python -m frontdoor.serve`) that a fault test kills with SIGKILL and
starts again on the same DATA_DIR, with short leases so held work comes back within seconds."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import httpx

from tests.emulators import REPO, ManagedProcess, free_port, http_ok, start_process
from tests.served import CONTENT_KEY, INGEST_KEY, SIGNALS_KEY, served_env

__all__ = ["CONTENT_KEY", "INGEST_KEY", "SIGNALS_KEY", "start_crashable"]

# Held messages and jobs come back this soon after a kill (DATA_DIR keeps them).
SHORT_LEASES = {
    "QUEUE_LEASE_SECONDS": "2",
    "JOB_LEASE_SECONDS": "3",
    "JOB_RECOVERY_SECONDS": "1",
}


def start_crashable(data_dir: Path, port: int | None = None) -> tuple[ManagedProcess, str]:
    """The service on `data_dir` (a free port unless given); its base URL."""
    port = port or free_port()
    env = {**served_env(data_dir, port), **SHORT_LEASES, "GENERATE_WAIT_SECONDS": "0"}
    proc = start_process(
        "frontdoor-fault",
        [sys.executable, "-m", "frontdoor.serve"],
        port=port,
        ready=http_ok("/healthz"),
        env=env,
        cwd=REPO,
    )
    return proc, f"http://127.0.0.1:{port}"


def stream_ids(client: httpx.Client, base: str) -> list[str]:
    """Every event id in the stream, oldest first, walking `next_since` forward."""
    ids: list[str] = []
    since = "2000-01-01T00:00:00Z"
    while True:
        page = client.get(
            f"{base}/api/public/v1/signals",
            params={"since": since, "limit": 1000},
            headers={"x-api-key": SIGNALS_KEY},
        ).json()
        ids += [event["id"] for event in reversed(page["events"])]
        if not page.get("has_more"):
            return ids
        since = page["next_since"]


def random_batch(
    tag: str, *, domains: list[str], people: int, max_size: int, rng: random.Random
) -> list[dict[str, object]]:
    """1 to max_size events with ids `{tag}-{n}`, spread over the domains and their people."""
    events: list[dict[str, object]] = []
    for n in range(rng.randint(1, max_size)):
        domain = rng.choice(domains)
        events.append(
            {
                "source": "fault",
                "row_id": f"{tag}-{n}",
                "type": rng.choice(["url_entered", "article_read", "book_call"]),
                "occurred_at": "2026-11-20T10:00:00Z",
                "person": {"email": f"p{rng.randint(1, people)}@{domain}"},
                "account": {"domain": domain},
            }
        )
    return events
