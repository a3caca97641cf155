"""A variant's start (content-api.md "A variant's start"): before its `start_at` a variant gets
no traffic, its share going to the other arms; from it, it enters the allocation, read against
the clock by any process (a restart included); the time needs an offset."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime, timedelta

import pytest
from flask import Flask
from werkzeug.test import TestResponse

from api.app import create_app
from backends.bundle import Backends
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from tests.api.content_client import AUTH, PAGES, page_body
from tests.clock import ManualClock

pytestmark = pytest.mark.spec("content.variants")

SLUG = "growth-audit"
VARIANTS = f"{PAGES}/{SLUG}/variants"
START = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
AT = "2026-11-28T14:00:00+01:00"  # an hour after START


def arm_of(response: TestResponse) -> str | None:
    found = re.search(r'data-variant="([^"]+)"', response.text)
    return found[1] if found else None


def serving(settings: Settings, backends: Backends) -> Flask:
    return create_app(app_config(settings), backends)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def timed(backends: Backends, clock: ManualClock) -> Backends:
    return dataclasses.replace(backends, clock=clock)


def page_with_waiting_variant(app: Flask, shares: dict[str, int]) -> None:
    client = app.test_client()
    assert client.post(PAGES, json=page_body(SLUG), headers=AUTH).status_code == 201
    for variant_id in shares:
        if variant_id == "control":
            continue
        body = {"id": variant_id, "page": page_body(SLUG, title=f"Version {variant_id}")}
        if variant_id == "b":
            body["start_at"] = AT
        assert client.post(VARIANTS, json=body, headers=AUTH).status_code == 201
    put = client.put(f"{PAGES}/{SLUG}/allocation", json={"shares": shares}, headers=AUTH)
    assert put.status_code == 200


def test_a_variant_gets_no_visitors_before_its_start_and_its_share_from_then(
    settings: Settings, timed: Backends, clock: ManualClock
) -> None:
    app = serving(settings, timed)
    page_with_waiting_variant(app, {"control": 0, "b": 100})

    before = app.test_client().get(f"/p/{SLUG}")
    clock.now = START + timedelta(hours=1, seconds=1)
    # Another process (or this one restarted) reads the same start against the clock.
    after = serving(settings, timed).test_client().get(f"/p/{SLUG}")

    # Before the start b does not exist for visitors: no experiment, the page shared as ever.
    assert arm_of(before) is None
    assert "Set-Cookie" not in before.headers
    assert before.headers["Cache-Control"] == "public, max-age=60, s-maxage=300"
    assert arm_of(after) == "b"
    assert "Version b" in after.text


def test_a_waiting_variants_share_goes_to_the_other_arms_in_proportion(
    settings: Settings, timed: Backends
) -> None:
    app = serving(settings, timed)
    page_with_waiting_variant(app, {"control": 0, "b": 50, "c": 50})

    served = {arm_of(app.test_client().get(f"/p/{SLUG}")) for _ in range(20)}

    # b waits: c takes its share as well, so every visitor gets c (not the control).
    assert served == {"c"}


def test_the_experiment_read_gives_a_waiting_variant_no_share_until_its_start(
    settings: Settings, timed: Backends, clock: ManualClock
) -> None:
    app = serving(settings, timed)
    page_with_waiting_variant(app, {"control": 50, "b": 50})
    client = app.test_client()

    def shares() -> dict[str, float]:
        read = client.get(f"{PAGES}/{SLUG}/experiment", headers=AUTH).get_json()["experiment"]
        return {arm["arm"]: arm["share"] for arm in read["arms"]}

    before = shares()
    clock.now = START + timedelta(hours=1, seconds=1)
    after = shares()

    # The read says what /p/{slug} serves: before b's start every new visitor gets the control.
    assert before == {"control": 1.0, "b": 0.0}
    assert after == {"control": 0.5, "b": 0.5}


def test_the_start_is_read_back_set_and_cleared_by_a_patch(
    settings: Settings, timed: Backends
) -> None:
    app = serving(settings, timed)
    page_with_waiting_variant(app, {"control": 50, "b": 50})
    client = app.test_client()

    created = client.get(f"{VARIANTS}/b", headers=AUTH).get_json()["variant"]
    moved = client.patch(f"{VARIANTS}/b", json={"start_at": "2026-12-01T09:00:00Z"}, headers=AUTH)
    cleared = client.patch(f"{VARIANTS}/b", json={"start_at": None}, headers=AUTH)
    again = client.patch(f"{VARIANTS}/b", json={"start_at": None}, headers=AUTH)

    assert created["start_at"] == "2026-11-28T13:00:00Z"
    assert moved.get_json()["variant"]["start_at"] == "2026-12-01T09:00:00Z"
    assert (moved.get_json()["variant"]["version"], cleared.get_json()["variant"]["version"]) == (
        2,
        3,
    )
    assert cleared.get_json()["variant"]["start_at"] is None
    assert again.get_json()["variant"]["version"] == 3


@pytest.mark.parametrize("value", ["2026-12-01T09:00:00", "next monday", 1764579600])
def test_a_start_without_an_offset_or_unparseable_is_refused_naming_it(
    settings: Settings, timed: Backends, value: object
) -> None:
    app = serving(settings, timed)
    client = app.test_client()
    client.post(PAGES, json=page_body(SLUG), headers=AUTH)
    body = {"id": "b", "page": page_body(SLUG), "start_at": value}

    created = client.post(VARIANTS, json=body, headers=AUTH)
    client.post(VARIANTS, json={"id": "b", "page": page_body(SLUG)}, headers=AUTH)
    patched = client.patch(f"{VARIANTS}/b", json={"start_at": value}, headers=AUTH)

    for refused in (created, patched):
        assert refused.status_code == 422
        assert [i["field"] for i in refused.get_json()["issues"]] == ["start_at"]
    assert client.get(f"{VARIANTS}/b", headers=AUTH).get_json()["variant"]["version"] == 1
