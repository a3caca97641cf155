"""A served process (`python -m frontdoor.serve`) that a fault test kills with SIGKILL and
starts again on the same DATA_DIR, with the leases it ships with: held work comes back because
the new start finds the holder's process gone, or its short lease lapsed, not because a test
shortened anything."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import httpx

from tests.emulators import REPO, ManagedProcess, free_port, http_ok, start_process
from tests.served import CONTENT_KEY, INGEST_KEY, SIGNALS_KEY, served_env

__all__ = ["CONTENT_KEY", "INGEST_KEY", "SIGNALS_KEY", "StreamReader", "start_crashable"]


def start_crashable(data_dir: Path, port: int | None = None) -> tuple[ManagedProcess, str]:
    """The service on `data_dir` (a free port unless given); its base URL."""
    port = port or free_port()
    env = {**served_env(data_dir, port), "GENERATE_WAIT_SECONDS": "0"}
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


class StreamReader:
    """The stream read forward from where the last read stopped (`next_since`), so each poll
    asks only for what is new; `ids` holds every id seen, in stream order."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.seen: set[str] = set()
        self._since = "2000-01-01T00:00:00Z"

    def read(self, client: httpx.Client, base: str) -> set[str]:
        """Read what is new; every id seen so far."""
        while True:
            page = client.get(
                f"{base}/api/public/v1/signals",
                params={"since": self._since, "limit": 1000},
                headers={"x-api-key": SIGNALS_KEY},
            ).json()
            new = [event["id"] for event in reversed(page["events"])]
            self.ids += new
            self.seen.update(new)
            if page.get("next_since"):
                self._since = page["next_since"]
            if not page.get("has_more"):
                return self.seen


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
