"""The ingest worker: one queued IngestMessage in, its events stored once with their roll-ups.

Ack or retry on purpose: a malformed message is logged and acked (returns normally); a
transient backend error raises, so Pub/Sub (or the in-process queue) redelivers. Storing is
keyed by event id, so a redelivery stores nothing twice.
"""

from __future__ import annotations

import logging

from pydantic import ValidationError

from backends.ports import SignalDeliveries, SignalStore, StoreResult
from schemas.signals.events import IngestMessage

logger = logging.getLogger(__name__)


def handle_ingest_message(
    data: bytes,
    *,
    signals: SignalStore,
    deliveries: SignalDeliveries | None = None,
) -> StoreResult | None:
    """Store one message's events; None when the message is malformed (ack it).

    Raises: UnavailableError (and other backend errors) so that the message is redelivered.
    """
    try:
        message = IngestMessage.model_validate_json(data)
    except ValidationError as err:
        logger.warning(
            "ingest message malformed; acked without storing",
            extra={"errors": err.error_count(), "bytes": len(data)},
        )
        return None
    if not message.events:
        return None
    result = signals.store_events(message.events)
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
