"""DESIGN "Ingest": POST /api/public/v1/collect, the site's own forms and beacons (no key)."""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Any

import grpc  # type: ignore[import-untyped]  # grpcio ships no stubs
import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from backends.bundle import Backends
from backends.embedded.queues import DurableQueue
from backends.ports import StreamQuery
from domain.client_address import client_address
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from schemas.signals.events import Event, Position, parse_since
from tests.e2e.sample_page import store_page
from tests.pubsub_wire import publisher_of_down_pubsub

URL = "/api/public/v1/collect"
SITE = {"Origin": "http://testserver"}
FORM = {
    "email": "Ada@Acme.com",
    "name": "Ada Lovelace",
    "company": "Acme",
    "page": "growth-audit",
    "type": "lead_form",
    "website": "",
}


def stored(backends: Backends) -> list[Event]:
    """Every stored event, once the in-process ingest worker is idle."""
    assert isinstance(backends.signal_queue, DurableQueue)
    assert backends.signal_queue.drain(timeout=10)
    after = parse_since("2020-01-01")
    assert isinstance(after, Position)
    return backends.signals.read_stream(StreamQuery(after=after, forward=True, limit=100)).events


@pytest.mark.spec("signals.collect")
def test_a_lead_form_post_redirects_to_the_thank_you_state_and_becomes_a_lead_event(
    client: FlaskClient, backends: Backends
) -> None:
    """DESIGN Ingest: the lead form works without JavaScript, answering with a redirect."""
    response = client.post(URL, data=FORM, headers=SITE)

    (event,) = stored(backends)
    assert response.status_code == 303
    assert response.headers["Location"] == "/p/growth-audit?submitted=1"
    assert event.id.startswith("site:")
    assert (event.type, event.source) == ("lead_form", "site")
    assert event.person.email == "ada@acme.com"
    assert (event.account.domain, event.account.name) == ("acme.com", "Acme")
    assert event.page.path == "/p/growth-audit"
    assert backends.signals.get_account("acme.com").stage == "hand_raiser"  # type: ignore[union-attr]


@pytest.mark.spec("signals.collect")
def test_the_same_submission_delivered_twice_is_stored_once(
    client: FlaskClient, backends: Backends
) -> None:
    """SPEC Events 1: a stable id per submission makes repeats idempotent."""
    client.post(URL, data=FORM, headers=SITE)
    client.post(URL, data=FORM, headers={"Referer": "http://testserver/p/growth-audit"})

    assert len(stored(backends)) == 1


@pytest.mark.spec("signals.collect")
def test_a_filled_honeypot_redirects_as_usual_and_stores_nothing(
    client: FlaskClient, backends: Backends
) -> None:
    """DESIGN Ingest: bots that fill the hidden `website` field are dropped quietly."""
    response = client.post(URL, data={**FORM, "website": "http://spam.example"}, headers=SITE)

    assert response.status_code == 303
    assert stored(backends) == []


@pytest.mark.spec("signals.collect")
def test_a_form_with_a_bad_email_redirects_back_with_an_error(
    client: FlaskClient, backends: Backends
) -> None:
    """The no-JavaScript form shows its error state on the page itself."""
    response = client.post(URL, data={**FORM, "email": "not-an-email"}, headers=SITE)

    assert response.status_code == 303
    assert response.headers["Location"] == "/p/growth-audit?error=invalid_email#leadform"
    assert stored(backends) == []


@pytest.mark.spec("signals.collect")
@pytest.mark.parametrize(
    ("field", "value"),
    [("name", "N" * 201), ("company", "C" * 201)],
)
def test_a_form_with_a_refused_name_or_company_names_that_field_not_the_email(
    client: FlaskClient, backends: Backends, field: str, value: str
) -> None:
    """The visitor is told which field to fix: `?error=invalid_<field>`, the email is fine."""
    response = client.post(URL, data={**FORM, field: value}, headers=SITE)

    assert response.status_code == 303
    assert response.headers["Location"] == f"/p/growth-audit?error=invalid_{field}#leadform"
    assert stored(backends) == []


@pytest.mark.spec("signals.collect")
def test_a_form_refused_on_several_fields_names_the_first_on_the_page(
    client: FlaskClient, backends: Backends
) -> None:
    """Email comes before name and company on the form, so its error is the one shown."""
    data = {**FORM, "email": "not-an-email", "company": "C" * 201}
    response = client.post(URL, data=data, headers=SITE)

    assert response.headers["Location"] == "/p/growth-audit?error=invalid_email#leadform"


@pytest.mark.spec("signals.collect")
def test_a_form_with_a_bad_hidden_field_is_a_422_naming_it(
    client: FlaskClient, backends: Backends
) -> None:
    """No visitor typed `type` or `visitor_id`: a clear 422 naming the form field, no redirect."""
    wrong_type = client.post(URL, data={**FORM, "type": "page_view"}, headers=SITE)
    bad_visitor = client.post(URL, data={**FORM, "visitor_id": "x"}, headers=SITE)

    assert wrong_type.status_code == bad_visitor.status_code == 422
    assert [i["field"] for i in wrong_type.get_json()["issues"]] == ["type"]
    assert [i["field"] for i in bad_visitor.get_json()["issues"]] == ["visitor_id"]
    assert stored(backends) == []


@pytest.mark.spec("signals.collect")
def test_posts_from_another_origin_or_none_are_forbidden(client: FlaskClient) -> None:
    """DESIGN Ingest: collect is origin-checked."""
    foreign = client.post(URL, data=FORM, headers={"Origin": "https://evil.example"})
    missing = client.post(URL, data=FORM)

    assert (foreign.status_code, foreign.get_json()["error"]) == (403, "forbidden")
    assert missing.status_code == 403


@pytest.mark.spec("signals.collect")
def test_a_client_over_the_rate_limit_gets_429_with_retry_after_and_its_ip_is_not_logged(
    client: FlaskClient, caplog: pytest.LogCaptureFixture
) -> None:
    """DESIGN Errors: 429 rate_limited with Retry-After; logs carry a hash, never the IP."""
    caplog.set_level(logging.INFO)
    beacon: dict[str, Any] = {"type": "page_view", "page": {"path": "/blog/a"}}

    statuses = [client.post(URL, json=beacon, headers=SITE).status_code for _ in range(21)]
    limited = client.post(URL, json=beacon, headers=SITE)

    assert statuses == [202] * 20 + [429]
    assert limited.get_json()["error"] == "rate_limited"
    assert 1 <= int(limited.headers["Retry-After"]) <= 60
    assert "127.0.0.1" not in caplog.text
    assert "client_hash" in caplog.records[-1].__dict__


@pytest.mark.spec("signals.collect")
def test_a_lead_form_over_the_rate_limit_goes_back_to_its_page_saying_to_wait(
    client: FlaskClient,
) -> None:
    """A visitor's browser shows the page again with the form's wait message, not a problem
    document in JSON; the answer still carries Retry-After and stores nothing."""
    statuses = [client.post(URL, data=FORM, headers=SITE).status_code for _ in range(20)]
    limited = client.post(URL, data=FORM, headers=SITE)
    no_page = client.post(URL, data={**FORM, "page": "Not a slug"}, headers=SITE)

    assert statuses == [303] * 20
    assert limited.status_code == 303
    assert limited.headers["Location"] == "/p/growth-audit?error=rate_limited#leadform"
    assert 1 <= int(limited.headers["Retry-After"]) <= 60
    assert (no_page.status_code, no_page.get_json()["error"]) == (429, "rate_limited")


@pytest.mark.spec("signals.collect")
def test_a_lead_form_posted_while_pubsub_is_down_goes_back_to_its_page_saying_nothing_was_sent(
    settings: Settings, backends: Backends
) -> None:
    """A visitor's browser shows the page again with the form's message that nothing was sent
    and to try again in a minute, not the 503 problem document in JSON; Retry-After is kept and
    no field the visitor typed goes into the URL. A beacon still gets the 503 itself, and a
    post naming no page its 422 (it never reaches the queue)."""
    store_page(backends.pages, "growth-audit")
    with publisher_of_down_pubsub(grpc.StatusCode.UNAVAILABLE) as down:
        client = create_app(
            app_config(settings), dataclasses.replace(backends, signal_queue=down)
        ).test_client()
        sent = client.post(URL, data=FORM, headers=SITE)
        beacon = client.post(URL, json={"type": "page_view"}, headers=SITE)
        no_page = client.post(URL, data={**FORM, "page": "Not a slug"}, headers=SITE)
    shown = client.get(sent.headers["Location"])

    assert sent.status_code == 303
    assert sent.headers["Location"] == "/p/growth-audit?error=unavailable#leadform"
    assert sent.headers["Retry-After"] == "5"
    assert shown.status_code == 200
    assert "nothing was sent. Please try again in a minute." in shown.get_data(as_text=True)
    assert (beacon.status_code, beacon.get_json()["error"]) == (503, "unavailable")
    assert beacon.headers["Retry-After"] == "5"
    assert (no_page.status_code, no_page.get_json()["error"]) == (422, "invalid_payload")
    assert stored(backends) == []


@pytest.mark.parametrize(
    ("forwarded", "hops", "expected"),
    [
        ("203.0.113.7, 34.120.1.1", 2, "203.0.113.7"),  # behind the Google load balancer
        ("6.6.6.6, 203.0.113.7, 34.120.1.1", 2, "203.0.113.7"),  # a spoofed entry ignored
        ("203.0.113.7", 1, "203.0.113.7"),  # a bare Cloud Run URL
        ("203.0.113.7", 2, "10.0.0.9"),  # too few entries: not through our proxies
        ("203.0.113.7, 34.120.1.1", 0, "10.0.0.9"),  # the header ignored
        ("", 2, "10.0.0.9"),
    ],
)
def test_the_client_address_is_the_entry_our_proxies_appended(
    forwarded: str, hops: int, expected: str
) -> None:
    """FORWARDED_FOR_HOPS: entries left of what our own proxies wrote are the client's claim."""
    assert client_address(forwarded, "10.0.0.9", hops=hops) == expected


@pytest.mark.spec("signals.collect")
def test_in_gcp_mode_the_rate_limit_keys_on_the_address_the_load_balancer_saw(
    settings: Settings, backends: Backends
) -> None:
    """DESIGN Ingest: collect is rate-limited per client; a forged X-Forwarded-For prefix
    does not open a fresh allowance, another client behind the same balancer has its own."""
    config = dataclasses.replace(app_config(settings), mode="gcp")
    assert config.forwarded_for_hops == 2  # the default: the Google load balancer's two entries
    app: Flask = create_app(config, backends)
    client = app.test_client()
    beacon: dict[str, Any] = {"type": "page_view", "page": {"path": "/blog/a"}}

    def post(forwarded: str) -> int:
        headers = {**SITE, "X-Forwarded-For": forwarded}
        return client.post(URL, json=beacon, headers=headers).status_code

    first = [post(f"198.51.100.{i}, 203.0.113.7, 34.120.1.1") for i in range(21)]
    other = post("203.0.113.8, 34.120.1.1")

    assert first == [202] * 20 + [429]
    assert other == 202


@pytest.mark.spec("signals.collect")
def test_a_json_beacon_is_accepted_with_its_own_id_and_stored_once(
    client: FlaskClient, backends: Backends
) -> None:
    """DESIGN Ingest: beacons answer 202; the beacon's id makes the event id."""
    beacon = {
        "id": "b-0123456789",
        "type": "cta_click",
        "page": {"url": "http://testserver/p/growth-audit?utm_source=li", "title": "Audit"},
        "properties": {"cta_label": "Book the audit", "cta_href": "#leadform"},
    }

    first = client.post(URL, json=beacon, headers=SITE)
    again = client.post(
        URL, data=json.dumps(beacon), headers={**SITE, "Content-Type": "text/plain;charset=UTF-8"}
    )

    (event,) = stored(backends)
    assert first.status_code == 202
    assert first.get_json() == {"ok": True, "id": "site:b-0123456789", "recorded": True}
    assert again.status_code == 202
    assert (event.type, event.page.path) == ("cta_click", "/p/growth-audit")
    assert event.properties == {"cta_label": "Book the audit", "cta_href": "#leadform"}


@pytest.mark.spec("signals.collect")
def test_a_beacon_of_an_unknown_type_or_shape_is_422(client: FlaskClient) -> None:
    """DESIGN Errors: invalid_payload names the failing fields."""
    wrong_type = client.post(URL, json={"type": "email_click"}, headers=SITE)
    extra = client.post(URL, json={"type": "page_view", "colour": "red"}, headers=SITE)

    assert wrong_type.status_code == 422
    assert wrong_type.get_json()["issues"][0]["field"] == "type"
    assert extra.status_code == 422
    assert extra.get_json()["issues"][0] == {
        "field": "colour",
        "code": "unknown_field",
        "message": "unknown field",
        "severity": "error",
    }


@pytest.mark.spec("signals.collect")
def test_a_beacon_with_several_faults_is_refused_naming_every_field_at_once(
    client: FlaskClient,
) -> None:
    """signals-api.md Errors: one 422 names each field to fix, a missing type as `missing`,
    not a first fault per round trip."""
    beacon = {"id": "short", "page": {"path": "no-slash"}}

    response = client.post(URL, json=beacon, headers=SITE)

    assert (response.status_code, response.get_json()["error"]) == (422, "invalid_payload")
    assert [(i["field"], i["code"]) for i in response.get_json()["issues"]] == [
        ("id", "invalid_format"),
        ("type", "missing"),
        ("page.path", "invalid_format"),
    ]
