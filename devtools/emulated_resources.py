"""What terraform/pubsub.tf, storage.tf and tasks.tf create, created on the emulators.

Topics, push subscriptions with their dead letter policy, the pull subscriptions that hold
dead letters and mail, the image bucket and the deliveries queue; over the emulators' REST
APIs (Pub/Sub, storage) and the Cloud Tasks client (the tasks emulator speaks only gRPC).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

import httpx

GENERATION_TOPIC = "generation-jobs"
SIGNALS_TOPIC = "signal-events"
MAIL_TOPIC = "mail"
DEAD_LETTER_SUFFIX = "-dead-letter"
MAIL_OUTBOX = "mail-outbox"
QUEUE = "deliveries"
LOCATION = "us-central1"


@dataclass(frozen=True)
class Worker:
    """One functions-framework target and the subscription that pushes to it."""

    name: str
    target: str
    topic: str
    subscription: str
    ack_deadline_seconds: int
    dead_letter: bool  # a dead letter policy on its subscription (terraform/pubsub.tf)


WORKERS = (
    Worker("generation", "generate_page", GENERATION_TOPIC, "generation-jobs-push", 600, True),
    Worker(
        "generation-dead-letter",
        "generation_dead_letter",
        GENERATION_TOPIC + DEAD_LETTER_SUFFIX,
        "generation-jobs-dead-letter-push",
        60,
        False,
    ),
    Worker("ingest", "ingest_signals", SIGNALS_TOPIC, "signal-events-push", 60, True),
)
TOPICS = (
    GENERATION_TOPIC,
    GENERATION_TOPIC + DEAD_LETTER_SUFFIX,
    SIGNALS_TOPIC,
    SIGNALS_TOPIC + DEAD_LETTER_SUFFIX,
    MAIL_TOPIC,
)
# Pull subscriptions that keep what nobody pushes anywhere: dead letters (as terraform's
# *-dead-letter-hold, for inspection) and mail (shown on the terminal).
PULL_SUBSCRIPTIONS = {
    "generation-jobs-dead-letter-hold": GENERATION_TOPIC + DEAD_LETTER_SUFFIX,
    "signal-events-dead-letter-hold": SIGNALS_TOPIC + DEAD_LETTER_SUFFIX,
    MAIL_OUTBOX: MAIL_TOPIC,
}


def create_resources(
    project: str,
    *,
    pubsub_host: str,
    storage_host: str,
    tasks_host: str,
    bucket: str,
    worker_ports: dict[str, int],
    max_delivery_attempts: int,
) -> None:
    """Topics, subscriptions (push with dead letters, and pulls), the bucket and the queue."""
    with httpx.Client(base_url=f"http://{pubsub_host}/v1", timeout=10) as pubsub:
        for topic in TOPICS:
            _put(pubsub, f"/projects/{project}/topics/{topic}", {})
        for worker in WORKERS:
            body: dict[str, Any] = {
                "topic": f"projects/{project}/topics/{worker.topic}",
                "pushConfig": {"pushEndpoint": f"http://127.0.0.1:{worker_ports[worker.name]}/"},
                "ackDeadlineSeconds": worker.ack_deadline_seconds,
            }
            if worker.dead_letter:
                body["deadLetterPolicy"] = {
                    "deadLetterTopic": f"projects/{project}/topics/{worker.topic}"
                    + DEAD_LETTER_SUFFIX,
                    "maxDeliveryAttempts": max_delivery_attempts,
                }
            _put(pubsub, f"/projects/{project}/subscriptions/{worker.subscription}", body)
        for name, topic in PULL_SUBSCRIPTIONS.items():
            body = {"topic": f"projects/{project}/topics/{topic}"}
            _put(pubsub, f"/projects/{project}/subscriptions/{name}", body)
    with httpx.Client(base_url=f"http://{storage_host}", timeout=10) as storage:
        answer = storage.post("/storage/v1/b", params={"project": project}, json={"name": bucket})
        if answer.status_code not in (200, 409):
            raise RuntimeError(f"bucket {bucket}: {answer.status_code} {answer.text}")
    _create_queue(tasks_host, project)


def _put(client: httpx.Client, path: str, body: dict[str, Any]) -> None:
    answer = client.put(path, json=body)
    if answer.status_code not in (200, 409):  # 409: it exists (a second run on one emulator)
        raise RuntimeError(f"{path}: {answer.status_code} {answer.text}")


def _create_queue(tasks_host: str, project: str) -> None:
    # Imported here: the Cloud Tasks client is the only gRPC client this module needs.
    from backends.gcp.tasks import cloud_tasks_client, ensure_queue, queue_path

    client = cloud_tasks_client(emulator_host=tasks_host)
    try:
        ensure_queue(client, queue_path(project=project, location=LOCATION, queue=QUEUE))
    finally:
        client.transport.close()  # type: ignore[no-untyped-call]  # google-cloud-tasks: untyped


def pull_messages(pubsub_host: str, project: str, subscription: str) -> list[dict[str, Any]]:
    """Pull and ack what waits on a pull subscription: `{data, attributes}` per message."""
    path = f"/projects/{project}/subscriptions/{subscription}"
    with httpx.Client(base_url=f"http://{pubsub_host}/v1", timeout=10) as pubsub:
        answer = pubsub.post(f"{path}:pull", json={"maxMessages": 100, "returnImmediately": True})
        answer.raise_for_status()
        received = answer.json().get("receivedMessages", [])
        if received:
            ack_ids = [m["ackId"] for m in received]
            pubsub.post(f"{path}:acknowledge", json={"ackIds": ack_ids}).raise_for_status()
    messages = []
    for item in received:
        message = item["message"]
        try:
            data = base64.b64decode(message.get("data", ""))
        except (binascii.Error, ValueError):
            data = b""
        messages.append({"data": data, "attributes": message.get("attributes", {})})
    return messages
