"""PubSubJobQueue: generation jobs published to a Pub/Sub topic, pushed to the workers."""

from __future__ import annotations

import json

from google.api_core import exceptions as gexc
from google.cloud import pubsub_v1  # type: ignore[attr-defined,unused-ignore]  # no stubs; mypy sees it only sometimes

from backends.ports import UnavailableError

PUBLISH_TIMEOUT_SECONDS = 30.0


class PubSubJobQueue:
    """JobQueue on Pub/Sub; the emulator is picked up from PUBSUB_EMULATOR_HOST."""

    def __init__(self, publisher: pubsub_v1.PublisherClient, *, project: str, topic: str) -> None:
        self._publisher = publisher
        self._topic_path = publisher.topic_path(project, topic)

    def publish_job(self, job_id: str) -> None:
        body = json.dumps({"job_id": job_id}, separators=(",", ":")).encode()
        try:
            future = self._publisher.publish(self._topic_path, body, kind="generation")
            future.result(timeout=PUBLISH_TIMEOUT_SECONDS)
        except (gexc.GoogleAPICallError, TimeoutError) as err:
            raise UnavailableError("pubsub") from err
