"""signals-api.md "Collect": a beacon says only what a browser saw (a page view, a CTA
click), a person is named only by a form the visitor sends, and form posts are held to the
form limit per client address whatever visitor ids they carry; refusals are counted in the
log for operators."""

from __future__ import annotations

import logging
import uuid
from typing import Any

import pytest
from flask.testing import FlaskClient

from backends.bundle import Backends
from tests.api.test_collect import SITE, URL, stored

VISITOR = {"visitor_id": "v0123456789abcdef"}


def _view(**extra: Any) -> dict[str, Any]:
    return {
        "type": "page_view",
        "page": {"path": "/p/growth-audit"},
        "properties": VISITOR,
        **extra,
    }


@pytest.mark.spec("signals.collect")
@pytest.mark.parametrize(
    ("beacon", "field", "code"),
    [
        (_view(person={"email": "ceo@victim.example"}), "person", "not_allowed"),
        (_view(account={"domain": "victim.example"}), "account", "not_allowed"),
        (_view(occurred_at="2025-01-01T00:00:00Z"), "occurred_at", "not_allowed"),
        ({**_view(), "type": "lead_form"}, "type", "form_only"),
        (
            {**_view(), "type": "book_call", "person": {"email": "ceo@victim.example"}},
            "type",
            "form_only",
        ),
        ({**_view(), "type": "identify"}, "type", "form_only"),
    ],
)
def test_a_forged_beacon_is_refused_naming_its_field_counted_and_changes_no_roll_up(
    client: FlaskClient,
    backends: Backends,
    caplog: pytest.LogCaptureFixture,
    beacon: dict[str, Any],
    field: str,
    code: str,
) -> None:
    """A beacon that names a person, an account, a past time or a form type is a 422; nothing
    is stored, no account or person appears, and the log counts it as `forged_beacon`."""
    caplog.set_level(logging.INFO)

    response = client.post(URL, json=beacon, headers=SITE)

    assert (response.status_code, response.get_json()["error"]) == (422, "invalid_payload")
    assert (field, code) in [(i["field"], i["code"]) for i in response.get_json()["issues"]]
    assert stored(backends) == []
    assert backends.signals.get_account("victim.example") is None
    assert backends.signals.get_person("ceo@victim.example") is None
    counted = [r for r in caplog.records if getattr(r, "collect_refused", None)]
    assert [(r.collect_refused, r.refused_count) for r in counted] == [("forged_beacon", 1)]  # type: ignore[attr-defined]


@pytest.mark.spec("signals.collect")
def test_a_page_view_is_stored_at_the_servers_time_without_its_query_beyond_the_campaign(
    client: FlaskClient, backends: Backends
) -> None:
    """An address in a page's query string never reaches the stream; the UTM fields stay."""
    url = "http://testserver/p/growth-audit?email=ada%40acme.com&utm_source=li&token=abc#top"
    beacon = {"type": "page_view", "page": {"url": url}, "properties": VISITOR}
    before = backends.clock()

    response = client.post(URL, json=beacon, headers=SITE)

    (event,) = stored(backends)
    assert response.status_code == 202
    assert event.page.url == "http://testserver/p/growth-audit?utm_source=li"
    assert (event.person.email, event.account.domain) == (None, None)
    assert before <= event.occurred_at <= backends.clock()


@pytest.mark.spec("signals.collect")
def test_a_beacon_property_beyond_what_a_browser_saw_is_refused(client: FlaskClient) -> None:
    response = client.post(
        URL, json=_view(properties={**VISITOR, "email": "a@b.example"}), headers=SITE
    )

    assert response.status_code == 422
    assert [(i["field"], i["code"]) for i in response.get_json()["issues"]] == [
        ("properties.email", "unknown_field")
    ]


@pytest.mark.spec("signals.collect")
def test_300_form_posts_from_one_address_with_fresh_visitor_ids_are_held_to_the_form_limit(
    client: FlaskClient, backends: Backends, caplog: pytest.LogCaptureFixture
) -> None:
    """The form limit is 20 a minute per client address, whatever the visitor id: fresh ids,
    lead forms and identifies alike, and JSON beacons of a form type store nothing."""
    caplog.set_level(logging.INFO)
    answers = []
    for i in range(300):
        visitor = "v" + uuid.uuid4().hex
        if i % 3 == 0:
            body = {"type": "identify", "email": f"p{i}@forged.example", "visitor_id": visitor}
        else:
            body = {"email": f"p{i}@forged.example", "page": "growth-audit", "type": "lead_form"}
            body["visitor_id"] = visitor
        answers.append(client.post(URL, data=body, headers=SITE))
        beacon = {"type": "lead_form", "properties": {"visitor_id": visitor}}
        answers.append(client.post(URL, json=beacon, headers=SITE))

    events = stored(backends)
    assert len(events) == 20
    assert {e.type for e in events} <= {"lead_form", "identify"}
    counts = {}
    for record in caplog.records:
        reason = getattr(record, "collect_refused", None)
        if reason:
            counts[reason] = record.refused_count  # type: ignore[attr-defined]
    assert counts == {"over_form_limit": 280, "forged_beacon": 300}
    assert not any("127.0.0.1" in r.getMessage() for r in caplog.records)


@pytest.mark.spec("signals.collect")
def test_identify_is_a_form_post_that_links_the_visitor_and_needs_its_visitor_id(
    client: FlaskClient, backends: Backends
) -> None:
    visitor = "v" + uuid.uuid4().hex
    client.post(URL, json=_view(properties={"visitor_id": visitor}), headers=SITE)

    linked = client.post(
        URL,
        data={"type": "identify", "email": "ana@linked.example", "visitor_id": visitor},
        headers=SITE,
    )
    unlinked = client.post(
        URL, data={"type": "identify", "email": "bo@linked.example"}, headers=SITE
    )

    assert linked.status_code == 202
    assert (unlinked.status_code, [i["field"] for i in unlinked.get_json()["issues"]]) == (
        422,
        ["visitor_id"],
    )
    stored(backends)
    person = backends.signals.get_person("ana@linked.example")
    assert person is not None
    assert person.events == 2
