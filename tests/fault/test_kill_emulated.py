"""Nothing is lost to a crash in emulated mode (`make run-emulated`'s stack): SIGKILL
the API and the worker processes while 4 writers send signal batches (up to 100 events: the
Firestore emulator is slow) and generation jobs are queued and running. The emulators keep
their messages: after a restart every acknowledged event is in the stream exactly once with
matching account counts (a batch dead-lettered meanwhile is published again, as the runbook
says), and every job ends `succeeded` or `failed` with at most two writer calls."""

from __future__ import annotations

import logging
import random
import threading
import time
import uuid
from collections import Counter

import httpx
import pytest

from backends.gcp.pubsub import PubSubPublisher
from devtools.emulated import EmulatedStack
from devtools.emulated_resources import SIGNALS_TOPIC
from tests.acceptance.conftest import emulated_stack  # noqa: F401  # the session's stack
from tests.fault.served_crash import random_batch
from tests.polling import wait_for

pytestmark = [pytest.mark.emulator, pytest.mark.spec("signals.ingest")]

logger = logging.getLogger(__name__)

WRITERS = 4
# The Firestore emulator stores a few hundred events a second at best (tens on a loaded
# machine), so each writer sends at most BATCHES batches of up to BATCH_MAX events.
BATCHES, BATCH_MAX = 3, 100
KILL_AFTER_ACKED = 200
JOBS = 4


def test_killing_the_api_and_workers_loses_no_acknowledged_event_and_finishes_every_job(
    emulated_stack: EmulatedStack,  # noqa: F811  # the imported fixture
) -> None:
    stack = emulated_stack
    run = uuid.uuid4().hex[:6]
    domains = [f"k{run}{n}.example" for n in range(6)]
    sent: dict[str, str] = {}
    acked: set[str] = set()
    lock = threading.Lock()
    stop, enough = threading.Event(), threading.Event()
    content = {"x-api-key": stack.keys["content"], "Prefer": "respond-async"}

    def writer(number: int) -> None:
        rng = random.Random(number)  # noqa: S311  # test data, not secrets
        with httpx.Client(base_url=stack.base_url, timeout=30, trust_env=False) as http:
            serial = 0
            while not stop.is_set() and serial < BATCHES:
                serial += 1
                events = random_batch(
                    f"{run}w{number}b{serial}",
                    domains=domains,
                    people=20,
                    max_size=BATCH_MAX,
                    rng=rng,
                )
                with lock:
                    sent.update(
                        (f"fault:{e['row_id']}", str(e["account"]["domain"]))  # type: ignore[index]
                        for e in events
                    )
                try:
                    answer = http.post(
                        "/api/public/v1/signals/events",
                        json={"events": events},
                        headers={"x-api-key": stack.keys["ingest"]},
                    )
                except httpx.HTTPError:
                    continue
                if answer.status_code == 202:
                    with lock:
                        acked.update(answer.json()["accepted"])
                        if len(acked) >= KILL_AFTER_ACKED:
                            enough.set()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    try:
        assert enough.wait(120), "the writers were not acknowledged in time"
        # Jobs posted just before the kill: queued or running when the processes die.
        with httpx.Client(base_url=stack.base_url, timeout=30, trust_env=False) as http:
            jobs = [
                http.post(
                    "/api/public/content/pages/generate",
                    json={
                        "slug": f"kill-{run}-{n}",
                        "topic": "Attribution you can check",
                        "icp": "Heads of growth at Series A SaaS companies",
                    },
                    headers=content,
                )
                for n in range(JOBS)
            ]
        for name in ("api", "ingest", "generation"):
            stack.kill(name)  # SIGKILL, mid-stream
    finally:
        stop.set()
        for thread in threads:
            thread.join(60)
        stack.restart("ingest")  # first: Pub/Sub is pushing to it meanwhile
        stack.revive()  # new instances on the same ports; Pub/Sub kept the messages
    answering = time.monotonic()

    read = {"x-api-key": stack.keys["signals"]}
    with httpx.Client(base_url=stack.base_url, timeout=30, trust_env=False) as http:

        def stream() -> list[str]:
            ids: list[str] = []
            for domain in domains:
                since = "2000-01-01T00:00:00Z"
                while True:
                    page = http.get(
                        "/api/public/v1/signals",
                        params={"since": since, "limit": 1000, "domain": domain},
                        headers=read,
                    ).json()
                    ids += [e["id"] for e in page["events"]]
                    if not page.get("has_more"):
                        break
                    since = page["next_since"]
            return ids

        def stored_or_replayed() -> bool:
            # A batch pushed max_delivery_attempts times while its worker was down waits on
            # the dead-letter hold: the operator's runbook publishes it again (terraform/README).
            for held in stack.pull("signal-events-dead-letter-hold"):
                replayed.append(held["data"])
                publisher.publish(held["data"])
            return acked <= set(stream())

        replayed: list[bytes] = []
        publisher = PubSubPublisher(project=stack.config.project, topic=SIGNALS_TOPIC)
        locations = [job.headers["location"] for job in jobs]

        def finished() -> list[dict[str, object]]:
            return [http.get(url, headers=content).json()["job"] for url in locations]

        # Seconds from the restart until each was first seen true (polled together).
        healed: dict[str, float] = {}

        def both() -> bool:
            if "jobs" not in healed and all(
                job["status"] in ("succeeded", "failed") for job in finished()
            ):
                healed["jobs"] = time.monotonic() - answering
            if "events" not in healed and stored_or_replayed():
                healed["events"] = time.monotonic() - answering
            return len(healed) == 2

        wait_for(both, timeout=180, interval=0.5, what="acked stored and every job finished")
        heal, terminal = healed["events"], healed["jobs"]
        ids = stream()
        accounts = {
            d: http.get(f"/api/public/v1/signals/accounts/{d}", headers=read).json()
            for d in domains
        }
        final = finished()
    logger.info(
        "%d acknowledged events stored %.1f s (%d batches replayed from the dead letters),"
        " jobs terminal %.1f s after the restart (%s)",
        len(acked),
        heal,
        len(replayed),
        terminal,
        [job["status"] for job in final],
    )

    assert {job.status_code for job in jobs} == {202}
    copies = Counter(ids)
    assert [i for i in acked if copies[i] != 1] == []
    assert len(ids) == len(copies)
    per_domain = Counter(sent[i] for i in ids)
    for domain in domains:
        assert accounts[domain]["account"]["counts"]["events"] == per_domain[domain], domain
    assert all(int(job["writer_calls"]) <= 2 for job in final)  # type: ignore[call-overload]
