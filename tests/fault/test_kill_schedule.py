"""Scheduled publishing, must show: a page scheduled a few seconds ahead goes live within
LATE_SECONDS of its publish_at, with a kill -9 of the service between scheduling and the time.

The schedule's task is on disk (the durable task queue in DATA_DIR) before the POST answers;
the restarted service's task workers find it due (they look again at least every half second,
sooner when a task's time is nearer) and call the page's schedule route on themselves. How late
the page went live is logged: `pytest tests/fault/test_kill_schedule.py --log-cli-level=INFO`.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from tests.api.content_client import page_body
from tests.emulators import free_port
from tests.fault.served_crash import CONTENT_KEY, start_crashable
from tests.polling import wait_for

pytestmark = pytest.mark.spec("content.schedule")

logger = logging.getLogger(__name__)

# Ahead enough for the restart (2-6 s on two shared cores) to come before the time: the bound
# is on the schedule's lateness, not on how long a start takes.
AHEAD_SECONDS = 6.0
LATE_SECONDS = 5.0


def test_a_page_scheduled_seconds_ahead_goes_live_on_time_across_a_kill_9_restart(
    tmp_path: Path,
) -> None:
    data_dir, port = tmp_path / "data", free_port()
    server, base = start_crashable(data_dir, port)
    publish_at = (datetime.now(UTC) + timedelta(seconds=AHEAD_SECONDS)).replace(microsecond=0)
    try:
        with httpx.Client(timeout=30) as client:
            created = client.post(
                f"{base}/api/public/content/pages",
                json=page_body("kill-schedule", publish_at=publish_at.isoformat()),
                headers={"x-api-key": CONTENT_KEY},
            )
            server.kill()  # SIGKILL, before the time
            killed_before = datetime.now(UTC) < publish_at
            killed = time.monotonic()
            server, _ = start_crashable(data_dir, port)  # the same port: the same base
            restart = time.monotonic() - killed
            wait_for(
                lambda: client.get(f"{base}/p/kill-schedule").status_code == 200,
                timeout=AHEAD_SECONDS + 30,
                interval=0.1,
                what="the scheduled page live",
            )
            live_at = time.time()
            record = client.get(
                f"{base}/api/public/content/pages/kill-schedule",
                headers={"x-api-key": CONTENT_KEY},
            ).json()["page"]
    finally:
        server.stop()

    late = live_at - publish_at.timestamp()
    logger.info(
        "the page went live %.2f s after its publish_at (kill -9 before it; the restart took"
        " %.2f s)",
        late,
        restart,
    )
    assert created.status_code == 201
    assert created.json()["page"]["status"] == "scheduled"
    assert killed_before
    assert (record["status"], record["version"]) == ("published", 2)
    assert datetime.fromisoformat(record["published_at"]) >= publish_at
    assert late <= LATE_SECONDS
