"""Nothing is lost to a crash in emulated mode (`make run-emulated`'s stack), and it heals fast:
in each of ROUNDS rounds, SIGKILL the API and the worker processes while 4 writers send signal
batches (up to 100 events: the Firestore emulator is slow) and generation jobs are queued and
running. The emulators keep their messages: every acknowledged event is in the stream within
HEAL_SECONDS of the restarted API answering (a batch dead-lettered meanwhile is published again,
as the runbook says), and every job of the round is `succeeded` or `failed` within
TERMINAL_SECONDS; at the end every acknowledged event is in the stream exactly once with
matching account counts, and no job took more than two writer calls.

The figures of a run (seconds from the restart answering to the last acknowledged event in the
stream and to the last job terminal, per round) are logged:
`pytest tests/fault/test_kill_emulated.py --log-cli-level=INFO`.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from datetime import timedelta

import httpx
import pytest

from backends.clock import utc_now
from backends.gcp.pubsub import PubSubPublisher
from devtools.emulated import EmulatedStack
from devtools.emulated_resources import SIGNALS_TOPIC
from tests.acceptance.conftest import emulated_stack  # noqa: F401  # the session's stack
from tests.fault.served_crash import random_batch
from tests.polling import wait_for

pytestmark = [pytest.mark.emulator, pytest.mark.spec("signals.ingest")]

logger = logging.getLogger(__name__)

ROUNDS = 3
WRITERS = 4
# The Firestore emulator stores a few hundred events a second at best (tens on a loaded
# machine), so each writer sends at most BATCHES batches of up to BATCH_MAX events a round.
BATCHES, BATCH_MAX = 3, 100
KILL_AFTER_ACKED = 200  # newly acknowledged events in a round before its kill
JOBS = 4  # per round, posted just before the kill: queued or running when the processes die
HEAL_SECONDS = 15.0
TERMINAL_SECONDS = 30.0
DOMAINS = 6


def _write_then_kill(
    stack: EmulatedStack, *, tag: str, domains: list[str], sent: dict[str, str], acked: set[str]
) -> list[httpx.Response]:
    """WRITERS threads send batches until KILL_AFTER_ACKED more are acknowledged; then JOBS
    generation jobs are posted and the API and the workers are killed with SIGKILL, mid-stream;
    the answers to the job posts."""
    lock = threading.Lock()
    stop, enough = threading.Event(), threading.Event()
    goal = len(acked) + KILL_AFTER_ACKED

    def writer(number: int) -> None:
        rng = random.Random(f"{tag}w{number}")  # noqa: S311  # test data, not secrets
        with httpx.Client(base_url=stack.base_url, timeout=30, trust_env=False) as http:
            serial = 0
            while not stop.is_set() and serial < BATCHES:
                serial += 1
                events = random_batch(
                    f"{tag}w{number}b{serial}",
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
                        if len(acked) >= goal:
                            enough.set()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    try:
        assert enough.wait(120), "the writers were not acknowledged in time"
        with httpx.Client(base_url=stack.base_url, timeout=30, trust_env=False) as http:
            jobs = [
                http.post(
                    "/api/public/content/pages/generate",
                    json={
                        "slug": f"kill-{tag}-{n}",
                        "topic": "Attribution you can check",
                        "icp": "Heads of growth at Series A SaaS companies",
                    },
                    headers={"x-api-key": stack.keys["content"], "Prefer": "respond-async"},
                )
                for n in range(JOBS)
            ]
        for name in ("api", "ingest", "generation"):
            stack.kill(name)  # SIGKILL, mid-stream
    finally:
        stop.set()
        for thread in threads:
            thread.join(60)
    return jobs


def _seconds_until(checks: dict[str, Callable[[], bool]], *, since: float) -> dict[str, float]:
    """Poll every check together until each has held once; the seconds from `since` to the
    poll each was first seen true in."""
    healed: dict[str, float] = {}

    def all_seen() -> bool:
        for name, check in checks.items():
            if name not in healed and check():
                healed[name] = round(time.monotonic() - since, 1)
        return len(healed) == len(checks)

    wait_for(all_seen, timeout=120, interval=0.2, what=f"{', '.join(checks)} healed")
    return healed


def all_terminal(jobs: list[dict[str, object]]) -> bool:
    return all(job["status"] in ("succeeded", "failed") for job in jobs)


def test_every_acknowledged_event_and_job_heals_within_seconds_of_each_emulated_kill_9(
    emulated_stack: EmulatedStack,  # noqa: F811  # the imported fixture
) -> None:
    stack = emulated_stack
    run = uuid.uuid4().hex[:6]
    domains = [f"k{run}{n}.example" for n in range(DOMAINS)]
    content = {"x-api-key": stack.keys["content"]}
    read = {"x-api-key": stack.keys["signals"]}
    sent: dict[str, str] = {}  # event id -> account domain, of every event sent
    acked: set[str] = set()  # the ids of 202 answers
    jobs: list[httpx.Response] = []
    replayed: list[bytes] = []
    heals: list[float] = []
    terminal: list[float] = []
    publisher = PubSubPublisher(project=stack.config.project, topic=SIGNALS_TOPIC)
    with httpx.Client(base_url=stack.base_url, timeout=30, trust_env=False) as http:

        def stream(start: str = "2000-01-01T00:00:00Z") -> list[str]:
            """Every event id of this run's domains in the stream from `start` on."""
            ids: list[str] = []
            for domain in domains:
                since = start
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

        def counted() -> Counter[str]:
            """Each domain's event count in its account roll-up (one small read a domain)."""
            counts: Counter[str] = Counter()
            for d in domains:
                body = http.get(f"/api/public/v1/signals/accounts/{d}", headers=read).json()
                account = body.get("account") or {}  # null until its first event is stored
                counts[d] = int((account.get("counts") or {}).get("events", 0))
            return counts

        def stored_or_replayed() -> bool:
            # A batch pushed max_delivery_attempts times while its worker was down waits on
            # the dead-letter hold: the operator's runbook publishes it again (terraform/README).
            for held in stack.pull("signal-events-dead-letter-hold"):
                replayed.append(held["data"])
                publisher.publish(held["data"])
            # The stream is read whole only once the roll-ups count as many events as were
            # acknowledged (a batch's events and its roll-up commit together): reading every
            # event five times a second would load the Firestore emulator the workers wait on.
            if not counted() >= Counter(sent[i] for i in acked):
                return False
            # Earlier rounds' events were all seen in their rounds: read this round's only.
            seen.update(stream(round_start))
            return acked <= seen

        def finished() -> list[dict[str, object]]:
            return [
                http.get(job.headers["location"], headers=content).json()["job"] for job in jobs
            ]

        seen: set[str] = set()
        for round_no in range(ROUNDS):
            # Stored from here on (the worker's clock is this machine's), a little before.
            round_start = (utc_now() - timedelta(seconds=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
            tag = f"{run}r{round_no}"
            jobs += _write_then_kill(stack, tag=tag, domains=domains, sent=sent, acked=acked)
            stack.restart("ingest")  # first: Pub/Sub is pushing to it meanwhile
            stack.revive()  # new instances on the same ports; Pub/Sub kept the messages
            healed = _seconds_until(
                {"events": stored_or_replayed, "jobs": lambda: all_terminal(finished())},
                since=time.monotonic(),  # the restarted API answers
            )
            heals.append(healed["events"])
            terminal.append(healed["jobs"])
            logger.info(
                "round %d: %d acknowledged, all in the stream %.1f s after the restart"
                " (%d batches replayed from the dead letters); %d jobs, all terminal %.1f s %s",
                round_no + 1,
                len(acked),
                heals[-1],
                len(replayed),
                len(jobs),
                terminal[-1],
                dict(Counter(str(job["status"]) for job in finished())),
            )
        ids = stream()
        accounts = {
            d: http.get(f"/api/public/v1/signals/accounts/{d}", headers=read).json()
            for d in domains
        }
        final = finished()

    assert [heal for heal in heals if heal > HEAL_SECONDS] == [], heals
    assert [seconds for seconds in terminal if seconds > TERMINAL_SECONDS] == [], terminal
    assert {job.status_code for job in jobs} == {202}
    copies = Counter(ids)
    assert [i for i in acked if copies[i] != 1] == []
    assert len(ids) == len(copies)
    per_domain = Counter(sent[i] for i in ids)
    for domain in domains:
        assert accounts[domain]["account"]["counts"]["events"] == per_domain[domain], domain
    assert all(int(job["writer_calls"]) <= 2 for job in final)  # type: ignore[call-overload]
