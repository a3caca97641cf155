"""Signals a team can act on: only fresh touches alert, imports never do, the accounts list
filters on when the latest touch happened, reasons and Slack alerts name their evidence, and a
delivery carries the account (both signal stores, over HTTP)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook

from frontdoor.settings import Settings
from tests.api.signal_lanes import serve_signals_fixture  # noqa: F401  # serve_signals
from tests.conftest import INGEST_KEY, SIGNALS_KEY
from tests.loopback_app import Served
from tests.webhook_receiver import running_receiver

pytestmark = pytest.mark.spec("signals.webhooks")

SIGNALS = "/api/public/v1/signals"
KEY = {"x-api-key": SIGNALS_KEY}
Serve = Callable[[Settings], AbstractContextManager[Served]]


def row(
    row_id: str, kind: str, email: str, *, ago: timedelta = timedelta(0), **extra: Any
) -> dict[str, Any]:
    return {
        "source": "crm",
        "row_id": row_id,
        "type": kind,
        "occurred_at": (datetime.now(UTC) - ago).isoformat(),
        "person": {"email": email},
        **extra,
    }


def send(app: Served, rows: list[dict[str, Any]], **batch: Any) -> None:
    response = app.api.post(
        f"{SIGNALS}/events", json={"events": rows, **batch}, headers={"x-api-key": INGEST_KEY}
    )
    assert response.status_code == 202, response.get_json()
    app.backends.signal_queue.drain(timeout=10)  # type: ignore[attr-defined]


def register(app: Served, url: str, **body: Any) -> dict[str, Any]:
    response = app.api.post(f"{SIGNALS}/webhooks", json={"url": url, **body}, headers=KEY)
    assert response.status_code == 201, response.get_json()
    made: dict[str, Any] = response.get_json()
    return made


def slack_text(message: dict[str, Any]) -> str:
    """A Slack message as a reader sees it: every block's text, one per line."""
    lines = []
    for block in message["blocks"]:
        if "text" in block:
            lines.append(block["text"]["text"])
        lines += [element["text"] for element in block.get("elements", [])]
    return "\n".join(lines)


def unique_domain() -> str:
    return f"n{uuid.uuid4().hex[:8]}.example"


def test_an_old_import_sends_no_slack_alert_and_is_not_active_today(
    settings: Settings, serve_signals: Serve
) -> None:
    """signals-api.md Two clocks: alerts fire only for fresh touches; an import never alerts;
    active_days reads occurred_at, so a touch of 35 days ago stored today is not today's."""
    imported, old, fresh = unique_domain(), unique_domain(), unique_domain()
    with running_receiver() as receiver, serve_signals(settings) as app:
        hook = register(app, f"{receiver.url}/slack", kind="slack", stages=["hand_raiser"])

        send(
            app,
            [row("i1", "book_call", f"ann@{imported}", ago=timedelta(days=35))],
            **{"import": True},
        )
        send(app, [row("o1", "book_call", f"bo@{old}", ago=timedelta(days=35))])
        send(app, [row("f1", "book_call", f"cy@{fresh}")])
        (got,) = receiver.wait_for(1)
        today = app.api.get(f"{SIGNALS}/accounts?active_days=1", headers=KEY).get_json()
        recorded = app.api.get(f"{SIGNALS}/accounts?days=1", headers=KEY).get_json()
        stream = app.api.get(f"{SIGNALS}?type=book_call", headers=KEY).get_json()
        # Deliveries are made when an event is stored: the log is whole once all three are.
        log = app.api.get(
            f"{SIGNALS}/webhooks/{hook['endpoint']['id']}/deliveries", headers=KEY
        ).get_json()

    assert json.loads(got.body)["blocks"][0]["text"]["text"] == f"Hand raiser: {fresh}"
    assert [d["event_id"] for d in log["deliveries"]] == ["crm:f1"]
    assert [a["domain"] for a in today["accounts"]] == [fresh]
    assert sorted(a["domain"] for a in recorded["accounts"]) == sorted([imported, old, fresh])
    assert {e["account"]["domain"]: e["imported"] for e in stream["events"]} == {
        imported: True,
        old: False,
        fresh: False,
    }
    by_domain = {a["domain"]: a for a in recorded["accounts"]}
    assert by_domain[imported]["trend"] == "quiet"
    assert by_domain[imported]["reasons"][0] == "hand raiser since 35 days ago: book call"


def test_a_fresh_hand_raise_alert_names_its_evidence_in_slack(
    settings: Settings, serve_signals: Serve
) -> None:
    """signals-api.md Slack alerts: account, stage, score, trend, the why (the event's type,
    when, page and the person's own words, escaped for Slack) and a link to the timeline."""
    domain = unique_domain()
    words = "What does the Program tier cost? <b>Budget</b> & timing"
    with running_receiver() as receiver, serve_signals(settings) as app:
        register(app, f"{receiver.url}/slack", kind="slack", stages=["hand_raiser"])

        send(app, [row("a1", "article_read", f"di@{domain}", page={"path": "/blog/loops"})])
        send(
            app,
            [
                row(
                    "s1",
                    "slack_request",
                    f"di@{domain}",
                    page={"path": "/community"},
                    properties={"text": words},
                )
            ],
        )
        (got,) = receiver.wait_for(1)
        looked_up = app.api.get(f"{SIGNALS}/accounts/{domain}", headers=KEY).get_json()

    text = slack_text(json.loads(got.body))
    escaped = "What does the Program tier cost? &lt;b&gt;Budget&lt;/b&gt; &amp; timing"
    assert f"Hand raiser: {domain}" in text
    assert f"> {escaped}" in text
    assert "stage *hand raiser*" in text
    assert "trend *heating*" in text
    assert (
        "• hand raiser since less than an hour ago: slack request on /community:"
        f' "{escaped}"' in text
    )
    assert f"/api/public/v1/signals/accounts/{domain}|Timeline of {domain}>" in text
    assert "<b>" not in text
    account = looked_up["account"]
    assert account["stage_event"]["type"] == "slack_request"
    assert account["stage_event"]["page"] == "/community"
    assert account["stage_event"]["words"] == words
    assert account["why"][0]["events"] == [account["stage_event"]]
    assert account["score"] > 0


def test_a_delivery_verifies_and_carries_the_account_and_person(
    settings: Settings, serve_signals: Serve
) -> None:
    """signals-api.md What a delivery looks like: Standard Webhooks signature; the account's
    and the person's stage, score and trend as they stood once the event was stored."""
    domain = unique_domain()
    with running_receiver() as receiver, serve_signals(settings) as app:
        made = register(app, f"{receiver.url}/in", types=["book_call"])

        send(app, [row("b1", "book_call", f"eve@{domain}", page={"path": "/p/pricing"})])
        (got,) = receiver.wait_for(1)

    payload = Webhook(made["secret"]).verify(got.body, got.headers)
    assert payload["type"] == "signal.book_call"
    assert payload["fresh"] is True
    account, person = payload["account"], payload["person"]
    assert (account["domain"], account["stage"], account["trend"]) == (
        domain,
        "hand_raiser",
        "heating",
    )
    assert 40 <= account["score"] <= 100
    assert account["stage_event"]["id"] == "crm:b1"
    assert (person["email"], person["stage"]) == (f"eve@{domain}", "hand_raiser")
    assert person["score"] > 0


def test_a_test_send_reaches_the_receiver_signed_and_answers_its_status(
    settings: Settings,
) -> None:
    """signals-api.md Webhooks: POST .../webhooks/{id}/test signs a sample delivery, sends it
    now and answers the receiver's status code, not its body."""
    from tests.loopback_app import served

    with running_receiver([503]) as receiver, served(settings) as app:
        made = register(app, f"{receiver.url}/hook")
        hook = made["endpoint"]["id"]

        first = app.api.post(f"{SIGNALS}/webhooks/{hook}/test", headers=KEY)
        second = app.api.post(f"{SIGNALS}/webhooks/{hook}/test", headers=KEY)
        got = receiver.wait_for(2)
        log = app.api.get(f"{SIGNALS}/webhooks/{hook}/deliveries", headers=KEY).get_json()
        unknown = app.api.post(f"{SIGNALS}/webhooks/wh_000000000000/test", headers=KEY)

    assert first.status_code == second.status_code == 200
    assert (first.get_json()["delivered"], first.get_json()["status"]) == (False, 503)
    assert first.get_json()["error"] == "HTTP 503"
    assert (second.get_json()["delivered"], second.get_json()["status"]) == (True, 200)
    payloads = [Webhook(made["secret"]).verify(r.body, r.headers) for r in got]
    assert [p["type"] for p in payloads] == ["webhook.test", "webhook.test"]
    assert got[1].headers["webhook-id"] == second.get_json()["webhook_id"]
    assert log["deliveries"] == []
    assert unknown.status_code == 404


def test_latest_answers_the_newest_touches_and_the_stream_filters_by_path(
    settings: Settings, serve_signals: Serve
) -> None:
    """signals-api.md The stream: /signals/latest is the newest first with no window, and its
    next_since polls on from the newest; path= is one page's events exactly."""
    domain = unique_domain()
    with serve_signals(settings) as app:
        for i, path in enumerate(["/p/a", "/p/b", "/p/a", "/p/c"]):
            send(app, [row(f"l{i}", "page_view", f"fay@{domain}", page={"path": path})])
        latest = app.api.get(f"{SIGNALS}/latest?limit=2&domain={domain}", headers=KEY).get_json()
        on_a = app.api.get(f"{SIGNALS}?path=/p/a&domain={domain}", headers=KEY).get_json()
        send(app, [row("l9", "page_view", f"fay@{domain}", page={"path": "/p/d"})])
        after = app.api.get(
            f"{SIGNALS}?since={latest['next_since']}&domain={domain}", headers=KEY
        ).get_json()
        bad = app.api.get(f"{SIGNALS}/latest?path=p/a&days=3", headers=KEY)

    assert [e["id"] for e in latest["events"]] == ["crm:l3", "crm:l2"]
    assert latest["has_more"] is True
    assert [e["id"] for e in on_a["events"]] == ["crm:l2", "crm:l0"]
    assert [e["id"] for e in after["events"]] == ["crm:l9"]
    assert bad.status_code == 400
    assert {(i["field"], i["code"]) for i in bad.get_json()["issues"]} == {
        ("days", "unknown_parameter"),
        ("path", "invalid_format"),
    }
