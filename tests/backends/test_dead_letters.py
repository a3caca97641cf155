"""Contract suite for DeadLetters: the embedded queue table and the Pub/Sub hold
subscriptions (on the emulator) keep what a queue gave up on where an operator sees it, and a
replay delivers it to the queue's worker again, as `frontdoor queues` promises on both.

Each side runs a real queue whose worker pushes every message to a local receiver (its answer
is the worker's: 2xx acks); the receiver fails until the operator has "fixed the cause".
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from backends.embedded.dead_letters import SqliteDeadLetters
from backends.embedded.queue_table import QueueTable, queue_database
from backends.embedded.queues import DurableQueue
from backends.ports import DeadLetters
from tests.polling import wait_for
from tests.webhook_receiver import Receiver, running_receiver

pytestmark = pytest.mark.spec("signals.ingest")

MAX_ATTEMPTS = 5  # Pub/Sub's least
PROJECT = "demo-frontdoor"


@dataclass
class Side:
    """One adapter under test: publish to the `ingest` queue, what its worker was handed."""

    publish: Callable[[bytes], None]
    delivered: Callable[[], list[bytes]]
    dead_letters: DeadLetters


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver(default_status=500) as running:
        yield running


@pytest.fixture(params=["embedded", pytest.param("pubsub", marks=pytest.mark.emulator)])
def side(request: pytest.FixtureRequest, tmp_path: Path, receiver: Receiver) -> Iterator[Side]:
    if request.param == "pubsub":
        request.getfixturevalue("pubsub_emulator")
        yield from _pubsub_side(receiver)
        return
    table = QueueTable(queue_database(tmp_path))
    queue = DurableQueue(
        table,
        "ingest",
        threads=1,
        max_attempts=MAX_ATTEMPTS,
        backoff=lambda attempt: 0.02,
        poll_seconds=0.05,
    )
    with httpx.Client(timeout=30) as client:

        def push(data: bytes) -> None:  # the worker: 2xx acks, anything else retries
            client.post(receiver.url, content=data).raise_for_status()

        queue.start(push)
        yield Side(
            publish=queue.publish,
            delivered=lambda: [r.body for r in receiver.requests],
            dead_letters=SqliteDeadLetters(table),
        )
        queue.close(timeout=1)


def _pubsub_side(receiver: Receiver) -> Iterator[Side]:
    """terraform/pubsub.tf's shape: a push subscription with a dead letter policy, and the
    hold subscription on its dead-letter topic."""
    from google.cloud import pubsub_v1  # type: ignore[attr-defined,unused-ignore]  # no stubs

    from backends.gcp.dead_letters import PubSubDeadLetters
    from backends.gcp.pubsub import PubSubPublisher

    publisher, subscriber = pubsub_v1.PublisherClient(), pubsub_v1.SubscriberClient()
    topic = f"ingest-{uuid.uuid4().hex[:8]}"
    dead = publisher.topic_path(PROJECT, f"{topic}-dead-letter")
    publisher.create_topic(name=publisher.topic_path(PROJECT, topic))
    publisher.create_topic(name=dead)
    subscriber.create_subscription(
        name=subscriber.subscription_path(PROJECT, f"{topic}-dead-letter-hold"), topic=dead
    )
    subscriber.create_subscription(
        request={
            "name": subscriber.subscription_path(PROJECT, f"{topic}-push"),
            "topic": publisher.topic_path(PROJECT, topic),
            "push_config": {"push_endpoint": receiver.url},
            "ack_deadline_seconds": 10,
            "dead_letter_policy": {"dead_letter_topic": dead, "max_delivery_attempts": 5},
        }
    )
    yield Side(
        publish=PubSubPublisher(project=PROJECT, topic=topic, client=publisher).publish,
        delivered=lambda: [
            base64.b64decode(json.loads(r.body)["message"]["data"]) for r in receiver.requests
        ],
        dead_letters=PubSubDeadLetters(
            project=PROJECT,
            topics={"ingest": topic},
            subscriber=subscriber,
            publisher=publisher,
            pull_wait_seconds=0.5,  # an empty pull waits this long; one with messages does not
        ),
    )
    subscriber.close()


def _dead_lettered(side: Side, body: bytes) -> str:
    """Publish `body`, wait until its queue gives up on it; its dead letter's id."""
    side.publish(body)
    wait_for(
        lambda: side.dead_letters.list_dead_letters("ingest"),
        timeout=30,
        interval=0.1,
        what="the dead letter",
    )
    (dead,) = side.dead_letters.list_dead_letters("ingest")
    return dead.id


def test_a_message_that_failed_every_attempt_is_listed_with_its_queue_body_and_attempts(
    side: Side,
) -> None:
    """README "Queues, crashes and dead letters": never to the log alone."""
    dead_id = _dead_lettered(side, b"poison")

    listed = side.dead_letters.list_dead_letters()
    again = side.dead_letters.list_dead_letters("ingest")

    assert [(d.id, d.queue, d.body, d.attempts) for d in listed] == [
        (dead_id, "ingest", b"poison", MAX_ATTEMPTS)
    ]
    assert [d.id for d in again] == [dead_id]  # listing holds it still
    assert side.delivered() == [b"poison"] * MAX_ATTEMPTS


def test_a_replayed_dead_letter_is_delivered_again_and_is_held_no_more(
    side: Side, receiver: Receiver
) -> None:
    """The operator fixes the cause, then `frontdoor queues replay ID`."""
    dead_id = _dead_lettered(side, b"fixed-later")
    receiver.default_status = 200

    unknown = side.dead_letters.replay_dead_letters(["999999999"])
    replayed = side.dead_letters.replay_dead_letters([dead_id])

    assert unknown == []
    assert replayed == [dead_id]
    receiver.wait_for(MAX_ATTEMPTS + 1, timeout=30)
    assert side.delivered()[MAX_ATTEMPTS] == b"fixed-later"
    assert receiver.requests[MAX_ATTEMPTS].status == 200
    assert side.dead_letters.list_dead_letters() == []


def test_replay_all_of_one_queue_replays_every_dead_letter_it_holds(
    side: Side, receiver: Receiver
) -> None:
    """`frontdoor queues replay --all --queue ingest`."""
    side.publish(b"one")
    side.publish(b"two")
    wait_for(
        lambda: len(side.dead_letters.list_dead_letters("ingest")) == 2,
        timeout=30,
        interval=0.1,
        what="both dead letters",
    )
    held = {d.id for d in side.dead_letters.list_dead_letters()}
    receiver.default_status = 200

    replayed = side.dead_letters.replay_dead_letters(None, queue="ingest")

    assert sorted(replayed) == sorted(held)
    receiver.wait_for(2 * MAX_ATTEMPTS + 2, timeout=30)
    assert sorted(side.delivered()[2 * MAX_ATTEMPTS :]) == [b"one", b"two"]
    assert side.dead_letters.list_dead_letters() == []
