"""Over HTTP: page views with campaign fields, collect's limits for them, and an
anonymous visitor's earlier page views counted for the person they identify as."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.app import create_app
from backends.bundle import Backends
from backends.embedded.queues import DurableQueue
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from tests.conftest import INGEST_KEY, SIGNALS_KEY

URL = "/api/public/v1/collect"
BASE = "/api/public/v1/signals"
SITE = {"Origin": "http://testserver"}
READ = {"x-api-key": SIGNALS_KEY}


def page_view(visitor: str, path: str, **properties: str) -> dict[str, Any]:
    return {
        "id": uuid.uuid4().hex,
        "type": "page_view",
        "page": {"url": f"http://testserver{path}", "path": path, "title": "A page"},
        "properties": {"visitor_id": visitor, **properties},
    }


def drain(backends: Backends) -> None:
    assert isinstance(backends.signal_queue, DurableQueue)
    assert backends.signal_queue.drain(timeout=10)


@pytest.mark.spec("signals.collect")
def test_page_views_keep_their_campaign_fields_and_the_stream_filters_by_them(
    client: FlaskClient, backends: Backends
) -> None:
    """Campaign attribution: utm_* and referrer are kept; utm_campaign and
    utm_source filter the stream by their exact value."""
    visitor = "v" + uuid.uuid4().hex
    q4 = page_view(
        visitor, "/p/a", utm_source="li", utm_campaign="q4", referrer="https://www.linkedin.com/"
    )
    other = page_view(visitor, "/p/b", utm_source="news", utm_campaign="spring")

    statuses = [client.post(URL, json=b, headers=SITE).status_code for b in (q4, other)]
    drain(backends)

    by_campaign = client.get(BASE, query_string={"utm_campaign": "q4"}, headers=READ).get_json()
    by_source = client.get(BASE, query_string={"utm_source": "news"}, headers=READ).get_json()
    other_case = client.get(BASE, query_string={"utm_campaign": "Q4"}, headers=READ).get_json()
    assert statuses == [202, 202]
    assert other_case["events"] == []  # the exact value, as analytics tools keep it
    (event,) = by_campaign["events"]
    assert (event["type"], event["page"]["path"]) == ("page_view", "/p/a")
    assert event["properties"] == {
        "visitor_id": visitor,
        "utm_source": "li",
        "utm_campaign": "q4",
        "referrer": "https://www.linkedin.com/",
    }
    assert [e["page"]["path"] for e in by_source["events"]] == ["/p/b"]


@pytest.mark.spec("signals.collect")
def test_a_lead_form_without_javascript_takes_its_campaign_from_the_page_url_it_was_sent_from(
    client: FlaskClient, backends: Backends
) -> None:
    """The form post's Referer carries the page URL with its UTM query."""
    form = {"email": "ana@northbook.example", "page": "growth-audit", "type": "lead_form"}
    referer = "http://testserver/p/growth-audit?utm_source=li&utm_campaign=q4&utm_medium=paid"

    response = client.post(URL, data=form, headers={"Referer": referer})
    drain(backends)

    (event,) = client.get(BASE, headers=READ).get_json()["events"]
    assert response.status_code == 303
    assert event["properties"] == {"utm_source": "li", "utm_medium": "paid", "utm_campaign": "q4"}


@pytest.mark.spec("signals.collect")
def test_an_office_behind_one_address_can_send_page_views_past_the_form_limit_but_not_a_flood(
    client: FlaskClient,
) -> None:
    """Page views are limited per visitor id (60 a minute) and per address (1,200)."""
    readers = ["v" + uuid.uuid4().hex for _ in range(30)]

    office = [
        client.post(URL, json=page_view(v, f"/p/{n}"), headers=SITE).status_code
        for v in readers
        for n in range(3)
    ]
    one_visitor = [
        client.post(URL, json=page_view(readers[0], "/p/x"), headers=SITE).status_code
        for _ in range(60)
    ]

    assert office == [202] * 90
    assert one_visitor == [202] * 57 + [429] * 3


@pytest.mark.spec("signals.collect")
def test_the_page_view_limits_per_visitor_and_per_address_are_settings(
    settings: Settings, backends: Backends
) -> None:
    """COLLECT_LIMIT_VISITOR and COLLECT_LIMIT_ADDRESS set the two page-view limits."""
    tight = settings.model_copy(update={"collect_limit_visitor": 2, "collect_limit_address": 5})
    client = create_app(app_config(tight), backends).test_client()
    readers = ["v" + uuid.uuid4().hex for _ in range(3)]

    one_visitor = [
        client.post(URL, json=page_view(readers[0], "/p/x"), headers=SITE).status_code
        for _ in range(3)
    ]
    others = [
        client.post(URL, json=page_view(v, "/p/y"), headers=SITE).status_code
        for v in readers[1:]
        for _ in range(2)
    ]

    assert one_visitor == [202, 202, 429]
    assert others == [202, 202, 202, 429]


@pytest.mark.spec("signals.people")
def test_three_page_views_then_a_lead_form_from_the_same_browser_all_count_for_the_person(
    client: FlaskClient, backends: Backends
) -> None:
    """Anonymous to known: the person's timeline holds the earlier page views, the
    account counts them, and erasing the person removes all four events."""
    visitor = "v" + uuid.uuid4().hex
    domain = f"n{uuid.uuid4().hex[:8]}.example"
    email = f"ana@{domain}"
    for path in ("/p/pricing", "/p/case-study", "/p/growth-audit"):
        assert client.post(URL, json=page_view(visitor, path), headers=SITE).status_code == 202
    drain(backends)
    form = {"email": email, "page": "growth-audit", "type": "lead_form", "visitor_id": visitor}

    client.post(URL, data=form, headers=SITE)
    other = f"n{uuid.uuid4().hex[:8]}.example"  # the same lead form, no page views before it
    client.post(
        URL,
        data={**form, "email": f"bo@{other}", "visitor_id": "v" + uuid.uuid4().hex},
        headers=SITE,
    )
    drain(backends)

    person = client.get(f"{BASE}/people/{email}", headers=READ).get_json()
    only_form = client.get(f"{BASE}/accounts/{other}", headers=READ).get_json()["account"]
    account = client.get(f"{BASE}/accounts/{domain}", headers=READ).get_json()
    assert [e["type"] for e in person["timeline"]] == ["lead_form"] + ["page_view"] * 3
    assert all(e["person"]["email"] is None for e in person["timeline"][1:])  # never rewritten
    assert person["person"]["counts"] == {"pages": 3, "events": 4}
    assert account["account"]["counts"] == {"people": 1, "pages": 3, "events": 4}
    assert account["account"]["score"] > only_form["score"] > 0
    assert [e["type"] for e in account["timeline"]] == ["lead_form"] + ["page_view"] * 3

    erased = client.delete(f"{BASE}/people/{email}", headers={"x-api-key": INGEST_KEY})

    assert erased.get_json() == {"ok": True, "erased": True, "events_removed": 4}
    assert [e["person"]["email"] for e in client.get(BASE, headers=READ).get_json()["events"]] == [
        f"bo@{other}"
    ]
    assert client.get(f"{BASE}/accounts/{domain}", headers=READ).get_json()["seen"] is False


@pytest.mark.spec("signals.collect")
@pytest.mark.parametrize("fields", [{}, {"email": ""}, {"name": "Ada"}])
def test_an_identify_that_names_no_email_is_refused_naming_the_email_field(
    client: FlaskClient, fields: dict[str, str]
) -> None:
    """signals-api.md Anonymous to known: an identify links a visitor to a person, so one
    without an address (`frontdoor.identify("")`) is a 422, not an event that links nothing."""
    form = {"type": "identify", "visitor_id": "v" * 16, **fields}

    response = client.post(URL, data=form, headers=SITE)

    assert (response.status_code, response.get_json()["error"]) == (422, "invalid_payload")
    assert [(i["field"], i["code"]) for i in response.get_json()["issues"]] == [
        ("email", "missing")
    ]


@pytest.mark.spec("signals.collect")
def test_a_poll_by_email_past_a_page_view_does_not_get_it_when_it_is_linked_later(
    client: FlaskClient, backends: Backends
) -> None:
    """signals-api.md Anonymous to known: linked events keep their place in the stream, so an
    `email=` poll whose cursor passed them gets only what follows; the person's timeline and a
    fresh `email=` read have them."""
    visitor = "v" + uuid.uuid4().hex
    email = f"quin-{uuid.uuid4().hex[:6]}@pollco.example"
    client.post(URL, json=page_view(visitor, "/p/pricing"), headers=SITE)
    drain(backends)
    opened = {
        "source": "mail",
        "row_id": visitor,
        "type": "email_open",
        "occurred_at": "2026-11-20T10:00:00Z",
        "person": {"email": email},
    }
    client.post(f"{BASE}/events", json={"events": [opened]}, headers={"x-api-key": INGEST_KEY})
    drain(backends)
    cursor = client.get(BASE, query_string={"email": email}, headers=READ).get_json()["next_since"]

    identify = {"type": "identify", "email": email, "visitor_id": visitor}
    assert client.post(URL, data=identify, headers=SITE).status_code == 202
    drain(backends)
    polled = client.get(BASE, query_string={"email": email, "since": cursor}, headers=READ)
    timeline = client.get(f"{BASE}/people/{email}", headers=READ).get_json()["timeline"]

    assert [e["type"] for e in polled.get_json()["events"]] == ["identify"]
    assert [e["type"] for e in timeline] == ["identify", "email_open", "page_view"]


@pytest.mark.spec("signals.collect")
def test_a_page_view_a_cta_click_and_a_lead_form_keep_the_variant_of_the_page_served(
    client: FlaskClient, backends: Backends
) -> None:
    """A page event names the variant the visitor was served (`properties.variant`), from the
    beacon and from the lead form's hidden field."""
    visitor = "v" + uuid.uuid4().hex
    click = {**page_view(visitor, "/p/audit", variant="bold-hero"), "type": "cta_click"}
    form = {"email": "ana@northbook.example", "page": "audit", "variant": "bold-hero"}

    view_status = client.post(
        URL, json=page_view(visitor, "/p/audit", variant="bold-hero"), headers=SITE
    ).status_code
    click_status = client.post(URL, json=click, headers=SITE).status_code
    form_status = client.post(URL, data=form, headers=SITE).status_code
    drain(backends)

    events = client.get(BASE, headers=READ).get_json()["events"]
    assert (view_status, click_status, form_status) == (202, 202, 303)
    assert sorted((e["type"], e["properties"]["variant"]) for e in events) == [
        ("cta_click", "bold-hero"),
        ("lead_form", "bold-hero"),
        ("page_view", "bold-hero"),
    ]


@pytest.mark.spec("signals.collect")
@pytest.mark.parametrize("variant", ["Bold", "-bold", "b" * 33, "bold hero", ""])
def test_a_beacon_naming_a_variant_out_of_shape_is_422_naming_it(
    client: FlaskClient, variant: str
) -> None:
    """A variant is 1-32 lower-case letters, digits or `-`, starting with a letter or digit."""
    beacon = page_view("v" + uuid.uuid4().hex, "/p/audit", variant=variant)

    response = client.post(URL, json=beacon, headers=SITE)

    assert response.status_code == 422
    assert [(i["field"], i["code"]) for i in response.get_json()["issues"]] == [
        ("properties.variant", "invalid_format")
    ]
