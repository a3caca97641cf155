"""A returning visitor of /p/{slug} keeps the arm first served when the shares move (a new
fixed allocation, an adaptive recompute), while new visitors follow the new shares: the
assignment cookie records the arm (content-api.md "What a visitor sees")."""

from __future__ import annotations

import dataclasses
import re
import secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from api.app import create_app
from backends.bundle import Backends
from domain.variants import pick_arm
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from tests.api.content_client import AUTH, PAGES, page_body
from tests.api.test_experiments import traffic
from tests.clock import ManualClock
from tests.polling import wait_for

pytestmark = pytest.mark.spec("content.experiments")

SLUG = "growth-audit"
ALLOCATION = f"{PAGES}/{SLUG}/allocation"
START = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


def arm_of(response: TestResponse) -> str | None:
    found = re.search(r'data-variant="([^"]+)"', response.text)
    return found[1] if found else None


def placed_between(low: float, high: float) -> Callable[[str], bool]:
    """Whether an assignment id hashes to a point in [low, high) of this page's split."""

    def within(assignment_id: str) -> bool:
        below_low = pick_arm(assignment_id, slug=SLUG, shares=[("control", low), ("b", 1 - low)])
        below_high = pick_arm(assignment_id, slug=SLUG, shares=[("control", high), ("b", 1 - high)])
        return below_low == "b" and below_high == "control"

    return within


def returning_visitor(app: Flask, within: Callable[[str], bool]) -> tuple[FlaskClient, str]:
    """A fresh visitor whose new assignment id hashes within the given stretch, and its arm."""
    for _ in range(200):
        visitor = app.test_client()
        first = visitor.get(f"/p/{SLUG}")
        assignment_id = re.match(r"fd_aid=([^.;]+)", first.headers["Set-Cookie"])[1]  # type: ignore[index]
        if within(assignment_id):
            return visitor, str(arm_of(first))
    raise AssertionError("no visitor hashed within the stretch in 200 tries")


def new_visitor_arm(app: Flask, within: Callable[[str], bool]) -> str | None:
    """The arm served a visitor whose id (set by the beacon on a yes, no arm recorded yet)
    hashes within the given stretch: the arm today's shares give that place."""
    assignment_id = next(i for i in iter(lambda: secrets.token_urlsafe(16), "") if within(i))
    visitor = app.test_client()
    visitor.set_cookie("fd_aid", assignment_id, path=f"/p/{SLUG}")
    return arm_of(visitor.get(f"/p/{SLUG}"))


def page_with_variant(client: FlaskClient, allocation: dict[str, object]) -> None:
    assert client.post(PAGES, json=page_body(SLUG), headers=AUTH).status_code == 201
    variant = {"id": "b", "page": page_body(SLUG, title="Where your pipeline leaks")}
    assert client.post(f"{PAGES}/{SLUG}/variants", json=variant, headers=AUTH).status_code == 201
    assert client.put(ALLOCATION, json=allocation, headers=AUTH).status_code == 200


def test_a_returning_visitor_keeps_their_arm_when_fixed_shares_change(
    client: FlaskClient, app: Flask
) -> None:
    page_with_variant(client, {"shares": {"control": 50, "b": 50}})
    # Served b at 50/50 from a place in the split that 90/10 would give the control.
    visitor, first = returning_visitor(app, placed_between(0.55, 0.85))

    put = client.put(ALLOCATION, json={"shares": {"control": 90, "b": 10}}, headers=AUTH)
    # A new visitor placed where 50/50 gave b and 90/10 gives the control gets the control.
    wait_for(lambda: new_visitor_arm(app, placed_between(0.55, 0.85)) == "control", what="90/10")
    again = visitor.get(f"/p/{SLUG}")

    assert put.status_code == 200
    assert (first, arm_of(again)) == ("b", "b")
    assert "Set-Cookie" not in again.headers


def test_a_returning_visitor_keeps_their_arm_when_adaptive_shares_are_recomputed(
    settings: Settings, backends: Backends
) -> None:
    clock = ManualClock(START)
    timed = dataclasses.replace(backends, clock=clock)
    app = create_app(app_config(settings), timed)
    page_with_variant(app.test_client(), {"mode": "adaptive"})
    # No evidence yet: about 50/50. Served the control from a place that 10/90 gives b.
    visitor, first = returning_visitor(app, placed_between(0.15, 0.45))

    traffic(timed, "control", visitors=200, converted=2)
    traffic(timed, "b", visitors=200, converted=30)
    clock.now = START + timedelta(seconds=settings.experiment_recompute_seconds + 60)
    # A new visitor placed where 50/50 gave the control and 10/90 gives b gets b.
    wait_for(lambda: new_visitor_arm(app, placed_between(0.15, 0.45)) == "b", what="recompute")
    again = visitor.get(f"/p/{SLUG}")

    assert (first, arm_of(again)) == ("control", "control")
    assert "Set-Cookie" not in again.headers


def test_a_returning_visitor_whose_arm_is_gone_gets_an_arm_of_the_new_split(
    client: FlaskClient, app: Flask
) -> None:
    page_with_variant(client, {"shares": {"control": 50, "b": 50}})
    visitor, first = returning_visitor(app, placed_between(0.5, 1.0))

    client.put(ALLOCATION, json={"shares": {"control": 100}}, headers=AUTH)
    client.post(f"{PAGES}/{SLUG}/variants", json={"id": "c", "page": page_body(SLUG)}, headers=AUTH)
    client.put(ALLOCATION, json={"shares": {"control": 0, "c": 100}}, headers=AUTH)
    wait_for(lambda: arm_of(app.test_client().get(f"/p/{SLUG}")) == "c", what="c at 100")
    again = visitor.get(f"/p/{SLUG}")

    assert (first, arm_of(again)) == ("b", "c")
    assert re.match(r"fd_aid=[A-Za-z0-9_-]{22}\.c; ", again.headers["Set-Cookie"])
