"""What the Signal API answers to input a client got wrong, and to an outage of its store: a
4xx with `issues[]` naming each field, or a 503 to retry, never a 500 (DESIGN Errors)."""

from __future__ import annotations

import base64
import dataclasses
import json
from datetime import UTC, datetime
from typing import Any

import pytest
from flask.testing import FlaskClient
from google.cloud import firestore

from api.app import create_app
from backends.bundle import Backends
from backends.gcp.signals import FirestoreSignalStore
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from tests.api.test_signals import BASE, INGEST, READ, ingest, raw_event


def forged_cursor(*parts: Any) -> str:
    """An accounts cursor as the service encodes one, holding what a client put in it."""
    raw = json.dumps(list(parts), separators=(",", ":"), allow_nan=True)
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


@pytest.mark.spec("signals.errors")
@pytest.mark.parametrize(
    ("sort", "key"),
    [
        pytest.param("recent", 10**30, id="recent-past-64-bits"),
        pytest.param("recent", -1, id="recent-before-1970"),
        pytest.param("recent", 1.5, id="recent-fraction"),
        pytest.param("recent", True, id="recent-boolean"),
        pytest.param("score", float("nan"), id="score-nan"),
        pytest.param("score", float("inf"), id="score-infinity"),
        pytest.param("score", 10**400, id="score-past-float-range"),
        pytest.param("score", "3.2", id="score-text"),
    ],
)
def test_a_forged_accounts_cursor_answers_400_naming_the_cursor(
    client: FlaskClient, sort: str, key: object
) -> None:
    """DESIGN Signals: `cursor` takes a `next_cursor`; anything else is 400 invalid_query."""
    response = client.get(
        f"{BASE}/accounts",
        query_string={"sort": sort, "cursor": forged_cursor(sort, key, "acme.com")},
        headers=READ,
    )

    body = response.get_json()
    assert response.status_code == 400
    assert body["error"] == "invalid_query"
    assert [(i["field"], i["code"]) for i in body["issues"]] == [("cursor", "invalid_format")]


@pytest.mark.spec("signals.lookup")
def test_malformed_lookup_keys_answer_400_with_an_issue_naming_the_path_value(
    client: FlaskClient,
) -> None:
    """SPEC Errors: invalid_domain / invalid_email, with issues[] like every other 4xx."""
    domain = client.get(f"{BASE}/accounts/not_a_domain", headers=READ).get_json()
    person = client.get(f"{BASE}/people/not-an-email", headers=READ).get_json()
    erase = client.delete(f"{BASE}/people/not-an-email", headers=INGEST).get_json()

    assert (domain["error"], domain["issues"][0]["field"]) == ("invalid_domain", "domain")
    assert (person["error"], person["issues"][0]["field"]) == ("invalid_email", "email")
    assert (erase["error"], erase["issues"][0]["field"]) == ("invalid_email", "email")


@pytest.mark.spec("signals.lookup")
def test_lookups_and_erasure_refuse_query_parameters_they_do_not_take(
    client: FlaskClient,
) -> None:
    """signals-api.md: a parameter the endpoint does not know answers 400 unknown_parameter,
    so `?days=30` on a lookup is never silently ignored."""
    answers = [
        client.get(f"{BASE}/accounts/acme.com?days=30", headers=READ),
        client.get(f"{BASE}/people/ada@acme.com?limit=5", headers=READ),
        client.delete(f"{BASE}/people/ada@acme.com?dry_run=1", headers=INGEST),
    ]

    assert [a.status_code for a in answers] == [400, 400, 400]
    assert [(i["field"], i["code"]) for a in answers for i in a.get_json()["issues"]] == [
        ("days", "unknown_parameter"),
        ("limit", "unknown_parameter"),
        ("dry_run", "unknown_parameter"),
    ]


@pytest.mark.spec("signals.ingest")
def test_a_batch_with_a_member_besides_events_is_refused_naming_it(
    client: FlaskClient,
) -> None:
    """As for an event's own fields: a misspelt member is refused, never ignored."""
    response = client.post(
        f"{BASE}/events", json={"events": [raw_event("1")], "dryRun": True}, headers=INGEST
    )

    body = response.get_json()
    assert response.status_code == 422
    assert body["error"] == "invalid_payload"
    assert [(i["field"], i["code"]) for i in body["issues"]] == [("dryRun", "unknown_field")]


@pytest.mark.spec("signals.ingest")
def test_a_batch_over_500_events_answers_413_naming_events(client: FlaskClient) -> None:
    """DESIGN Ingest: batches of up to 500 events."""
    events = [raw_event(str(i)) for i in range(501)]

    response = client.post(f"{BASE}/events", json={"events": events}, headers=INGEST)

    body = response.get_json()
    assert (response.status_code, body["error"]) == (413, "payload_too_large")
    assert [(i["field"], i["code"]) for i in body["issues"]] == [("events", "too_long")]


@pytest.mark.spec("signals.ingest")
def test_a_whole_number_property_beyond_64_bits_is_refused_and_the_rest_stored(
    client: FlaskClient, backends: Backends
) -> None:
    """Firestore keeps whole numbers as signed 64-bit: an event it could never store is refused
    at the door, not accepted and then dead-lettered with the rest of its batch."""
    body = ingest(
        client,
        backends,
        [
            raw_event("big", properties={"deal_cents": 2**63}),
            raw_event("fits", properties={"deal_cents": 2**63 - 1, "ratio": 1e308}),
        ],
    )

    assert body["accepted"] == ["crm:fits"]
    assert [(r["id"], [(i["field"], i["code"]) for i in r["issues"]]) for r in body["refused"]] == [
        ("crm:big", [("properties.deal_cents", "out_of_range")])
    ]


@pytest.mark.spec("signals.accounts")
def test_reasons_count_a_single_touch_in_the_singular(
    client: FlaskClient, backends: Backends
) -> None:
    """signals-api.md Scores and trends: reasons read as sentences."""
    ingest(client, backends, [raw_event("1", type="book_call")])

    account = client.get(f"{BASE}/accounts/acme.com", headers=READ).get_json()["account"]

    assert "1 touch in the last 7 days, 0 in the 28 days before" in account["reasons"]
    assert "1 person was active this week" in account["reasons"]


@pytest.mark.spec("signals.stream")
def test_a_store_outage_answers_503_unavailable_with_retry_after_on_every_read(
    settings: Settings, backends: Backends, down_firestore: firestore.Client
) -> None:
    """signals-agent.md: back off on 5xx; a backend that is down is 503, never a 500."""
    client = create_app(
        app_config(settings),
        dataclasses.replace(backends, signals=FirestoreSignalStore(down_firestore)),
    ).test_client()
    since = datetime.now(UTC).isoformat()

    answers = [
        client.get(BASE, query_string={"since": since}, headers=READ),
        client.get(f"{BASE}/accounts", headers=READ),
        client.get(f"{BASE}/accounts/acme.com", headers=READ),
        client.get(f"{BASE}/people/ada@acme.com", headers=READ),
        client.delete(f"{BASE}/people/ada@acme.com", headers=INGEST),
    ]

    assert [a.status_code for a in answers] == [503] * 5
    assert {a.get_json()["error"] for a in answers} == {"unavailable"}
    assert {a.headers["Retry-After"] for a in answers} == {"5"}


@pytest.mark.spec("signals.ingest")
def test_a_batch_without_a_json_content_type_is_read_as_json_and_no_415_is_promised(
    client: FlaskClient,
) -> None:
    """signals-api.md Sending events: the body is read as JSON whatever its content type, and
    the OpenAPI lists only statuses the endpoint gives."""
    body = json.dumps({"events": [raw_event("plain")]})

    response = client.post(
        f"{BASE}/events", data=body, headers={**INGEST, "content-type": "text/plain"}
    )
    document = client.get("/openapi.json").get_json()

    assert response.status_code == 202
    assert response.get_json()["accepted"] == ["crm:plain"]
    assert "415" not in document["paths"][f"{BASE}/events"]["post"]["responses"]


@pytest.mark.spec("signals.webhooks")
def test_the_webhook_list_refuses_query_parameters_it_does_not_take(client: FlaskClient) -> None:
    """signals-api.md: a parameter an endpoint does not know answers 400, never ignored."""
    response = client.get(f"{BASE}/webhooks?kind=slack", headers=READ)

    assert response.status_code == 400
    assert [(i["field"], i["code"]) for i in response.get_json()["issues"]] == [
        ("kind", "unknown_parameter")
    ]


@pytest.mark.spec("signals.collect")
def test_collect_names_the_field_of_a_form_without_a_page_and_of_a_beacon_not_an_object(
    client: FlaskClient,
) -> None:
    """DESIGN Errors: every 4xx body has issues[] naming what failed."""
    site = {"Origin": "http://testserver"}
    form = client.post(
        "/api/public/v1/collect",
        data={"email": "ada@acme.com", "type": "lead_form", "website": ""},
        headers=site,
    )
    beacon = client.post("/api/public/v1/collect", json=[], headers=site)

    assert (form.status_code, beacon.status_code) == (422, 422)
    assert [(i["field"], i["code"]) for i in form.get_json()["issues"]] == [
        ("page", "invalid_format")
    ]
    assert [(i["field"], i["code"]) for i in beacon.get_json()["issues"]] == [("", "invalid_type")]


@pytest.mark.spec("signals.ingest")
def test_an_ingested_event_of_the_sites_own_source_is_refused_naming_source(
    client: FlaskClient, backends: Backends
) -> None:
    """signals-api.md Sending events: source `site` is the site's own forms and beacons
    (`/collect`, origin-checked). An ingest key may neither pass its events off as those nor,
    by sending a `site` id first, make a visitor's own event a repeat that is dropped."""
    body = ingest(
        client,
        backends,
        [raw_event("lead-1", source="site", type="lead_form"), raw_event("lead-1")],
    )

    assert body["accepted"] == ["crm:lead-1"]
    assert [(r["id"], [(i["field"], i["code"]) for i in r["issues"]]) for r in body["refused"]] == [
        ("site:lead-1", [("source", "reserved")])
    ]
    stored = client.get(BASE, headers=READ).get_json()["events"]
    assert [e["id"] for e in stored] == ["crm:lead-1"]


@pytest.mark.spec("signals.ingest")
def test_a_refused_event_names_every_field_at_fault_in_one_answer(client: FlaskClient) -> None:
    """signals-api.md Sending events: a misspelt type does not hide a malformed address,
    domain or page path; each is named at once."""
    bad = raw_event(
        "1",
        type="bookcall",
        person={"email": "ada-at-acme"},
        account={"domain": "not a domain"},
        page={"path": "pricing"},
    )

    response = client.post(f"{BASE}/events", json={"events": [bad]}, headers=INGEST)

    assert response.status_code == 422
    assert [(i["field"], i["code"]) for i in response.get_json()["issues"]] == [
        ("events.0.type", "literal_error"),
        ("events.0.person.email", "invalid_email"),
        ("events.0.account.domain", "invalid_domain"),
        ("events.0.page.path", "invalid_format"),
    ]
