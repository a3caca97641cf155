"""SPEC.md "Signal API" and DESIGN's webhooks over HTTP, in both modes: ingest to read-back."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from tests.acceptance.conftest import Service
from tests.polling import wait_for

pytestmark = pytest.mark.emulator

SIGNALS = "/api/public/v1/signals"


def read_key(service: Service) -> dict[str, str]:
    return {"x-api-key": service.signals_key}


def event(row_id: str, email: str, **fields: Any) -> dict[str, Any]:
    return {
        "source": "crm",
        "row_id": row_id,
        "type": "article_read",
        "occurred_at": datetime.now(UTC).isoformat(),
        "person": {"email": email, "name": "Ada Lovelace"},
        "page": {"url": "https://kestrel.example/blog/growth-loops", "title": "Growth loops"},
        **fields,
    }


def ingest(http: httpx.Client, service: Service, events: list[dict[str, Any]]) -> list[str]:
    response = http.post(
        f"{SIGNALS}/events", json={"events": events}, headers={"x-api-key": service.ingest_key}
    )
    assert response.status_code == 202, response.json()
    accepted: list[str] = response.json()["accepted"]
    return accepted


def stream_ids(http: httpx.Client, service: Service, **params: str) -> list[str]:
    response = http.get(SIGNALS, params=params, headers=read_key(service))
    assert response.status_code == 200, response.json()
    return [e["id"] for e in response.json()["events"]]


@pytest.mark.spec("signals.stream")
def test_an_ingested_batch_appears_in_the_stream_and_next_since_walks_past_it(
    http: httpx.Client, service: Service
) -> None:
    """SPEC Events: newest first, stable `<source>:<row_id>` ids, polling with next_since."""
    domain = f"{uuid.uuid4().hex[:10]}.example"
    rows = [uuid.uuid4().hex[:12] for _ in range(3)]

    accepted = ingest(http, service, [event(r, f"ada@{domain}") for r in rows])

    assert accepted == [f"crm:{r}" for r in rows]
    wait_for(
        lambda: set(stream_ids(http, service, domain=domain)) == set(accepted),
        what="events in the stream",
    )
    first = http.get(SIGNALS, params={"domain": domain}, headers=read_key(service)).json()
    recorded = [e["recorded_at"] for e in first["events"]]
    assert recorded == sorted(recorded, reverse=True)
    assert stream_ids(http, service, domain=domain, since=first["next_since"]) == []
    later = ingest(http, service, [event("later-" + rows[0], f"ada@{domain}")])
    wait_for(
        lambda: stream_ids(http, service, domain=domain, since=first["next_since"]) == later,
        what="only the later event after next_since",
    )


@pytest.mark.spec("signals.accounts.get")
def test_account_and_person_lookups_roll_up_and_an_unknown_domain_is_seen_false(
    http: httpx.Client, service: Service
) -> None:
    """SPEC Events rule 4: lookups of unknown keys answer 200 with `seen: false`."""
    domain = f"{uuid.uuid4().hex[:10]}.example"
    email = f"grace@{domain}"
    ingest(http, service, [event(uuid.uuid4().hex[:12], email, type="book_call")])
    wait_for(lambda: stream_ids(http, service, domain=domain) != [], what="event stored")

    account = http.get(f"{SIGNALS}/accounts/{domain}", headers=read_key(service))
    person = http.get(f"{SIGNALS}/people/{email}", headers=read_key(service))
    unknown = http.get(f"{SIGNALS}/accounts/never-{domain}", headers=read_key(service))

    assert account.status_code == 200
    assert account.json()["seen"] is True
    assert account.json()["account"]["stage"] == "hand_raiser"
    assert [p["email"] for p in account.json()["account"]["people"]] == [email]
    assert person.json()["seen"] is True
    assert len(person.json()["timeline"]) == 1
    assert unknown.status_code == 200
    assert unknown.json()["seen"] is False


@pytest.mark.spec("signals.stream")
def test_the_stream_refuses_a_missing_or_wrong_scope_key(
    http: httpx.Client, service: Service
) -> None:
    """SPEC Authentication: 401 unauthorized; a key of another scope is refused."""
    missing = http.get(SIGNALS)
    wrong_scope = http.get(SIGNALS, headers={"x-api-key": service.content_key})

    assert missing.status_code == wrong_scope.status_code == 401
    assert missing.json()["error"] == "unauthorized"


@pytest.mark.spec("signals.webhooks")
def test_a_registered_webhook_shows_its_secret_once_and_is_listed(
    http: httpx.Client, service: Service
) -> None:
    """DESIGN Deliveries: 201 with a whsec_ secret; the list never shows a secret."""
    url = f"https://hooks.{uuid.uuid4().hex[:8]}.example/in"

    created = http.post(
        f"{SIGNALS}/webhooks", json={"url": url, "types": ["book_call"]}, headers=read_key(service)
    )
    listed = http.get(f"{SIGNALS}/webhooks", headers=read_key(service))

    assert created.status_code == 201, created.json()
    assert created.json()["secret"].startswith("whsec_")
    mine = [w for w in listed.json()["endpoints"] if w["url"] == url]
    assert len(mine) == 1
    assert "secret" not in mine[0]
