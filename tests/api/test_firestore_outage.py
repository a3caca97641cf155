"""On Google Cloud, a keyed request and the webhook operations while Firestore is down answer
503 `unavailable` with Retry-After, never a 500: the real Firestore adapters on a real client
whose Firestore answers every call ABORTED (tests/firestore_wire.py)."""

from __future__ import annotations

import dataclasses

import pytest
from flask.testing import FlaskClient
from google.cloud import firestore

from api.app import create_app
from backends.bundle import Backends
from backends.gcp.keys import FirestoreKeyStore
from backends.gcp.webhooks import FirestoreWebhookStore
from backends.secret_box import SecretBox
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from tests.api.content_client import PAGES
from tests.api.test_signals import BASE, READ


def _app(settings: Settings, backends: Backends) -> FlaskClient:
    return create_app(app_config(settings), backends).test_client()


@pytest.mark.spec("content.read")
def test_a_request_with_an_issued_key_answers_503_while_the_key_store_is_down(
    settings: Settings, backends: Backends, down_firestore: firestore.Client
) -> None:
    """A key that is not a bootstrap key is looked up; a lookup that fails is no 401 and no 500."""
    client = _app(settings, dataclasses.replace(backends, keys=FirestoreKeyStore(down_firestore)))

    answers = [
        client.get(PAGES, headers={"x-api-key": "fdk_content_0123456789ab_secret"}),
        client.get(f"{BASE}/accounts", headers={"x-api-key": "fdk_signals_0123456789ab_secret"}),
    ]

    assert [a.status_code for a in answers] == [503, 503]
    assert {a.get_json()["error"] for a in answers} == {"unavailable"}
    assert {a.headers["Retry-After"] for a in answers} == {"5"}


@pytest.mark.spec("signals.webhooks")
def test_every_webhook_operation_answers_503_while_the_webhook_store_is_down(
    settings: Settings, backends: Backends, down_firestore: firestore.Client
) -> None:
    client = _app(
        settings,
        dataclasses.replace(
            backends,
            webhooks=FirestoreWebhookStore(
                down_firestore, box=SecretBox("test-webhook-secrets-key")
            ),
        ),
    )
    hook = f"{BASE}/webhooks/wh_0123456789ab"

    answers = [
        client.post(f"{BASE}/webhooks", json={"url": "https://hooks.example.com/a"}, headers=READ),
        client.get(f"{BASE}/webhooks", headers=READ),
        client.delete(hook, headers=READ),
        client.post(f"{hook}/rotate", headers=READ),
        client.get(f"{hook}/deliveries", headers=READ),
        client.post(f"{BASE}/webhooks/deliveries/msg_0123/replay", headers=READ),
    ]

    assert [a.status_code for a in answers] == [503] * 6
    assert {a.get_json()["error"] for a in answers} == {"unavailable"}
    assert {a.headers["Retry-After"] for a in answers} == {"5"}
