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

from backends.ports import UnavailableError


class PubSubPublisher:
    """Publishes bytes to `projects/{project}/topics/{topic}` and waits for the server's ack."""

    def __init__(
        self, *, project: str, topic: str, client: Any = None, timeout: float = 30.0
    ) -> None:
        self.topic_path = f"projects/{project}/topics/{topic}"
        self._client = client
        self._timeout = timeout
        self._lock = threading.Lock()

    def _publisher(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = pubsub_v1.PublisherClient()
            return self._client

    def publish(self, data: bytes, **attributes: str) -> None:
        """Publish one message. Raises: UnavailableError if Pub/Sub does not take it in time."""
        try:
            future = self._publisher().publish(self.topic_path, data, **attributes)
            future.result(timeout=self._timeout)
        except (gexc.GoogleAPICallError, gexc.RetryError, FutureTimeout) as err:
            raise UnavailableError(f"pubsub publish to {self.topic_path}") from err
