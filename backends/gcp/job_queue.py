"""PubSubJobQueue: generation jobs published to a Pub/Sub topic, pushed to the workers.

Publishing goes through the shared PubSubPublisher (backends/gcp/pubsub.py), which waits for
the server's ack and turns failures into UnavailableError.
"""

from __future__ import annotations

import json
import time

from backends.gcp.pubsub import PubSubPublisher


class PubSubJobQueue:
    """JobQueue on Pub/Sub; the emulator is picked up from PUBSUB_EMULATOR_HOST."""

    def __init__(self, publisher: PubSubPublisher) -> None:
        self._publisher = publisher

    def publish_job(self, job_id: str) -> None:
        body = json.dumps({"job_id": job_id}, separators=(",", ":")).encode()
        self._publisher.publish(body, kind="generation")

    def wait(self, seconds: float) -> None:
        """The workers run elsewhere and say nothing here: just let the time pass."""
        time.sleep(seconds)
