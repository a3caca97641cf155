"""Nothing acknowledged is lost, and leases follow the work: a server killed with SIGKILL while 4
writers send batches of up to 500 events loses nothing it acknowledged, and heals fast. In
each of ROUNDS kill -9 rounds on one DATA_DIR, with the leases the service ships with, every
acknowledged id is in the stream within HEAL_SECONDS of the restarted server answering (the
batches the dead process held are released at the start, not after their lease); at the end
every acknowledged id is there exactly once and each account's roll-up counts match its
events.

The figures of a run (seconds from the restart answering to the last acknowledged event in the
stream, per round) are logged: `pytest tests/fault/test_kill_signals.py --log-cli-level=INFO`.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from tests.emulators import ManagedProcess, free_port
from tests.fault.served_crash import (
    INGEST_KEY,
    SIGNALS_KEY,
    StreamReader,
    random_batch,
    start_crashable,
)
from tests.polling import wait_for

pytestmark = pytest.mark.spec("signals.ingest")

logger = logging.getLogger(__name__)

WRITERS = 4
DOMAINS = [f"fault{n}.example" for n in range(12)]
ROUNDS = 5
KILL_AFTER_ACKED = 3_000  # newly acknowledged events in a round before its kill
HEAL_SECONDS = 15.0


def _write_then_kill(
    server: ManagedProcess, base: str, *, round_no: int, sent: dict[str, str], acked: set[str]
) -> None:
    """WRITERS threads send batches until KILL_AFTER_ACKED more are acknowledged; then
    SIGKILL, mid-stream."""
    lock = threading.Lock()
    stop, enough = threading.Event(), threading.Event()
    goal = len(acked) + KILL_AFTER_ACKED

    def writer(number: int) -> None:
        rng = random.Random(round_no * 100 + number)  # noqa: S311  # test data, not secrets
        with httpx.Client(timeout=30) as client:
            serial = 0
            while not stop.is_set():
                serial += 1
                events = random_batch(
                    f"r{round_no}-w{number}-b{serial}",
                    domains=DOMAINS,
                    people=40,
                    max_size=500,
                    rng=rng,
                )
                with lock:
                    sent.update(
                        (f"fault:{e['row_id']}", str(e["account"]["domain"]))  # type: ignore[index]
                        for e in events
                    )
                try:
                    answer = client.post(
                        f"{base}/api/public/v1/signals/events",
                        json={"events": events},
                        headers={"x-api-key": INGEST_KEY},
                    )
                except httpx.HTTPError:
                    return  # the server is gone: nothing of this batch was acknowledged
                if answer.status_code != 202:
                    continue
                with lock:
                    acked.update(answer.json()["accepted"])
                    if len(acked) >= goal:
                        enough.set()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    try:
        assert enough.wait(120), "the writers were not acknowledged in time"
        server.kill()  # SIGKILL to the whole group, mid-stream
    finally:
        stop.set()
        for thread in threads:
            thread.join(60)
        server.kill()


def test_every_acknowledged_event_is_in_the_stream_within_seconds_of_each_kill_9_restart(
    tmp_path: Path,
) -> None:
    data_dir, port = tmp_path / "data", free_port()
    sent: dict[str, str] = {}  # event id -> account domain, of every event sent
    acked: set[str] = set()  # the ids of 202 answers
    stream = StreamReader()
    heals: list[float] = []
    server, base = start_crashable(data_dir, port)
    try:
        with httpx.Client(timeout=30) as client:
            for round_no in range(ROUNDS):
                _write_then_kill(server, base, round_no=round_no, sent=sent, acked=acked)
                server, _ = start_crashable(data_dir, port)  # the same port: the same base
                answering = time.monotonic()
                wait_for(
                    lambda: acked <= stream.read(client, base),
                    timeout=90,
                    interval=0.2,
                    what="every acknowledged event in the stream",
                )
                heals.append(round(time.monotonic() - answering, 1))
                logger.info(
                    "round %d: %d acknowledged, all in the stream %.1f s after the restart",
                    round_no + 1,
                    len(acked),
                    heals[-1],
                )
            stream.read(client, base)
            summaries = {
                domain: client.get(
                    f"{base}/api/public/v1/signals/accounts/{domain}",
                    headers={"x-api-key": SIGNALS_KEY},
                ).json()
                for domain in DOMAINS
            }
    finally:
        server.stop()

    assert [heal for heal in heals if heal > HEAL_SECONDS] == [], heals
    copies = Counter(stream.ids)
    assert [event_id for event_id in acked if copies[event_id] != 1] == []
    assert len(stream.ids) == len(copies)  # nothing in the stream twice
    per_domain = Counter(sent[event_id] for event_id in stream.ids)  # stored, acked or not
    for domain in DOMAINS:
        account = summaries[domain].get("account", summaries[domain])
        assert account["counts"]["events"] == per_domain[domain], domain
