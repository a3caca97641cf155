"""PubSubJobQueue: generation jobs published to a Pub/Sub topic, pushed to the workers.

Publishing goes through the shared PubSubPublisher (backends/gcp/pubsub.py), which waits for
the server's ack and turns failures into UnavailableError.
"""

from __future__ import annotations

import time

from backends.gcp.pubsub import PubSubPublisher
from domain.job_messages import encode_job_message


class PubSubJobQueue:
    """JobQueue on Pub/Sub; the emulator is picked up from PUBSUB_EMULATOR_HOST."""

    def __init__(self, publisher: PubSubPublisher) -> None:
        self._publisher = publisher

    def publish_job(self, job_id: str) -> None:
        self._publisher.publish(encode_job_message(job_id), kind="generation")

    def wait(self, seconds: float) -> None:
        """The workers run elsewhere and say nothing here: just let the time pass."""
        time.sleep(seconds)
