"""PubSubPublisher: publish messages to one Pub/Sub topic (the emulator via PUBSUB_EMULATOR_HOST).

The client is built on the first publish, so building the backends stays cheap. Topics and
their push subscriptions are created by Terraform (tests create their own).
"""

from __future__ import annotations

import threading
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from google.api_core import exceptions as gexc
from google.cloud import pubsub_v1  # type: ignore[attr-defined]  # re-exported without __all__

from backends.gcp.deadline import DEFAULT_DEADLINE, CallDeadline
from backends.ports import UnavailableError


class PubSubPublisher:
    """Publishes bytes to `projects/{project}/topics/{topic}` and waits for the server's ack,
    for `deadline` at most."""

    def __init__(
        self,
        *,
        project: str,
        topic: str,
        client: Any = None,
        deadline: CallDeadline = DEFAULT_DEADLINE,
    ) -> None:
        self.topic_path = f"projects/{project}/topics/{topic}"
        self._client = client
        self._deadline = deadline
        self._lock = threading.Lock()

    def _publisher(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = pubsub_v1.PublisherClient()
            return self._client

    def publish(self, data: bytes, **attributes: str) -> None:
        """Publish one message. Raises: UnavailableError if Pub/Sub does not take it in time."""
        try:
            # Retried as a read is: a message sent twice is harmless (Pub/Sub delivers at least
            # once, and the workers store by id); the batch gives up with the same deadline.
            future = self._publisher().publish(
                self.topic_path, data, **self._deadline.read, **attributes
            )
            future.result(timeout=self._deadline.seconds)
        except (gexc.GoogleAPICallError, gexc.RetryError, FutureTimeout) as err:
            raise UnavailableError(f"pubsub publish to {self.topic_path}") from err
