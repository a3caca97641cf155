"""A signed test delivery to one of a partner's endpoints, sent now, and what its receiver said.

Not a delivery of the log: nothing is stored or retried, and the receiver's body is never read
back to the caller (its status code only), so the check cannot be used to fetch a page. The
target is checked and pinned as every delivery's is (services/deliveries.py send_delivery).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import datetime

from backends.ports import Delivery, DeliveryOptions, WebhookEndpoint, WebhookStore
from schemas.signals.events import Account, Event, Page, Person
from schemas.signals.webhooks import DeliveryAccount, DeliveryEnvelope, DeliveryPerson
from services.deliveries import Target, check_delivery_target, send_delivery
from services.delivery_policy import signing_secrets
from services.slack_messages import escape
from services.webhooks import EndpointDisabledError, own_endpoint

__all__ = ["TEST_TYPE", "SentTest", "send_test_delivery"]

TEST_TYPE = "webhook.test"  # never a signal type, so no receiver acts on it as a touch


@dataclass(frozen=True)
class SentTest:
    """What one test delivery gave: its `webhook-id` and the receiver's status, or why none."""

    webhook_id: str
    status_code: int | None
    error: str | None


def send_test_delivery(
    *,
    webhooks: WebhookStore,
    options: DeliveryOptions,
    partner: str,
    endpoint_id: str,
    now: datetime,
) -> SentTest:
    """Sign a sample delivery with the endpoint's secrets and POST it now.

    Raises: NotFoundError (absent or another partner's), EndpointDisabledError.
    """
    endpoint = own_endpoint(webhooks=webhooks, partner=partner, endpoint_id=endpoint_id)
    if not endpoint.active:
        raise EndpointDisabledError(endpoint.endpoint_id)
    webhook_id = f"msg_{secrets.token_hex(16)}"
    delivery = Delivery(
        delivery_id=webhook_id,
        endpoint_id=endpoint.endpoint_id,
        event_id=f"test:{webhook_id}",
        event_type=TEST_TYPE,
        payload=_payload(endpoint, webhook_id=webhook_id, now=now),
        status="pending",
        created_at=now,
    )
    target = Target(url=endpoint.url, secrets=signing_secrets(endpoint.secrets, now=now))
    checked = check_delivery_target(target, options=options)
    if isinstance(checked, str):  # refused by the target guard: nothing was sent
        return SentTest(webhook_id=webhook_id, status_code=None, error=checked)
    result = send_delivery(delivery, checked, options=options, now=now)
    return SentTest(webhook_id=webhook_id, status_code=result.status_code, error=result.error)


def _payload(endpoint: WebhookEndpoint, *, webhook_id: str, now: datetime) -> str:
    if endpoint.kind == "slack":
        text = "Test message from frontdoor: this channel receives signal alerts"
        section = (
            f"Endpoint `{escape(endpoint.endpoint_id)}` works. Nothing happened on the site:"
            " this is a test."
        )
        message = {
            "text": text,
            "blocks": [
                {"type": "header", "text": {"type": "plain_text", "text": "Test message"}},
                {"type": "section", "text": {"type": "mrkdwn", "text": section}},
            ],
        }
        return json.dumps(message, separators=(",", ":"))
    sample = Event(
        id=f"test:{webhook_id}",
        type="book_call",
        source="test",
        occurred_at=now,
        recorded_at=now,
        person=Person(email="ada@example.com", name="Ada (test)"),
        account=Account(domain="example.com", name="Example (test)"),
        page=Page(url=None, path="/p/example", title="Example"),
        properties={"text": "A test delivery: nothing happened."},
    )
    envelope = DeliveryEnvelope(
        type=TEST_TYPE,
        timestamp=now,
        data=sample.model_dump(mode="json"),
        fresh=True,
        account=DeliveryAccount(
            domain="example.com",
            name="Example (test)",
            stage="hand_raiser",
            stage_reached_at=now,
            score=55,
            trend="heating",
            reasons=["hand raiser since less than an hour ago: book call on /p/example"],
        ),
        person=DeliveryPerson(
            email="ada@example.com",
            name="Ada (test)",
            stage="hand_raiser",
            stage_reached_at=now,
            score=55,
            trend="heating",
        ),
    )
    return envelope.model_dump_json()
