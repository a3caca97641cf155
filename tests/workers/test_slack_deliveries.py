"""Slack alerts: an endpoint of kind "slack" receives Slack's incoming-webhook message
format for its event types and, with `stages`, when an account reaches one; same retries and
delivery log. The receiver checks every message against Slack's payload rules."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from frontdoor.settings import Settings
from tests.conftest import INGEST_KEY, SIGNALS_KEY
from tests.loopback_app import Served, served
from tests.polling import wait_for
from tests.webhook_receiver import Received, running_receiver

pytestmark = pytest.mark.spec("signals.webhooks")

HOOKS = "/api/public/v1/signals/webhooks"
KEY = {"x-api-key": SIGNALS_KEY}
BLOCK_TYPES = {"header", "section", "context", "divider", "actions", "image", "rich_text"}


def slack_problems(received: Received) -> list[str]:
    """What breaks Slack's incoming-webhook payload rules (docs.slack.dev, Block Kit limits)."""
    problems = []
    if not received.headers.get("content-type", "").startswith("application/json"):
        problems.append("content-type")
    body: dict[str, Any] = json.loads(received.body)
    text, blocks = body.get("text"), body.get("blocks")
    if not (isinstance(text, str) and text.strip()) and not blocks:
        problems.append("neither text nor blocks")
    if isinstance(text, str) and len(text) > 40_000:
        problems.append("text over 40,000 characters")
    known = {"text", "blocks", "attachments", "thread_ts", "mrkdwn"}
    problems += [f"unknown field {name}" for name in sorted(set(body) - known)]
    blocks = blocks or []
    if len(blocks) > 50:
        problems.append("more than 50 blocks")
    for block in blocks:
        kind = block.get("type")
        if kind not in BLOCK_TYPES:
            problems.append(f"block type {kind}")
        if kind == "header" and (
            block["text"]["type"] != "plain_text" or len(block["text"]["text"]) > 150
        ):
            problems.append("header")
        if kind == "section" and not 1 <= len(block["text"]["text"]) <= 3000:
            problems.append("section text")
        if kind == "context" and not 1 <= len(block["elements"]) <= 10:
            problems.append("context elements")
    return problems


def register(app: Served, url: str, **body: Any) -> str:
    response = app.api.post(HOOKS, json={"url": url, "kind": "slack", **body}, headers=KEY)
    assert response.status_code == 201, response.get_json()
    endpoint: dict[str, Any] = response.get_json()["endpoint"]
    assert endpoint["kind"] == "slack"
    return str(endpoint["id"])


def ingest(app: Served, row_id: str, kind: str, email: str) -> None:
    row = {
        "source": "crm",
        "row_id": row_id,
        "type": kind,
        "occurred_at": datetime.now(UTC).isoformat(),
        "person": {"email": email},
        "properties": {"utm_campaign": "q4 <launch> & more"},
    }
    response = app.api.post(
        "/api/public/v1/signals/events", json={"events": [row]}, headers={"x-api-key": INGEST_KEY}
    )
    assert response.status_code == 202


def test_a_stage_alert_reaches_slack_in_its_format_and_is_retried_after_a_500(
    settings: Settings,
) -> None:
    """Slack's rules hold for each message; a 500 is retried; the
    delivery log shows both attempts."""
    domain = f"n{uuid.uuid4().hex[:6]}.example"
    with running_receiver([500]) as receiver, served(settings) as app:
        endpoint_id = register(app, f"{receiver.url}/slack", stages=["hand_raiser"])

        ingest(app, "1", "email_open", f"ana@{domain}")  # aware: no alert
        ingest(app, "2", "book_call", f"ana@{domain}")  # reaches hand_raiser
        got = receiver.wait_for(2)
        deliveries: list[dict[str, Any]] = []

        def settled() -> bool:
            listed = app.api.get(f"{HOOKS}/{endpoint_id}/deliveries", headers=KEY).get_json()
            deliveries[:] = listed["deliveries"]
            return bool(deliveries) and deliveries[0]["status"] == "succeeded"

        wait_for(settled)

    assert [r.status for r in got] == [500, 200]
    assert [slack_problems(r) for r in got] == [[], []]
    assert got[0].body == got[1].body
    message = json.loads(got[1].body)
    assert message["blocks"][0]["text"]["text"] == f"Hand raiser: {domain}"
    assert "&lt;launch&gt; &amp; more" in json.dumps(message)
    (delivery,) = deliveries
    assert (delivery["event_id"], delivery["attempts"], delivery["last_status"]) == (
        "crm:2",
        2,
        200,
    )


def test_a_slack_endpoint_with_types_gets_those_events_only(settings: Settings) -> None:
    """`types` work as for other endpoints; the message names the event."""
    with running_receiver() as receiver, served(settings) as app:
        register(app, f"{receiver.url}/slack", types=["lead_form"])

        ingest(app, "1", "email_open", "bo@acme.example")
        ingest(app, "2", "lead_form", "bo@acme.example")
        (got,) = receiver.wait_for(1)

    assert slack_problems(got) == []
    assert json.loads(got.body)["blocks"][0]["text"]["text"] == "Lead form: bo@acme.example"
    assert len(receiver.requests) == 1


def test_stages_need_the_slack_kind(settings: Settings) -> None:
    """A standard endpoint with stages is a 422 naming the field."""
    with served(settings) as app:
        response = app.api.post(
            HOOKS,
            json={"url": "https://hooks.example.com/x", "stages": ["hand_raiser"]},
            headers=KEY,
        )

    assert response.status_code == 422
    assert [(i["field"], i["code"]) for i in response.get_json()["issues"]] == [
        ("stages", "slack_only")
    ]


def test_events_stored_together_that_climb_several_stages_alert_the_highest_once(
    settings: Settings,
) -> None:
    """signals-api.md Slack alerts: one batch taking an account from nothing to evaluating
    and on to hand_raiser sends one alert, for the stage the account is at."""
    domain = f"n{uuid.uuid4().hex[:6]}.example"
    rows = [
        {
            "source": "crm",
            "row_id": row_id,
            "type": kind,
            "occurred_at": datetime.now(UTC).isoformat(),
            "person": {"email": f"una@{domain}"},
        }
        for row_id, kind in (("1", "research_unlock"), ("2", "book_call"))
    ]
    with running_receiver() as receiver, served(settings) as app:
        register(app, f"{receiver.url}/slack", stages=["evaluating", "hand_raiser"])

        app.api.post(
            "/api/public/v1/signals/events",
            json={"events": rows},
            headers={"x-api-key": INGEST_KEY},
        )
        (got,) = receiver.wait_for(1)
        app.backends.signal_queue.drain(timeout=10)  # type: ignore[attr-defined]

    assert json.loads(got.body)["text"] == f"Hand raiser: {domain} (book call)"
    assert len(receiver.requests) == 1


def test_a_later_touch_stamped_with_the_same_time_as_the_hand_raise_alerts_nothing(
    settings: Settings,
) -> None:
    """signals-api.md Slack alerts: a CRM export stamps a day's touches with one time (its
    date); the page view stored after the day's book-a-call did not take the account to a
    stage and sends no stage alert."""
    domain = f"n{uuid.uuid4().hex[:6]}.example"
    # Today's date: within the freshness window, so the hand-raise itself alerts.
    day = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0).isoformat()

    def row(row_id: str, kind: str) -> dict[str, Any]:
        return {
            "source": "crm",
            "row_id": row_id,
            "type": kind,
            "occurred_at": day,
            "person": {"email": f"una@{domain}"},
            "page": {"path": "/p/pricing"},
        }

    with running_receiver() as receiver, served(settings) as app:
        endpoint_id = register(app, f"{receiver.url}/slack", stages=["hand_raiser"])
        for rows in ([row("1", "book_call")], [row("2", "page_view")]):
            app.api.post(
                "/api/public/v1/signals/events",
                json={"events": rows},
                headers={"x-api-key": INGEST_KEY},
            )
            app.backends.signal_queue.drain(timeout=10)  # type: ignore[attr-defined]
        receiver.wait_for(1)
        listed = app.api.get(f"{HOOKS}/{endpoint_id}/deliveries", headers=KEY).get_json()

    assert [d["event_id"] for d in listed["deliveries"]] == ["crm:1"]
