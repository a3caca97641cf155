"""The ingest worker: queued IngestMessages in, their events stored once with their roll-ups.

Ack or retry on purpose: a malformed message is logged and acked (returns normally); a
transient backend error raises, so Pub/Sub (or the embedded queue) redelivers. Storing is
keyed by event id, so a redelivery stores nothing twice.

Pub/Sub pushes one message per call (`handle_ingest_message`); the embedded queue hands its
worker every due message up to its batch (`store_ingest_messages`), so page views that came
one per request are stored in one transaction, not one each.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from pydantic import ValidationError

from backends.ports import SignalDeliveries, SignalStore, StoreResult, SuppressionStore
from schemas.signals.events import IngestMessage, NewEvent
from services.suppressions import without_suppressed

logger = logging.getLogger(__name__)

# Events per store call (one transaction) when several messages are stored together: big
# enough that a transaction's fixed cost fades, small enough to hold the write lock ~0.5 s.
STORE_CHUNK = 5000


def handle_ingest_message(
    data: bytes,
    *,
    signals: SignalStore,
    deliveries: SignalDeliveries | None = None,
    suppressions: SuppressionStore | None = None,
) -> StoreResult | None:
    """Store one message's events; None when the message is malformed (ack it).

    Raises: UnavailableError (and other backend errors) so that the message is redelivered.
    """
    message = decode_ingest_message(data)
    if message is None or not message.events:
        return None
    return _store(message.events, signals=signals, deliveries=deliveries, held=suppressions)


def decode_ingest_message(data: bytes) -> IngestMessage | None:
    """The message, or None (logged) when it is malformed: it is acked without storing."""
    try:
        return IngestMessage.model_validate_json(data)
    except ValidationError as err:
        logger.warning(
            "ingest message malformed; acked without storing",
            extra={"errors": err.error_count(), "bytes": len(data)},
        )
        return None


def store_ingest_messages(
    messages: Sequence[IngestMessage],
    *,
    signals: SignalStore,
    deliveries: SignalDeliveries | None = None,
    suppressions: SuppressionStore | None = None,
) -> None:
    """Store the events of several decoded messages, up to STORE_CHUNK events per store call.

    Raises as `handle_ingest_message` does: then every message is delivered again, and the
    chunks stored already are not stored twice.
    """
    chunk: list[NewEvent] = []
    for message in messages:
        chunk.extend(message.events)
        if len(chunk) >= STORE_CHUNK:
            _store(chunk, signals=signals, deliveries=deliveries, held=suppressions)
            chunk = []
    if chunk:
        _store(chunk, signals=signals, deliveries=deliveries, held=suppressions)


def _store(
    events: Sequence[NewEvent],
    *,
    signals: SignalStore,
    deliveries: SignalDeliveries | None,
    held: SuppressionStore | None,
) -> StoreResult:
    if held is not None:
        # Events of an address erased after they were queued, or sent by the site's forms.
        events = without_suppressed(events, suppressions=held)
    result = signals.store_events(events)
    logger.info(
        "stored %d new of %d signal events",
        len(result.new_ids),
        len(result.events),
        extra={"new": len(result.new_ids), "received": len(result.events)},
    )
    if deliveries is not None:
        # Every event of the message, not only the new ones: a redelivery after a failed
        # enqueue must still reach the webhooks (deliveries dedupe by event id).
        deliveries.enqueue_for_events(result.events)
    return result
