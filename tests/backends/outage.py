"""What the outage tests of the stores share: records to write, and how an operation ended."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from backends.ports import ApiKeyRecord, Delivery, UnavailableError, WebhookEndpoint, WebhookSecret

NOW = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)
KEY = ApiKeyRecord(
    key_id="0123456789ab", partner="acme", scope="content", secret_hash="h" * 64, created_at=NOW
)
SECRET = WebhookSecret(value="whsec_current", created_at=NOW)
ENDPOINT = WebhookEndpoint(
    endpoint_id="wh_0123456789ab",
    partner="acme",
    url="https://hooks.example.com/in",
    types=("book_call",),
    description="CRM",
    secrets=(SECRET,),
    created_at=NOW,
)
DELIVERY = Delivery(
    delivery_id="msg_0123",
    endpoint_id=ENDPOINT.endpoint_id,
    event_id="site:1",
    event_type="book_call",
    payload="{}",
    status="pending",
    created_at=NOW,
    next_attempt_at=NOW,
)


def outcome(operation: Callable[[], object]) -> str:
    """ "unavailable", or what else the operation did (returned, or the error it raised)."""
    try:
        operation()
    except UnavailableError:
        return "unavailable"
    except Exception as err:  # noqa: BLE001 - the point is to name what it was
        return f"{type(err).__module__}.{type(err).__name__}: {err}"
    return "returned"
