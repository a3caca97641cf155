"""The key and webhook stores on Google Cloud while Firestore is down: every operation raises the
port's UnavailableError (a 503 with Retry-After on the surfaces, a retry for the queues), never
the client's own error (a 500). Firestore here answers every call ABORTED, a transient code the
client passes straight up; UNAVAILABLE it first retries for up to 300 s, then raises RetryError,
which firestore_errors translates the same way (test_firestore_errors.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from google.cloud import firestore

from backends.gcp.keys import FirestoreKeyStore
from backends.gcp.webhooks import FirestoreWebhookStore
from backends.ports import ApiKeyRecord, Delivery, UnavailableError, WebhookEndpoint, WebhookSecret

NOW = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)


def test_every_key_store_operation_is_unavailable_while_firestore_is_down(
    down_firestore: firestore.Client,
) -> None:
    keys = FirestoreKeyStore(down_firestore)
    record = ApiKeyRecord(
        key_id="0123456789ab",
        partner="acme",
        scope="content",
        secret_hash="h" * 64,
        created_at=NOW,
    )
    operations: list[Callable[[], object]] = [
        lambda: keys.add_key(record),
        lambda: keys.get_key(record.key_id),
        lambda: keys.revoke_key(record.key_id, now=NOW),
        keys.list_keys,
    ]

    assert [_outcome(op) for op in operations] == ["unavailable"] * len(operations)


def test_every_webhook_store_operation_is_unavailable_while_firestore_is_down(
    down_firestore: firestore.Client,
) -> None:
    hooks = FirestoreWebhookStore(down_firestore)
    secret = WebhookSecret(value="whsec_current", created_at=NOW)
    endpoint = WebhookEndpoint(
        endpoint_id="wh_0123456789ab",
        partner="acme",
        url="https://hooks.example.com/in",
        types=("book_call",),
        description="CRM",
        secrets=(secret,),
        created_at=NOW,
    )
    delivery = Delivery(
        delivery_id="msg_0123",
        endpoint_id=endpoint.endpoint_id,
        event_id="site:1",
        event_type="book_call",
        payload="{}",
        status="pending",
        created_at=NOW,
        next_attempt_at=NOW,
    )
    wh = endpoint.endpoint_id
    operations: list[Callable[[], object]] = [
        lambda: hooks.add_endpoint(endpoint),
        lambda: hooks.get_endpoint(wh),
        hooks.list_endpoints,
        lambda: hooks.delete_endpoint(wh),
        lambda: hooks.set_secrets(wh, (secret,)),
        lambda: hooks.disable_endpoint(wh, reason="gone", now=NOW),
        lambda: hooks.add_delivery(delivery),
        lambda: hooks.get_delivery(delivery.delivery_id),
        lambda: hooks.update_delivery(delivery, if_attempts=0, if_replays=0),
        lambda: hooks.list_deliveries(wh),
        lambda: hooks.erase_deliveries_for_events(["site:1"]),
    ]

    assert [_outcome(op) for op in operations] == ["unavailable"] * len(operations)


def _outcome(operation: Callable[[], object]) -> str:
    """ "unavailable", or what else the operation did (returned, or the error it raised)."""
    try:
        operation()
    except UnavailableError:
        return "unavailable"
    except Exception as err:  # noqa: BLE001 - the point is to name what it was
        return f"{type(err).__module__}.{type(err).__name__}: {err}"
    return "returned"
