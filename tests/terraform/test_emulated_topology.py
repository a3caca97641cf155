"""`make run-emulated` creates what terraform/ creates: the same topics, the same push
subscriptions to the same worker targets with the same dead letter topics, and the same holds."""

from __future__ import annotations

import re

from devtools.emulated_resources import (
    DEAD_LETTER_SUFFIX,
    PULL_SUBSCRIPTIONS,
    QUEUE,
    TOPICS,
    WORKERS,
)
from tests.terraform.config import container, one, push_service, resources, run_services


def test_the_emulated_topics_and_queue_are_terraforms() -> None:
    topics = {body["name"] for body in resources("google_pubsub_topic").values()}
    queues = {body["name"] for body in resources("google_cloud_tasks_queue").values()}

    assert set(TOPICS) == topics
    assert queues == {QUEUE}


def test_each_emulated_push_subscription_is_terraforms_to_the_same_target() -> None:
    """Same name, topic, worker target and dead letter topic as terraform/pubsub.tf."""
    topics = {key: body["name"] for key, body in resources("google_pubsub_topic").items()}
    services = run_services()
    subscriptions = {
        body["name"]: body for body in resources("google_pubsub_subscription").values()
    }

    for worker in WORKERS:
        sub = subscriptions[worker.subscription]
        topic_key = re.fullmatch(r"\$\{google_pubsub_topic\.(\w+)\.id\}", sub["topic"])
        service = push_service(one(sub["push_config"])["push_endpoint"])
        assert topic_key
        assert service
        assert topics[topic_key.group(1)] == worker.topic
        args = container(services[service])["args"]
        assert f"--target={worker.target}" in args
        assert sub["ack_deadline_seconds"] == worker.ack_deadline_seconds
        assert ("dead_letter_policy" in sub) == worker.dead_letter
        if worker.dead_letter:
            dead = re.fullmatch(
                r"\$\{google_pubsub_topic\.(\w+)\.id\}",
                one(sub["dead_letter_policy"])["dead_letter_topic"],
            )
            assert dead
            assert topics[dead.group(1)] == worker.topic + DEAD_LETTER_SUFFIX


def test_the_dead_letter_holds_are_terraforms() -> None:
    pulls = {
        body["name"]
        for body in resources("google_pubsub_subscription").values()
        if "push_config" not in body
    }

    assert {name for name in PULL_SUBSCRIPTIONS if name.endswith("-hold")} == pulls
