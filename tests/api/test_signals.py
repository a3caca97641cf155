"""SPEC.md "Signal API" over HTTP: ingest, the stream, accounts, lookups, validation, erasure."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

import pytest
from flask.testing import FlaskClient

from backends.bundle import Backends
from backends.embedded.queues import DurableQueue
from schemas.signals.events import EVENT_TYPES
from tests.conftest import CONTENT_KEY, INGEST_KEY, SIGNALS_KEY

READ = {"x-api-key": SIGNALS_KEY}
INGEST = {"x-api-key": INGEST_KEY}
BASE = "/api/public/v1/signals"


def raw_event(row_id: str, **fields: Any) -> dict[str, Any]:
    return {
        "source": "crm",
        "row_id": row_id,
        "type": "article_read",
        "occurred_at": datetime.now(UTC).isoformat(),
        "person": {"email": "ada@acme.com", "name": "Ada Lovelace"},
        "page": {"url": "https://kestrel.example/blog/growth-loops", "title": "Growth loops"},
        **fields,
    }


def ingest(client: FlaskClient, backends: Backends, events: list[dict[str, Any]]) -> dict[str, Any]:
    """POST a batch and wait for the in-process worker to store it."""
    response = client.post(f"{BASE}/events", json={"events": events}, headers=INGEST)
    assert response.status_code == 202, response.get_json()
    assert isinstance(backends.signal_queue, DurableQueue)
    assert backends.signal_queue.drain(timeout=10)
    body: dict[str, Any] = response.get_json()
    return body


def stream(client: FlaskClient, **params: Any) -> dict[str, Any]:
    response = client.get(BASE, query_string=params, headers=READ)
    assert response.status_code == 200, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


@pytest.mark.spec("signals.stream")
def test_every_event_type_is_ingested_and_found_by_its_type_filter(
    client: FlaskClient, backends: Backends
) -> None:
    """SPEC Signal event kinds: each of the thirteen types is stored and filterable."""
    events = [
        raw_event(f"r{i}", type=kind, person={"email": f"p{i}@acme.com"})
        for i, kind in enumerate(EVENT_TYPES)
    ]

    accepted = ingest(client, backends, events)["accepted"]

    assert accepted == [f"crm:r{i}" for i in range(len(EVENT_TYPES))]
    for i, kind in enumerate(EVENT_TYPES):
        found = stream(client, type=kind)["events"]
        assert [(e["id"], e["type"]) for e in found] == [(f"crm:r{i}", kind)]
    pair = stream(client, type="book_call,lead_form")["events"]
    assert {e["type"] for e in pair} == {"book_call", "lead_form"}


@pytest.mark.spec("signals.stream")
def test_a_stored_event_carries_every_field_with_the_account_taken_from_the_email(
    client: FlaskClient, backends: Backends
) -> None:
    """DESIGN Signals: the event shape; the account domain comes from the person's email."""
    ingest(client, backends, [raw_event("1", properties={"plan": "Scale", "seats": 12})])

    (event,) = stream(client)["events"]

    assert set(event) == {
        "id",
        "type",
        "source",
        "occurred_at",
        "recorded_at",
        "person",
        "account",
        "page",
        "properties",
        "imported",
    }
    assert event["id"] == "crm:1"
    assert event["imported"] is False
    assert event["account"] == {"domain": "acme.com", "name": None}
    assert event["page"]["path"] == "/blog/growth-loops"
    assert event["properties"] == {"plan": "Scale", "seats": 12}


@pytest.mark.spec("signals.stream")
def test_polling_with_next_since_walks_every_event_once_newest_first_per_page(
    client: FlaskClient, backends: Backends
) -> None:
    """SPEC Events 2-3: poll with next_since; has_more asks for the next page at once."""
    ingest(client, backends, [raw_event(str(i)) for i in range(7)])
    seen: list[str] = []
    since = "2020-01-01T00:00:00Z"

    for _ in range(10):
        body = stream(client, since=since, limit=3)
        ids = [e["id"] for e in body["events"]]
        assert ids == sorted(ids, key=lambda i: int(i.split(":")[1]), reverse=True)
        seen += reversed(ids)
        since = body["next_since"]
        if not body["has_more"]:
            break

    assert seen == [f"crm:{i}" for i in range(7)]
    assert stream(client, since=since)["events"] == []
    assert stream(client, since=since)["next_since"] == since


@pytest.mark.spec("signals.stream")
def test_stream_filters_by_domain_email_and_words(client: FlaskClient, backends: Backends) -> None:
    """SPEC Signal API: domain, email and q (words in person, account, page, properties)."""
    ingest(
        client,
        backends,
        [
            raw_event("1"),
            raw_event("2", person={"email": "bob@beta.example", "name": "Bob Stone"}),
            raw_event("3", person={"email": "cy@acme.com"}, properties={"campaign": "Winter"}),
        ],
    )

    def ids(**params: Any) -> list[str]:
        return sorted(e["id"] for e in stream(client, **params)["events"])

    assert ids(domain="ACME.com") == ["crm:1", "crm:3"]
    assert ids(email="bob@beta.example") == ["crm:2"]
    assert ids(q="stone") == ["crm:2"]
    assert ids(q="winter acme") == ["crm:3"]
    assert ids(q="growth loops") == ["crm:1", "crm:2", "crm:3"]


@pytest.mark.spec("signals.auth")
def test_reads_take_the_signals_key_as_x_api_key_or_bearer_and_refuse_other_scopes(
    client: FlaskClient,
) -> None:
    """SPEC Authentication: x-api-key or Authorization: Bearer; a key of another scope is 401."""
    bearer = {"Authorization": f"Bearer {SIGNALS_KEY}"}

    assert client.get(BASE, headers=READ).status_code == 200
    assert client.get(f"{BASE}/accounts", headers=bearer).status_code == 200
    for headers in ({}, {"x-api-key": CONTENT_KEY}, INGEST, {"x-api-key": "wrong-key"}):
        response = client.get(BASE, headers=headers)
        assert response.status_code == 401
        assert response.get_json()["error"] == "unauthorized"
    assert client.post(f"{BASE}/events", json={"events": []}, headers=READ).status_code == 401


@pytest.mark.spec("signals.errors")
def test_malformed_query_parameters_answer_400_naming_each(client: FlaskClient) -> None:
    """SPEC Errors: invalid query parameters answer invalid_query with issues[]."""
    response = client.get(
        BASE,
        query_string={
            "since": "yesterday",
            "days": "0",
            "type": "page_visit",
            "email": "nobody",
            "limit": "1001",
            "colour": "red",
        },
        headers=READ,
    )

    body = response.get_json()
    assert response.status_code == 400
    assert body["error"] == "invalid_query"
    assert {i["field"] for i in body["issues"]} == {
        "since",
        "days",
        "type",
        "email",
        "limit",
        "colour",
    }
    accounts = client.get(f"{BASE}/accounts?stage=hot&limit=501", headers=READ).get_json()
    assert {i["field"] for i in accounts["issues"]} == {"stage", "limit"}


@pytest.mark.spec("signals.ingest")
def test_a_batch_stores_the_good_events_and_names_the_refused_ones(
    client: FlaskClient, backends: Backends
) -> None:
    """DESIGN Ingest: 202 with accepted ids and refused {index, id, issues}."""
    body = ingest(
        client,
        backends,
        [raw_event("ok"), raw_event("bad", type="page_visit"), {"source": "crm", "row_id": "x"}],
    )

    assert body["accepted"] == ["crm:ok"]
    assert [(r["index"], r["id"]) for r in body["refused"]] == [(1, "crm:bad"), (2, "crm:x")]
    assert {i["field"] for i in body["refused"][0]["issues"]} == {"type"}
    assert {i["field"] for i in body["refused"][1]["issues"]} >= {"type", "occurred_at"}


@pytest.mark.spec("signals.ingest")
def test_a_batch_with_no_good_event_is_422_and_one_over_500_is_413(client: FlaskClient) -> None:
    """DESIGN Ingest: 422 invalid_payload when none is accepted; batches up to 500."""
    none = client.post(
        f"{BASE}/events", json={"events": [raw_event("x", occurred_at="soon")]}, headers=INGEST
    )
    big = client.post(
        f"{BASE}/events", json={"events": [raw_event(str(i)) for i in range(501)]}, headers=INGEST
    )
    not_json = client.post(f"{BASE}/events", data="{", headers=INGEST)

    assert none.status_code == 422
    assert none.get_json()["issues"][0]["field"] == "events.0.occurred_at"
    assert (big.status_code, big.get_json()["error"]) == (413, "payload_too_large")
    assert (not_json.status_code, not_json.get_json()["error"]) == (400, "invalid_json")


@pytest.mark.spec("signals.accounts")
def test_accounts_roll_up_people_pages_sources_and_stage_with_lists_capped_at_20(
    client: FlaskClient, backends: Backends
) -> None:
    """DESIGN Signals: an account summary; list views cap each list at 20."""
    reads = [raw_event(f"p{i}", page={"path": f"/blog/{i}"}) for i in range(21)]
    hand = raw_event(
        "call", type="book_call", person={"email": "bob@acme.com"}, account={"name": "Acme"}
    )
    ingest(client, backends, [*reads, hand, raw_event("beta", person={"email": "c@beta.example"})])

    listed = client.get(f"{BASE}/accounts?stage=hand_raiser", headers=READ).get_json()["accounts"]
    every = client.get(f"{BASE}/accounts", headers=READ).get_json()["accounts"]
    one = client.get(f"{BASE}/accounts/acme.com", headers=READ).get_json()

    assert [a["domain"] for a in listed] == ["acme.com"]
    assert {a["domain"]: a["stage"] for a in every} == {
        "acme.com": "hand_raiser",
        "beta.example": "engaged",
    }
    acme = listed[0]
    assert acme["name"] == "Acme"
    assert acme["people"] == [
        {"email": "bob@acme.com", "name": None, "stage": "hand_raiser"},
        {"email": "ada@acme.com", "name": "Ada Lovelace", "stage": "engaged"},
    ]
    assert len(acme["pages"]) == 20
    assert acme["counts"] == {"people": 2, "pages": 22, "events": 22}
    assert acme["sources"] == ["crm"]
    assert one["seen"] is True
    assert len(one["account"]["pages"]) == 22
    assert {p["email"] for p in one["people"]} == {"ada@acme.com", "bob@acme.com"}
    assert len(one["timeline"]) == 22
    assert one["timeline"][0]["id"] == "crm:call"


@pytest.mark.spec("signals.lookup")
def test_lookups_of_unknown_keys_answer_seen_false_and_malformed_ones_400(
    client: FlaskClient, backends: Backends
) -> None:
    """SPEC Events 4: unknown answers 200 seen:false; invalid_domain / invalid_email."""
    ingest(client, backends, [raw_event("1", person={"email": "Ada@Gmail.com"})])

    person = client.get(f"{BASE}/people/ada@gmail.com", headers=READ).get_json()
    unknown = client.get(f"{BASE}/accounts/nobody.example", headers=READ)
    free = client.get(f"{BASE}/accounts/gmail.com", headers=READ).get_json()
    stranger = client.get(f"{BASE}/people/x@nobody.example", headers=READ).get_json()
    bad_domain = client.get(f"{BASE}/accounts/not_a_domain", headers=READ)
    bad_email = client.get(f"{BASE}/people/not-an-email", headers=READ)

    assert person["seen"] is True
    assert person["person"]["domain"] is None
    assert [e["id"] for e in person["timeline"]] == ["crm:1"]
    assert (unknown.status_code, unknown.get_json()["seen"]) == (200, False)
    assert free["seen"] is False
    assert stranger == {
        "ok": True,
        "seen": False,
        "email": "x@nobody.example",
        "person": None,
        "timeline": [],
        "timeline_truncated": False,
    }
    assert (bad_domain.status_code, bad_domain.get_json()["error"]) == (400, "invalid_domain")
    assert (bad_email.status_code, bad_email.get_json()["error"]) == (400, "invalid_email")


@pytest.mark.spec("signals.erase")
def test_erasing_a_person_removes_them_and_logs_no_address(
    client: FlaskClient, backends: Backends, caplog: pytest.LogCaptureFixture
) -> None:
    """DESIGN Ingest: DELETE people/{email} with the ingest key; the erasure is logged."""
    ingest(
        client,
        backends,
        [raw_event("1", type="book_call"), raw_event("2", person={"email": "bob@acme.com"})],
    )
    caplog.set_level(logging.INFO)

    refused = client.delete(f"{BASE}/people/ada@acme.com", headers=READ)
    erased = client.delete(f"{BASE}/people/ada@acme.com", headers=INGEST)
    repeated = client.delete(f"{BASE}/people/ada@acme.com", headers=INGEST)

    account = client.get(f"{BASE}/accounts/acme.com", headers=READ).get_json()["account"]
    assert refused.status_code == 401
    assert erased.get_json() == {"ok": True, "erased": True, "events_removed": 1}
    assert repeated.get_json() == {"ok": True, "erased": True, "events_removed": 0}
    assert client.get(f"{BASE}/people/ada@acme.com", headers=READ).get_json()["seen"] is False
    assert [e["id"] for e in stream(client)["events"]] == ["crm:2"]
    assert (account["stage"], [p["email"] for p in account["people"]]) == (
        "engaged",
        ["bob@acme.com"],
    )
    assert "erased person" in caplog.text
    assert "ada@acme.com" not in caplog.text


@pytest.mark.spec("signals.erase")
def test_erasing_a_person_leaves_no_webhook_delivery_of_their_events_to_list_or_replay(
    client: FlaskClient, backends: Backends, caplog: pytest.LogCaptureFixture
) -> None:
    """DESIGN Ingest and Deliveries: erasure reaches the delivery records kept for replays."""
    hooks = f"{BASE}/webhooks"
    endpoint = client.post(hooks, json={"url": "https://hooks.example.com/in"}, headers=READ)
    endpoint_id = endpoint.get_json()["endpoint"]["id"]
    ingest(client, backends, [raw_event("1"), raw_event("2", person={"email": "bob@acme.com"})])
    before = client.get(f"{hooks}/{endpoint_id}/deliveries", headers=READ).get_json()["deliveries"]
    ada = next(d["id"] for d in before if d["event_id"] == "crm:1")
    caplog.set_level(logging.INFO)

    client.delete(f"{BASE}/people/ada@acme.com", headers=INGEST)

    after = client.get(f"{hooks}/{endpoint_id}/deliveries", headers=READ).get_json()["deliveries"]
    replay = client.post(f"{hooks}/deliveries/{ada}/replay", headers=READ)
    assert sorted(d["event_id"] for d in before) == ["crm:1", "crm:2"]
    assert [d["event_id"] for d in after] == ["crm:2"]
    assert (replay.status_code, replay.get_json()["error"]) == (404, "not_found")
    assert "1 webhook deliveries removed" in caplog.text
    assert "ada@acme.com" not in caplog.text


@pytest.mark.spec("signals.ingest")
def test_the_ingest_key_is_also_accepted_as_a_bearer_token(
    client: FlaskClient, backends: Backends
) -> None:
    """signals-api.md: `Authorization: Bearer <INGEST_API_KEY>` works as `x-api-key` does."""
    bearer = {"Authorization": f"Bearer {INGEST_KEY}"}

    sent = client.post(f"{BASE}/events", json={"events": [raw_event("b1")]}, headers=bearer)
    assert isinstance(backends.signal_queue, DurableQueue)
    assert backends.signal_queue.drain(timeout=10)
    erased = client.delete(f"{BASE}/people/ada@acme.com", headers=bearer)
    wrong = client.post(
        f"{BASE}/events", json={"events": []}, headers={"Authorization": "Bearer x"}
    )

    assert (sent.status_code, sent.get_json()["accepted"]) == (202, ["crm:b1"])
    assert erased.status_code == 200
    assert wrong.status_code == 401
