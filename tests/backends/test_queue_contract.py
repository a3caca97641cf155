"""Contract suite for the work queues: the embedded durable queue and a Pub/Sub push
subscription with a dead-letter policy (on the emulator) keep the same promises.

Both sides push each message to a local receiver as the worker would see it; the receiver's
answer is the worker's (2xx acks). Delivery is at least once, a message that fails is delivered
again, one that fails `max_attempts` (5, Pub/Sub's least) times is held as a dead letter, one
whose worker is still at work past its lease is not delivered again meanwhile (the embedded
queue renews a short lease; a push holds its message until its request ends), and one whose
worker never answers is delivered again once its deadline (the push's ack deadline, the
embedded queue's longest hold) lapses.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from backends.embedded.queue_table import QueueTable, queue_database
from backends.embedded.queues import DurableQueue
from tests.polling import wait_for
from tests.webhook_receiver import Receiver, running_receiver

pytestmark = pytest.mark.spec("signals.ingest")

MAX_ATTEMPTS = 5
PROJECT = "demo-frontdoor"


@dataclass
class QueueSide:
    """One adapter under test: publish, what was delivered (decoded), the dead letters."""

    publish: Callable[[bytes], None]
    delivered: Callable[[Receiver], list[bytes]]
    dead_letters: Callable[[], list[bytes]]
    lease_seconds: float


# (the receiver, the lease, the deadline: the longest one delivery may hold its message)
Build = Callable[[Receiver, float, float], QueueSide]


@pytest.fixture(params=["embedded", pytest.param("pubsub", marks=pytest.mark.emulator)])
def build_side(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Build]:
    closers: list[Callable[[], None]] = []
    if request.param == "embedded":

        def embedded(receiver: Receiver, lease: float, deadline: float) -> QueueSide:
            table = QueueTable(queue_database(tmp_path))
            queue = DurableQueue(
                table,
                "contract",
                threads=2,
                max_attempts=MAX_ATTEMPTS,
                backoff=lambda attempt: 0.05,
                lease_seconds=lease,
                max_hold_seconds=deadline,
                poll_seconds=0.05,
            )
            client = httpx.Client(timeout=60)

            def push(data: bytes) -> None:  # the worker: 2xx acks, anything else retries
                client.post(f"{receiver.url}/push", content=data).raise_for_status()

            queue.start(push)
            closers.extend([client.close, lambda: queue.close(timeout=1)])
            return QueueSide(
                publish=queue.publish,
                delivered=lambda r: [req.body for req in r.requests],
                dead_letters=lambda: [d.body for d in table.dead_letters("contract")],
                lease_seconds=lease,
            )

        yield embedded
    else:
        request.getfixturevalue("pubsub_emulator")
        yield lambda receiver, lease, deadline: _pubsub_side(receiver, deadline, closers)
    for close in reversed(closers):
        close()


def _pubsub_side(
    receiver: Receiver, deadline: float, closers: list[Callable[[], None]]
) -> QueueSide:
    from google.cloud import pubsub_v1  # type: ignore[attr-defined,unused-ignore]  # no stubs

    from backends.gcp.pubsub import PubSubPublisher

    publisher, subscriber = pubsub_v1.PublisherClient(), pubsub_v1.SubscriberClient()
    suffix = uuid.uuid4().hex[:8]
    topic = publisher.topic_path(PROJECT, f"work-{suffix}")
    dead = publisher.topic_path(PROJECT, f"work-{suffix}-dead-letter")
    hold = subscriber.subscription_path(PROJECT, f"work-{suffix}-dead-letter-hold")
    publisher.create_topic(name=topic)
    publisher.create_topic(name=dead)
    subscriber.create_subscription(name=hold, topic=dead)
    subscriber.create_subscription(
        request={
            "name": subscriber.subscription_path(PROJECT, f"work-{suffix}-push"),
            "topic": topic,
            "push_config": {"push_endpoint": f"{receiver.url}/push"},
            # A push holds its message for its request, up to the ack deadline (10 s at least).
            "ack_deadline_seconds": max(10, int(deadline)),
            "dead_letter_policy": {"dead_letter_topic": dead, "max_delivery_attempts": 5},
        }
    )
    held: list[bytes] = []

    def dead_letters() -> list[bytes]:
        answer = subscriber.pull(subscription=hold, max_messages=10, timeout=5)
        if answer.received_messages:
            subscriber.acknowledge(
                subscription=hold, ack_ids=[m.ack_id for m in answer.received_messages]
            )
        held.extend(m.message.data for m in answer.received_messages)
        return list(held)

    closers.append(subscriber.close)
    side = PubSubPublisher(project=PROJECT, topic=topic.split("/")[-1], client=publisher)
    return QueueSide(
        publish=side.publish,
        delivered=lambda r: [
            base64.b64decode(json.loads(req.body)["message"]["data"]) for req in r.requests
        ],
        dead_letters=dead_letters,
        lease_seconds=deadline,
    )


def test_a_published_message_is_delivered_and_acked_by_a_2xx(build_side: Build) -> None:
    with running_receiver() as receiver:
        side = build_side(receiver, 10, 10)

        side.publish(b'{"n": 1}')

        receiver.wait_for(1)
        assert side.delivered(receiver)[0] == b'{"n": 1}'
        assert side.dead_letters() == []


def test_a_message_whose_worker_fails_is_delivered_again_until_it_succeeds(
    build_side: Build,
) -> None:
    with running_receiver([500, 503]) as receiver:
        side = build_side(receiver, 10, 10)

        side.publish(b"flaky")

        receiver.wait_for(3, timeout=20)
        assert side.delivered(receiver)[:3] == [b"flaky"] * 3
        assert [r.status for r in receiver.requests[:3]] == [500, 503, 200]
        assert side.dead_letters() == []


def test_a_message_that_fails_every_attempt_is_held_as_a_dead_letter(build_side: Build) -> None:
    with running_receiver(default_status=500) as receiver:
        side = build_side(receiver, 10, 10)

        side.publish(b"poison")

        receiver.wait_for(MAX_ATTEMPTS, timeout=30)
        wait_for(lambda: side.dead_letters() == [b"poison"], timeout=30, interval=0.2)
        assert side.delivered(receiver) == [b"poison"] * MAX_ATTEMPTS


def test_a_message_whose_worker_is_at_work_past_its_lease_is_not_delivered_again_meanwhile(
    build_side: Build,
) -> None:
    """A worker still at work keeps its message: its lease follows the work."""
    arrivals: list[float] = []
    working = threading.Event()

    def work_for_three_leases() -> None:
        arrivals.append(time.monotonic())  # every delivery, before its answer is recorded
        if len(arrivals) == 1:
            working.wait(3.5)  # the first delivery's work: three and a half leases of 1 s

    with running_receiver(on_request=work_for_three_leases) as receiver:
        side = build_side(receiver, 1, 10)
        side.publish(b"slow")

        receiver.wait_for(1, timeout=30)  # the first answer recorded (or a redelivery's)

        assert len(arrivals) == 1  # no second delivery while the first worked
        assert side.delivered(receiver) == [b"slow"]


def test_a_message_whose_worker_never_answers_is_delivered_again_after_its_deadline(
    build_side: Build,
) -> None:
    """A worker that hangs (or died) holds the message only until its deadline lapses."""
    release = threading.Event()
    first = threading.Event()

    def hang_first() -> None:
        if not first.is_set():
            first.set()
            release.wait(30)  # the first delivery's worker never answers in time

    with running_receiver(on_request=hang_first) as receiver:
        side = build_side(receiver, 1, 3)
        side.publish(b"held")

        receiver.wait_for(1, timeout=30)  # the redelivery, recorded while the first still hangs
        release.set()
        receiver.wait_for(2, timeout=30)

        assert side.delivered(receiver)[:2] == [b"held", b"held"]


_CLAIM_AND_HANG = """
import sys, threading
from pathlib import Path
from backends.embedded.queue_table import QueueTable, queue_database
from backends.embedded.queues import DurableQueue

queue = DurableQueue(QueueTable(queue_database(Path(sys.argv[1]))), "contract", threads=1,
                     lease_seconds=120.0, poll_seconds=0.05)
def hang(body):
    print("claimed", body.decode(), flush=True)
    threading.Event().wait()
queue.start(hang)
threading.Event().wait()
"""


def test_embedded_a_message_held_by_a_process_killed_with_sigkill_is_delivered_at_the_next_start(
    tmp_path: Path,
) -> None:
    """kill -9 in the middle: committed messages survive, and the one the dead process held
    (on a 2-minute lease) is delivered by the next start on this host without waiting for it."""
    table = QueueTable(queue_database(tmp_path))
    table.put("contract", [b"a", b"b"])  # committed before the process that takes them starts
    proc = subprocess.Popen(  # noqa: S603  # this interpreter, a fixed script
        [sys.executable, "-c", _CLAIM_AND_HANG, str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "claimed a"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()
    got: list[bytes] = []
    queue = DurableQueue(table, "contract", threads=1, lease_seconds=120, poll_seconds=0.05)
    queue.start(got.append)
    try:
        assert queue.drain(timeout=20)
    finally:
        queue.close(timeout=5)

    assert sorted(got) == [b"a", b"b"]
    assert table.dead_letters("contract") == []
