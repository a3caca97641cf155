"""On Google Cloud, a Firestore that never answers (tests/black_hole.py: it accepts connections
and drops every byte) costs a request the deadline (GOOGLE_CLOUD_DEADLINE, 1 s here), not the
client's own 60 to 300 s: a read and a write on each surface answer 503 `unavailable` with
Retry-After, and once Firestore is back a retry succeeds with nothing stored before lost. The
real Firestore adapters on a real client, with the emulator behind the black hole; what is
there before the outage is written with the default deadline (a first call through a new
channel on this loaded machine can take more than 1 s)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient
from google.cloud import firestore
from werkzeug.test import TestResponse

from api.app import create_app
from backends.bundle import Backends
from backends.gcp.idempotency import FirestoreIdempotencyStore
from backends.gcp.keys import FirestoreKeyStore
from backends.gcp.pages import FirestorePageStore
from backends.gcp.signals import FirestoreSignalStore
from backends.gcp.webhooks import FirestoreWebhookStore
from backends.secret_box import SecretBox
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from schemas.signals.events import NewEvent, normalize_event
from services.keys import issue_key
from tests.api.content_client import AUTH, PAGES, page_body
from tests.api.test_signals import BASE, READ, raw_event
from tests.black_hole import ANSWERED_WITHIN, TEST_DEADLINE, BlackHole
from tests.e2e.sample_page import store_page
from tests.polling import answer_within, retried_until

pytestmark = pytest.mark.emulator


def answer_of(request: Callable[[], TestResponse]) -> TestResponse:
    return answer_within(request, timeout=ANSWERED_WITHIN)


def retried_until_served(request: Callable[[], TestResponse]) -> TestResponse:
    """`request()` again while it answers 503, as a client honouring Retry-After does (the
    client's connection to Firestore comes back on its own back-off)."""
    return retried_until(request, lambda a: a.status_code != 503, timeout=30, each=ANSWERED_WITHIN)


def assert_unavailable(answers: list[TestResponse]) -> None:
    assert [a.status_code for a in answers] == [503] * len(answers)
    assert {a.headers["Retry-After"] for a in answers} == {"5"}
    assert {a.get_json()["error"] for a in answers if a.is_json} == {"unavailable"}


def _client(settings: Settings, backends: Backends, **ports: Any) -> FlaskClient:
    return create_app(app_config(settings), dataclasses.replace(backends, **ports)).test_client()


@pytest.mark.spec("content.read")
def test_a_page_read_and_a_page_write_answer_503_within_the_deadline_and_a_retry_loses_nothing(
    settings: Settings,
    backends: Backends,
    firestore_hole: BlackHole,
    firestore_behind_hole: firestore.Client,
    unique_prefix: str,
) -> None:
    """content-api.md Errors: a store that does not answer is a 503 in seconds; the
    Idempotency-Key retry after it is back writes the page once."""
    before = store_page(
        FirestorePageStore(firestore_behind_hole, prefix=unique_prefix), "before-outage"
    )
    pages = FirestorePageStore(firestore_behind_hole, prefix=unique_prefix, deadline=TEST_DEADLINE)
    claims = FirestoreIdempotencyStore(
        firestore_behind_hole, prefix=unique_prefix, deadline=TEST_DEADLINE
    )
    client = _client(settings, backends, pages=pages, idempotency=claims)
    write = {**AUTH, "Idempotency-Key": "written-during-outage"}

    def post() -> TestResponse:
        return client.post(PAGES, json=page_body("during-outage"), headers=write)

    firestore_hole.go_silent()
    during = [answer_of(lambda: client.get("/p/before-outage")), answer_of(post)]
    firestore_hole.come_back()
    retried = retried_until_served(post)

    assert_unavailable(during)
    assert during[0].mimetype == "text/html"
    assert retried.status_code == 201, retried.get_json()
    assert retried_until_served(lambda: client.get("/p/before-outage")).status_code == 200
    assert pages.get_page("before-outage") == before
    stored = pages.get_page("during-outage")
    assert stored is not None
    assert stored.version == 1


@pytest.mark.spec("signals.accounts")
def test_a_signal_read_a_key_check_and_a_webhook_registration_answer_503_within_the_deadline(
    settings: Settings,
    backends: Backends,
    firestore_hole: BlackHole,
    firestore_behind_hole: firestore.Client,
    unique_prefix: str,
) -> None:
    """signals-api.md Errors: back off on 503; once the store is back the same requests are
    served, the events stored before are all there and the endpoint is registered once."""
    event = normalize_event(raw_event("before-outage"), now=datetime.now(UTC))
    assert isinstance(event, NewEvent)
    FirestoreSignalStore(firestore_behind_hole, prefix=unique_prefix).store_events([event])
    issued, _ = issue_key(
        keys=FirestoreKeyStore(firestore_behind_hole, prefix=unique_prefix),
        partner="acme-crm",
        scope="signals",
        now=datetime.now(UTC),
    )
    stores: dict[str, Any] = {"prefix": unique_prefix, "deadline": TEST_DEADLINE}
    signals = FirestoreSignalStore(firestore_behind_hole, settle=timedelta(0), **stores)
    keys = FirestoreKeyStore(firestore_behind_hole, **stores)
    webhooks = FirestoreWebhookStore(
        firestore_behind_hole, box=SecretBox("test-webhook-secrets-key"), **stores
    )
    client = _client(settings, backends, signals=signals, keys=keys, webhooks=webhooks)
    hook = {"url": "https://hooks.partner.test/in"}
    requests: list[Callable[[], TestResponse]] = [
        lambda: client.get(f"{BASE}/accounts/acme.com", headers=READ),
        lambda: client.get(f"{BASE}/accounts", headers={"x-api-key": issued}),
        lambda: client.post(f"{BASE}/webhooks", json=hook, headers=READ),
    ]

    firestore_hole.go_silent()
    during = [answer_of(request) for request in requests]
    firestore_hole.come_back()
    retried = [retried_until_served(request) for request in requests]

    assert_unavailable(during)
    assert [a.status_code for a in retried] == [200, 200, 201]
    assert [e["id"] for e in retried[0].get_json()["timeline"]] == [event.id]
    listed = retried_until_served(lambda: client.get(f"{BASE}/webhooks", headers=READ))
    assert len(listed.get_json()["endpoints"]) == 1
