"""The key and webhook stores on Google Cloud while Firestore is down: every operation raises the
port's UnavailableError (a 503 with Retry-After on the surfaces, a retry for the queues), never
the client's own error (a 500). Firestore here answers every call ABORTED, a transient code the
client passes straight up; UNAVAILABLE it first retries for up to 300 s, then raises RetryError,
which firestore_errors translates the same way (test_firestore_errors.py)."""

from __future__ import annotations

from collections.abc import Callable

from google.cloud import firestore

from backends.gcp.keys import FirestoreKeyStore
from backends.gcp.webhooks import FirestoreWebhookStore
from backends.secret_box import SecretBox
from tests.backends.outage import DELIVERY, ENDPOINT, KEY, NOW, SECRET, outcome


def test_every_key_store_operation_is_unavailable_while_firestore_is_down(
    down_firestore: firestore.Client,
) -> None:
    keys = FirestoreKeyStore(down_firestore)
    operations: list[Callable[[], object]] = [
        lambda: keys.add_key(KEY),
        lambda: keys.get_key(KEY.key_id),
        lambda: keys.revoke_key(KEY.key_id, now=NOW),
        keys.list_keys,
    ]

    assert [outcome(op) for op in operations] == ["unavailable"] * len(operations)


def test_every_webhook_store_operation_is_unavailable_while_firestore_is_down(
    down_firestore: firestore.Client,
) -> None:
    hooks = FirestoreWebhookStore(down_firestore, box=SecretBox("test-webhook-secrets-key"))
    wh = ENDPOINT.endpoint_id
    operations: list[Callable[[], object]] = [
        lambda: hooks.add_endpoint(ENDPOINT),
        lambda: hooks.get_endpoint(wh),
        hooks.list_endpoints,
        lambda: hooks.delete_endpoint(wh),
        lambda: hooks.set_secrets(wh, (SECRET,)),
        lambda: hooks.disable_endpoint(wh, reason="gone", now=NOW),
        lambda: hooks.add_delivery(DELIVERY),
        lambda: hooks.get_delivery(DELIVERY.delivery_id),
        lambda: hooks.update_delivery(DELIVERY, if_attempts=0, if_replays=0),
        lambda: hooks.list_deliveries(wh),
        lambda: hooks.erase_deliveries_for_events(["site:1"]),
    ]

    assert [outcome(op) for op in operations] == ["unavailable"] * len(operations)
