"""Issue 13, must show: a server killed with SIGKILL while 4 writers send batches of up to 500
events loses nothing it acknowledged. After a restart on the same DATA_DIR every acknowledged id
is in the stream exactly once and each account's roll-up counts match its events."""

from __future__ import annotations

import random
import threading
from collections import Counter
from pathlib import Path

import httpx
import pytest

from tests.fault.served_crash import (
    INGEST_KEY,
    SIGNALS_KEY,
    random_batch,
    start_crashable,
    stream_ids,
)
from tests.polling import wait_for

pytestmark = pytest.mark.spec("signals.ingest")

WRITERS = 4
DOMAINS = [f"fault{n}.example" for n in range(12)]
KILL_AFTER_ACKED = 6_000


def test_every_acknowledged_event_survives_a_kill_9_exactly_once_with_matching_rollups(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "data"
    server, base = start_crashable(data_dir)
    sent: dict[str, str] = {}  # event id -> account domain, of every event sent
    acked: set[str] = set()  # the ids of 202 answers
    lock = threading.Lock()
    stop = threading.Event()
    enough = threading.Event()

    def writer(number: int) -> None:
        rng = random.Random(number)  # noqa: S311  # test data, not secrets
        with httpx.Client(timeout=30) as client:
            serial = 0
            while not stop.is_set():
                serial += 1
                events = random_batch(
                    f"w{number}-b{serial}", domains=DOMAINS, people=40, max_size=500, rng=rng
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
                    continue  # the server is gone: nothing of this batch was acknowledged
                if answer.status_code != 202:
                    continue
                with lock:
                    acked.update(answer.json()["accepted"])
                    if len(acked) >= KILL_AFTER_ACKED:
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

    restarted, base = start_crashable(data_dir)
    try:
        with httpx.Client(timeout=30) as client:
            wait_for(
                lambda: acked <= set(stream_ids(client, base)),
                timeout=90,
                interval=0.5,
                what="every acknowledged event in the stream",
            )
            ids = stream_ids(client, base)
            summaries = {
                domain: client.get(
                    f"{base}/api/public/v1/signals/accounts/{domain}",
                    headers={"x-api-key": SIGNALS_KEY},
                ).json()
                for domain in DOMAINS
            }
    finally:
        restarted.stop()

    copies = Counter(ids)
    assert [event_id for event_id in acked if copies[event_id] != 1] == []
    assert len(ids) == len(copies)  # nothing in the stream twice
    per_domain = Counter(sent[event_id] for event_id in ids)  # stored, acknowledged or not
    for domain in DOMAINS:
        account = summaries[domain].get("account", summaries[domain])
        assert account["counts"]["events"] == per_domain[domain], domain
