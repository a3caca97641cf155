"""/p/{slug} with an experiment: each visitor one arm, the same on every visit, kept by a
random assignment id; GPC, DNT and missing consent get the control with no cookie; no shared
cache keeps one visitor's answer."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from api.app import create_app
from backends.bundle import Backends
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from tests.api.content_client import AUTH, PAGES, page_body

SLUG = "growth-audit"
VARIANT_TITLE = "Where your pipeline leaks"


def arm_of(response: TestResponse) -> str | None:
    found = re.search(r'data-variant="([^"]+)"', response.text)
    return found[1] if found else None


def start_experiment(client: FlaskClient, shares: dict[str, Any]) -> None:
    assert client.post(PAGES, json=page_body(SLUG), headers=AUTH).status_code == 201
    variant = page_body(SLUG, title=VARIANT_TITLE)
    created = client.post(f"{PAGES}/{SLUG}/variants", json={"page": variant}, headers=AUTH)
    assert created.status_code == 201
    put = client.put(f"{PAGES}/{SLUG}/allocation", json={"shares": shares}, headers=AUTH)
    assert put.status_code == 200


@pytest.fixture
def experiment(client: FlaskClient) -> FlaskClient:
    start_experiment(client, {"control": 50, "b": 50})
    return client


def test_a_visitor_gets_an_assignment_cookie_and_the_same_arm_on_every_visit(
    experiment: FlaskClient, app: Flask
) -> None:
    """Variants: a first visit sets a random assignment id and the arm it got; later visits
    keep the arm."""
    visitor = app.test_client()

    first = visitor.get(f"/p/{SLUG}")
    later = [arm_of(visitor.get(f"/p/{SLUG}")) for _ in range(5)]

    cookie = first.headers["Set-Cookie"]
    assert re.fullmatch(
        r"fd_aid=[A-Za-z0-9_-]{22}\.(control|b); Max-Age=15552000; Path=/p/growth-audit; "
        r"SameSite=Lax; HttpOnly",
        cookie,
    )
    assert arm_of(first) in ("control", "b")
    assert later == [arm_of(first)] * 5
    assert first.headers["Cache-Control"] == "private, no-cache"
    assert first.headers["Vary"] == "Cookie, Sec-GPC, DNT"


def test_the_arm_served_is_its_content_and_the_lead_form_names_it(
    client: FlaskClient, app: Flask
) -> None:
    """Variants: the served HTML carries the arm, to the beacon and in the no-JS lead form."""
    start_experiment(client, {"control": 0, "b": 100})
    body = page_body(SLUG, title=VARIANT_TITLE)
    body["blocks"].append({"type": "leadform"})
    client.patch(f"{PAGES}/{SLUG}/variants/b", json={"page": body}, headers=AUTH)

    served = app.test_client().get(f"/p/{SLUG}")

    assert arm_of(served) == "b"
    assert f"<title>{VARIANT_TITLE}" in served.text
    assert '<input type="hidden" name="variant" value="b">' in served.text


@pytest.mark.parametrize("signal", [{"Sec-GPC": "1"}, {"DNT": "1"}])
def test_a_visitor_sending_gpc_or_dnt_gets_the_control_and_no_cookie(
    client: FlaskClient, app: Flask, signal: dict[str, str]
) -> None:
    """Variants: Global Privacy Control or Do Not Track: the control, nothing stored."""
    start_experiment(client, {"control": 0, "b": 100})

    served = app.test_client().get(f"/p/{SLUG}", headers=signal)

    assert arm_of(served) == "control"
    assert "Set-Cookie" not in served.headers
    assert served.headers["Cache-Control"] == "private, no-cache"


def test_where_consent_is_required_the_server_sets_no_cookie_and_serves_the_control(
    settings: Settings, backends: Backends
) -> None:
    """Variants: BEACON_CONSENT=required: no id until the visitor says yes (the beacon sets
    it then); a visitor who has one gets its arm, recorded in it (not HttpOnly, so the
    beacon can still remove it)."""
    app = create_app(dataclasses.replace(app_config(settings), beacon_consent=True), backends)
    start_experiment(app.test_client(), {"control": 0, "b": 100})
    visitor = app.test_client()

    before = visitor.get(f"/p/{SLUG}")
    visitor.set_cookie("fd_aid", "A" * 22, path=f"/p/{SLUG}")
    after = visitor.get(f"/p/{SLUG}")

    assert (arm_of(before), arm_of(after)) == ("control", "b")
    assert "Set-Cookie" not in before.headers
    assert after.headers["Set-Cookie"] == (
        f"fd_aid={'A' * 22}.b; Max-Age=15552000; Path=/p/{SLUG}; SameSite=Lax"
    )


def test_a_page_without_an_experiment_is_served_as_before(client: FlaskClient, app: Flask) -> None:
    """Variants: variants without a share change nothing: shared caches, no cookie, no arm."""
    client.post(PAGES, json=page_body(SLUG), headers=AUTH)
    variant = page_body(SLUG, title=VARIANT_TITLE)
    client.post(f"{PAGES}/{SLUG}/variants", json={"page": variant}, headers=AUTH)

    served = app.test_client().get(f"/p/{SLUG}")

    assert "Set-Cookie" not in served.headers
    assert served.headers["Cache-Control"] == "public, max-age=60, s-maxage=300"
    assert arm_of(served) is None


def test_a_deleted_variants_share_goes_to_the_control(experiment: FlaskClient, app: Flask) -> None:
    """Allocation: a variant deleted while it has a share leaves its visitors the control."""
    experiment.delete(f"{PAGES}/{SLUG}/variants/b", headers=AUTH)

    served = app.test_client().get(f"/p/{SLUG}")

    assert "Set-Cookie" not in served.headers
    assert arm_of(served) is None
    assert VARIANT_TITLE not in served.text
