"""PubSubDeadLetters: the DeadLetters port on the `{topic}-dead-letter-hold` pull subscriptions.

A push subscription with a dead letter policy (terraform/pubsub.tf) republishes a message it
gave up on to `{topic}-dead-letter`, whose hold subscription keeps it for 7 days. Listing pulls
the held messages and hands them straight back (ack deadline 0), so they stay held. Replaying
publishes a message's data and own attributes to its queue's topic, waits for Pub/Sub's ack,
then acknowledges the held copy: at least once (a replay cut between the two leaves it held,
and a second replay publishes it again, which the workers' writes keyed by id make harmless).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from google.api_core import exceptions as gexc
from google.cloud import pubsub_v1  # type: ignore[attr-defined]  # re-exported without __all__

from backends.gcp.deadline import DEFAULT_DEADLINE, CallDeadline
from backends.ports import DeadLetter, UnavailableError

HOLD_SUFFIX = "-dead-letter-hold"
# Attributes Pub/Sub adds when it dead-letters a message: not the message's own.
_ADDED_PREFIX = "CloudPubSubDeadLetter"
_DELIVERY_COUNT = "CloudPubSubDeadLetterSourceDeliveryCount"
# Messages asked for per pull (the service's maximum is 1,000).
_PULL_MAX = 1000
# How long one pull waits for held messages: an empty hold answers only once this has passed
# (the service, and the emulator, hold a pull open until there is a message or the deadline).
PULL_WAIT_SECONDS = 2.0
# Pulls of one listing or replay at most (each answers up to _PULL_MAX messages).
_MAX_PULLS = 100
# How long a listing or replay holds what it pulled (Pub/Sub's maximum ack deadline).
HOLD_SECONDS = 600


class PubSubDeadLetters:
    """DeadLetters of the queues in `topics` (operator name -> topic), in project `project`."""

    def __init__(
        self,
        *,
        project: str,
        topics: Mapping[str, str],
        subscriber: Any = None,
        publisher: Any = None,
        deadline: CallDeadline = DEFAULT_DEADLINE,
        pull_wait_seconds: float = PULL_WAIT_SECONDS,
    ) -> None:
        self._project = project
        self._pull_wait = pull_wait_seconds
        self._topics = dict(topics)
        self.queues = tuple(topics)
        self._subscriber = subscriber
        self._publisher = publisher
        self._deadline = deadline
        self._lock = threading.Lock()

    def list_dead_letters(self, queue: str | None = None, *, limit: int = 100) -> list[DeadLetter]:
        found: list[DeadLetter] = []
        for name in self._chosen(queue):
            with self._held(name, limit=limit) as held:
                found += [_dead_letter(name, message) for message in held.values()]
        found.sort(key=lambda dead: (dead.dead_at, dead.id))
        return found[:limit]

    def replay_dead_letters(
        self, ids: Sequence[str] | None = None, *, queue: str | None = None
    ) -> list[str]:
        wanted = None if ids is None else set(ids)
        replayed: list[str] = []
        for name in self._chosen(queue):
            topic = f"projects/{self._project}/topics/{self._topics[name]}"
            with self._held(name, wanted=wanted) as held:
                for message_id in [i for i in held if wanted is None or i in wanted]:
                    self._publish(topic, held[message_id].message)
                    self._acknowledge(self._hold(name), held.pop(message_id).ack_id)
                    replayed.append(message_id)
        return replayed

    def _chosen(self, queue: str | None) -> list[str]:
        if queue is None:
            return list(self._topics)
        if queue not in self._topics:
            raise ValueError(f"no dead letters are held for queue {queue!r}")
        return [queue]

    def _hold(self, queue: str) -> str:
        return f"projects/{self._project}/subscriptions/{self._topics[queue]}{HOLD_SUFFIX}"

    def _client(self) -> Any:
        with self._lock:
            if self._subscriber is None:
                self._subscriber = pubsub_v1.SubscriberClient()
            return self._subscriber

    def _publisher_client(self) -> Any:
        with self._lock:
            if self._publisher is None:
                self._publisher = pubsub_v1.PublisherClient()
            return self._publisher

    @contextmanager
    def _held(
        self, queue: str, *, limit: int | None = None, wanted: set[str] | None = None
    ) -> Iterator[dict[str, Any]]:
        """The messages held for `queue` by id (up to `limit`, or until every id of `wanted` is
        seen), leased to us while the block runs; those the block leaves in the dict are handed
        back after it."""
        subscription = self._hold(queue)
        seen: dict[str, Any] = {}
        try:
            # Until a pull finds nothing: one pull may answer only some of the held messages,
            # and the emulator sometimes hands one we hold over again.
            for _ in range(_MAX_PULLS):
                if limit is not None and len(seen) >= limit:
                    break
                if wanted is not None and wanted <= set(seen):
                    break
                answer = self._pull(subscription)
                if not answer:
                    break
                # Held long enough to replay them one by one (the subscription's own deadline
                # is 10 s): an ack past it is ignored and the message would be replayed twice.
                self._set_deadline(subscription, [m.ack_id for m in answer], HOLD_SECONDS)
                seen.update((m.message.message_id, m) for m in answer)
            yield seen
        finally:
            if seen:
                self._set_deadline(subscription, [m.ack_id for m in seen.values()], 0)

    def _pull(self, subscription: str) -> list[Any]:
        """One pull; an empty hold answers nothing (the emulator) or lets the call time out."""
        try:
            answer = self._client().pull(
                subscription=subscription,
                max_messages=_PULL_MAX,
                retry=self._deadline.retry((gexc.ServiceUnavailable,)),
                timeout=self._pull_wait,
            )
        except gexc.DeadlineExceeded:
            return []
        except gexc.NotFound:
            raise  # no hold subscription: the operator's setup to fix, not a retry
        except (gexc.GoogleAPICallError, gexc.RetryError) as err:
            raise UnavailableError(f"pubsub pull from {subscription}") from err
        return list(answer.received_messages)

    def _set_deadline(self, subscription: str, ack_ids: list[str], seconds: int) -> None:
        # 0 hands the messages back at once. A failure only leaves each on its current deadline:
        # held by us a little longer, or handed back a little sooner.
        try:
            for start in range(0, len(ack_ids), _PULL_MAX):
                self._client().modify_ack_deadline(
                    subscription=subscription,
                    ack_ids=ack_ids[start : start + _PULL_MAX],
                    ack_deadline_seconds=seconds,
                    **self._deadline.write,
                )
        except (gexc.GoogleAPICallError, gexc.RetryError):
            return

    def _publish(self, topic: str, message: Any) -> None:
        attributes = {
            key: value
            for key, value in message.attributes.items()
            if not key.startswith(_ADDED_PREFIX)
        }
        try:
            future = self._publisher_client().publish(
                topic, message.data, **self._deadline.read, **attributes
            )
            future.result(timeout=self._deadline.seconds)
        except (gexc.GoogleAPICallError, gexc.RetryError, FutureTimeout) as err:
            raise UnavailableError(f"pubsub publish to {topic}") from err

    def _acknowledge(self, subscription: str, ack_id: str) -> None:
        try:
            self._client().acknowledge(
                subscription=subscription, ack_ids=[ack_id], **self._deadline.write
            )
        except (gexc.GoogleAPICallError, gexc.RetryError) as err:
            raise UnavailableError(f"acknowledging on {subscription}") from err


def _dead_letter(queue: str, received: Any) -> DeadLetter:
    message = received.message
    count = message.attributes.get(_DELIVERY_COUNT, "")
    return DeadLetter(
        id=message.message_id,
        queue=queue,
        body=bytes(message.data),
        attempts=int(count) if count.isdigit() else None,
        # When the dead-letter topic took it: when it was given up on.
        dead_at=datetime.fromtimestamp(message.publish_time.timestamp(), UTC),
    )
