"""A page's experiment over HTTP (content-api.md "Experiments"): the standing from the page
stats by variant, an adaptive allocation's shares recomputed from them and served at /p/{slug},
ending with a winner through the gate, and the stop rule."""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from api.app import create_app
from backends.bundle import Backends
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from schemas.signals.events import NewEvent, Page
from tests.api.content_client import AUTH, PAGES, page_body
from tests.api.lanes import Lanes, lane_app, lane_backends, lane_client, lanes

__all__ = ["lane_app", "lane_backends", "lane_client", "lanes"]  # fixtures used below

pytestmark = pytest.mark.spec("content.experiments")

SLUG = "growth-audit"
B_TITLE = "Where your pipeline leaks"
EXPERIMENT = f"{PAGES}/{SLUG}/experiment"


def page_with_variant(client: FlaskClient, allocation: dict[str, Any]) -> None:
    assert client.post(PAGES, json=page_body(SLUG), headers=AUTH).status_code == 201
    variant = {"id": "b", "page": page_body(SLUG, title=B_TITLE)}
    assert client.post(f"{PAGES}/{SLUG}/variants", json=variant, headers=AUTH).status_code == 201
    put = client.put(f"{PAGES}/{SLUG}/allocation", json=allocation, headers=AUTH)
    assert put.status_code == 200, put.get_json()


def traffic(backends: Backends, arm: str, *, visitors: int, converted: int) -> None:
    """`visitors` fresh visitors view the page served `arm`; the first `converted` send its form."""
    now: datetime = backends.clock()
    events = []
    for n in range(visitors):
        who = f"v{uuid.uuid4().hex}"
        kinds = ["page_view", "lead_form"] if n < converted else ["page_view"]
        events += [
            NewEvent(
                id=f"site:{uuid.uuid4().hex}",
                type=kind,
                source="site",
                occurred_at=now,
                page=Page(url=f"http://testserver/p/{SLUG}", path=f"/p/{SLUG}"),
                properties={"visitor_id": who, "variant": arm},
            )
            for kind in kinds
        ]
    backends.signals.store_events(events)


def arms(response: TestResponse) -> dict[str, tuple[int, int, float, float]]:
    body = response.get_json()["experiment"]
    return {
        a["arm"]: (a["visitors"], a["conversions"], a["rate"], a["share"]) for a in body["arms"]
    }


def arm_of(response: TestResponse) -> str | None:
    found = re.search(r'data-variant="([^"]+)"', response.text)
    return found[1] if found else None


def test_the_standing_counts_each_arm_from_the_page_stats_by_variant(
    client: FlaskClient, backends: Backends
) -> None:
    page_with_variant(client, {"shares": {"control": 50, "b": 50}})
    traffic(backends, "control", visitors=3, converted=1)
    traffic(backends, "b", visitors=2, converted=2)

    response = client.get(EXPERIMENT, headers=AUTH)

    assert response.status_code == 200
    body = response.get_json()["experiment"]
    assert (body["allocation"], body["status"], body["winner"]) == ("fixed", "running", None)
    assert body["stop_rule"] == {"on": False, "probability": 0.999, "min_conversions": 100}
    assert arms(response) == {"control": (3, 1, 1 / 3, 0.5), "b": (2, 2, 1.0, 0.5)}
    control, b = body["arms"]
    assert 0 < control["interval"][0] < 1 / 3 < control["interval"][1] < 1
    assert b["probability_best"] > control["probability_best"]
    assert control["probability_best"] + b["probability_best"] == pytest.approx(1.0)


def test_an_adaptive_allocation_sends_new_visitors_mostly_to_the_arm_that_converts(
    client: FlaskClient, backends: Backends, app: Flask
) -> None:
    page_with_variant(client, {"mode": "adaptive"})
    traffic(backends, "control", visitors=200, converted=2)
    traffic(backends, "b", visitors=200, converted=30)

    standing = client.get(EXPERIMENT, headers=AUTH)
    served = [arm_of(app.test_client().get(f"/p/{SLUG}")) for _ in range(60)]

    body = standing.get_json()["experiment"]
    assert (body["allocation"], body["status"]) == ("adaptive", "running")
    assert body["recomputed_at"] is not None
    # 2/200 against 30/200: b is best with probability ~1, so it gets all but control's floor.
    assert arms(standing)["b"][3] == pytest.approx(0.9, abs=0.001)
    assert arms(standing)["control"][3] == pytest.approx(0.1, abs=0.001)
    # 60 visitors at 0.9: at least 45 on b fails with probability under 1 in 1,000.
    assert served.count("b") >= 45


def test_ending_with_a_variant_makes_it_the_page_and_every_visitor_gets_it(
    client: FlaskClient, app: Flask
) -> None:
    page_with_variant(client, {"shares": {"control": 50, "b": 50}})

    ended = client.post(f"{EXPERIMENT}/end", json={"winner": "b"}, headers=AUTH)
    again = client.post(f"{EXPERIMENT}/end", json={"winner": "b"}, headers=AUTH)

    assert ended.status_code == 200
    body = ended.get_json()["experiment"]
    assert (body["status"], body["winner"], body["ended_by"]) == ("ended", "b", "api")
    assert again.get_json()["experiment"]["ended_at"] == body["ended_at"]
    page = client.get(f"{PAGES}/{SLUG}", headers=AUTH).get_json()["page"]
    assert (page["version"], page["title"]) == (2, B_TITLE)
    versions = client.get(f"{PAGES}/{SLUG}/versions", headers=AUTH).get_json()["versions"]
    assert [v["version"] for v in versions] == [2, 1]
    visit = app.test_client().get(f"/p/{SLUG}")
    assert B_TITLE in visit.text
    assert "Set-Cookie" not in visit.headers
    assert {a: s for a, (_, _, _, s) in arms(ended).items()} == {"control": 1.0, "b": 0.0}


def test_ending_with_an_unknown_arm_or_after_another_winner_is_refused(
    client: FlaskClient,
) -> None:
    page_with_variant(client, {"shares": {"control": 50, "b": 50}})

    unknown = client.post(f"{EXPERIMENT}/end", json={"winner": "z"}, headers=AUTH)
    missing = client.post(f"{EXPERIMENT}/end", json={}, headers=AUTH)
    client.post(f"{EXPERIMENT}/end", json={"winner": "control"}, headers=AUTH)
    other = client.post(f"{EXPERIMENT}/end", json={"winner": "b"}, headers=AUTH)
    no_page = client.post(f"{PAGES}/nope/experiment/end", json={"winner": "b"}, headers=AUTH)

    assert unknown.status_code == 422
    assert [(i["field"], i["code"]) for i in unknown.get_json()["issues"]] == [
        ("winner", "unknown_arm")
    ]
    assert missing.status_code == 422
    assert [i["field"] for i in missing.get_json()["issues"]] == ["winner"]
    assert other.status_code == 409
    assert other.get_json()["error"] == "experiment_ended"
    assert no_page.status_code == 404
    page = client.get(f"{PAGES}/{SLUG}", headers=AUTH).get_json()["page"]
    assert page["version"] == 1


def test_an_adaptive_allocation_takes_no_shares(client: FlaskClient) -> None:
    assert client.post(PAGES, json=page_body(SLUG), headers=AUTH).status_code == 201

    put = client.put(
        f"{PAGES}/{SLUG}/allocation",
        json={"mode": "adaptive", "shares": {"control": 100}},
        headers=AUTH,
    )

    assert put.status_code == 422
    assert [(i["field"], i["code"]) for i in put.get_json()["issues"]] == [
        ("shares", "not_allowed")
    ]


def test_with_the_stop_rule_on_a_clear_winner_ends_the_experiment_and_becomes_the_page(
    settings: Settings, backends: Backends
) -> None:
    stopping = settings.model_copy(update={"experiment_auto_stop": True})
    client = create_app(app_config(stopping), backends).test_client()
    page_with_variant(client, {"mode": "adaptive"})
    traffic(backends, "control", visitors=3_000, converted=100)
    traffic(backends, "b", visitors=3_000, converted=200)

    response = client.get(EXPERIMENT, headers=AUTH)

    body = response.get_json()["experiment"]
    assert (body["status"], body["winner"], body["ended_by"]) == ("ended", "b", "stop_rule")
    assert body["stop_rule"]["on"] is True
    page = client.get(f"{PAGES}/{SLUG}", headers=AUTH).get_json()["page"]
    assert (page["version"], page["title"]) == (2, B_TITLE)
    versions = client.get(f"{PAGES}/{SLUG}/versions", headers=AUTH).get_json()["versions"]
    assert versions[0]["key_id"] == "stop-rule"


def test_a_partner_ends_its_own_pages_experiment_and_another_partner_sees_no_such_page(
    lane_client: FlaskClient, lanes: Lanes
) -> None:
    """On SQLite and on the Firestore emulator: the page, variant and experiment stores."""
    assert lane_client.post(PAGES, json=page_body(SLUG), headers=lanes.a).status_code == 201
    variant = {"id": "b", "page": page_body(SLUG, title=B_TITLE)}
    created = lane_client.post(f"{PAGES}/{SLUG}/variants", json=variant, headers=lanes.a)
    assert created.status_code == 201
    adaptive = {"mode": "adaptive"}
    put = lane_client.put(f"{PAGES}/{SLUG}/allocation", json=adaptive, headers=lanes.a)
    assert put.status_code == 200

    theirs = lane_client.post(f"{EXPERIMENT}/end", json={"winner": "b"}, headers=lanes.b)
    peek = lane_client.get(EXPERIMENT, headers=lanes.b)
    running = lane_client.get(EXPERIMENT, headers=lanes.a)
    ended = lane_client.post(f"{EXPERIMENT}/end", json={"winner": "b"}, headers=lanes.a)
    after = lane_client.get(EXPERIMENT, headers=lanes.a)

    assert (theirs.status_code, peek.status_code) == (404, 404)
    body = running.get_json()["experiment"]
    assert (body["allocation"], body["status"]) == ("adaptive", "running")
    # No conversions yet: each arm is best half the time, within the Monte Carlo's spread.
    assert [a["share"] for a in body["arms"]] == pytest.approx([0.5, 0.5], abs=0.03)
    assert ended.get_json()["experiment"]["winner"] == "b"
    assert after.get_json()["experiment"]["status"] == "ended"
    page = lane_client.get(f"{PAGES}/{SLUG}", headers=lanes.a).get_json()["page"]
    assert (page["version"], page["title"]) == (2, B_TITLE)
