"""Signal use cases: queue validated events for the ingest worker (the Signal API's batch
ingest, the site's collect endpoint) and erase a person (GDPR). Keyword-only functions over the
signal and webhook ports; the ingest worker that stores queued events is workers/ingest.py.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from backends.ports import SignalQueue, SignalStore, StreamQuery, SuppressionStore, WebhookStore
from schemas.signals.events import IngestMessage, NewEvent, Position

__all__ = [
    "ErasedPerson",
    "email_hash",
    "encode_ingest_message",
    "erase_person",
    "queue_events",
]

PAGE_SIZE = 1000  # events read per stream page while listing a person's events


@dataclass(frozen=True)
class ErasedPerson:
    """What an erasure removed."""

    events_removed: int
    deliveries_removed: int


def email_hash(email: str) -> str:
    """How logs name a person: never the address."""
    return hashlib.sha256(email.encode()).hexdigest()[:16]


def encode_ingest_message(events: Sequence[NewEvent]) -> bytes:
    """The queue message for a batch of validated events."""
    return IngestMessage(events=list(events)).model_dump_json().encode()


def queue_events(*, signal_queue: SignalQueue, events: Sequence[NewEvent]) -> None:
    """Hand validated events to the ingest queue; the ingest worker stores them once by id.

    Raises: UnavailableError when the queue is down (nothing was queued).
    """
    signal_queue.publish(encode_ingest_message(events))


def erase_person(
    *,
    signals: SignalStore,
    webhooks: WebhookStore,
    suppressions: SuppressionStore,
    email: str,
    now: datetime,
) -> ErasedPerson:
    """Hold `email` in the suppression list, then remove every event of it and the webhook
    deliveries that carry them.

    The address is held first, so an event queued meanwhile is dropped by the ingest worker
    instead of bringing the person back. Delivery records keep each event's payload (with the
    address) for replays. Those of the listed events go first, while the events still name the
    person: if a later step fails, a retry lists whatever is left and erases it.
    """
    suppressions.suppress(email, now=now)
    listed = _event_ids_of(signals, email)
    deliveries = webhooks.erase_deliveries_for_events(listed)
    event_ids = signals.erase_person(email)
    seen = set(listed)
    unlisted = [i for i in event_ids if i not in seen]  # stored meanwhile
    deliveries += webhooks.erase_deliveries_for_events(unlisted)
    return ErasedPerson(events_removed=len(event_ids), deliveries_removed=deliveries)


def _event_ids_of(signals: SignalStore, email: str) -> list[str]:
    """The ids of every event of the person the stream shows, oldest first."""
    after: Position | None = Position(recorded_at=datetime(1970, 1, 1, tzinfo=UTC))
    ids: list[str] = []
    while after is not None:
        page = signals.read_stream(
            StreamQuery(after=after, forward=True, email=email, limit=PAGE_SIZE)
        )
        ids += [e.id for e in reversed(page.events)]
        after = page.last if page.has_more else None
    return ids
