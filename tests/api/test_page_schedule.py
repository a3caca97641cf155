"""Scheduled publishing on the Content API: `publish_at` and `unpublish_at` on POST and PATCH,
the `scheduled` status, and the internal route a page's schedule task calls when it comes due
(driven here by hand, on a clock the test moves; tests/api/test_page_schedule_queue.py lets the
real task queue call it)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from backends.bundle import Backends
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from services.deliveries import INTERNAL_TOKEN_HEADER
from tests.api.content_client import AUTH, PAGES, RecordingCdn, page_body
from tests.clock import ManualClock

pytestmark = pytest.mark.spec("content.schedule")

START = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
AT = "2026-11-28T14:00:00+01:00"  # an hour after START
LATER = "2026-11-28T15:00:00+01:00"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def cdn() -> RecordingCdn:
    return RecordingCdn()


@pytest.fixture
def timed(backends: Backends, clock: ManualClock, cdn: RecordingCdn) -> Backends:
    return dataclasses.replace(backends, clock=clock, cdn=cdn)


@pytest.fixture
def app(settings: Settings, timed: Backends) -> Flask:
    return create_app(app_config(settings), timed)


def _run_task(
    client: FlaskClient, backends: Backends, slug: str, action: str, at: str
) -> tuple[int, Any]:
    """POST the schedule task's body to the internal route, as the task queue does."""
    answer = client.post(
        f"/internal/pages/{slug}/schedule",
        json={"action": action, "at": at},
        headers={INTERNAL_TOKEN_HEADER: backends.delivery_options.internal_token},
    )
    return answer.status_code, answer.get_json()


def _page(client: FlaskClient, slug: str = "growth-audit") -> dict[str, Any]:
    page: dict[str, Any] = client.get(f"{PAGES}/{slug}", headers=AUTH).get_json()["page"]
    return page


def test_a_page_posted_with_publish_at_is_scheduled_and_not_served_until_then(
    client: FlaskClient,
) -> None:
    """Content API "Scheduled publishing": POST with publish_at stores a `scheduled` page."""
    created = client.post(PAGES, json=page_body(publish_at=AT), headers=AUTH)

    page = created.get_json()["page"]
    listed = client.get(PAGES, query_string={"status": "scheduled"}, headers=AUTH).get_json()
    assert created.status_code == 201
    assert (page["status"], page["is_published"]) == ("scheduled", False)
    assert page["publish_at"] == AT
    assert page["unpublish_at"] is None
    assert page["published_at"] is None
    assert page["preview_url"] is not None
    assert client.get("/p/growth-audit").status_code == 404
    assert [p["slug"] for p in listed["pages"]] == ["growth-audit"]


def test_the_task_publishes_the_page_through_the_gate_at_its_time_with_a_history_entry(
    client: FlaskClient, timed: Backends, clock: ManualClock, cdn: RecordingCdn
) -> None:
    """Content API "Scheduled publishing": at publish_at the page goes live as a publish does."""
    client.post(PAGES, json=page_body(publish_at=AT), headers=AUTH)
    cdn.paths.clear()
    clock.now = START + timedelta(hours=1, seconds=2)

    status, body = _run_task(client, timed, "growth-audit", "publish", AT)

    page = _page(client)
    history = client.get(f"{PAGES}/growth-audit/versions", headers=AUTH).get_json()
    assert (status, body["status"]) == (200, "published")
    assert (page["status"], page["is_published"], page["version"]) == ("published", True, 2)
    assert page["publish_at"] is None
    assert page["published_at"] == "2026-11-28T13:00:02Z"
    assert history["versions"][0]["source"] == "schedule"
    assert history["versions"][0]["partner"] == page["partner"]
    assert cdn.paths == ["/p/growth-audit"]
    assert client.get("/p/growth-audit").status_code == 200


def test_a_task_run_twice_or_for_a_replaced_time_changes_nothing(
    client: FlaskClient, timed: Backends, clock: ManualClock
) -> None:
    """Content API "Scheduled publishing": rescheduling replaces the time; stale tasks no-op."""
    client.post(PAGES, json=page_body(publish_at=AT), headers=AUTH)
    moved = client.patch(f"{PAGES}/growth-audit", json={"publish_at": LATER}, headers=AUTH)
    clock.now = START + timedelta(hours=1, minutes=1)

    stale = _run_task(client, timed, "growth-audit", "publish", AT)
    still = _page(client)
    clock.now = START + timedelta(hours=2)
    due = _run_task(client, timed, "growth-audit", "publish", LATER)
    again = _run_task(client, timed, "growth-audit", "publish", LATER)

    assert moved.status_code == 200
    assert stale == (200, {"ok": True, "status": "skipped"})
    assert (still["status"], still["version"]) == ("scheduled", 2)
    assert due == (200, {"ok": True, "status": "published"})
    assert again == (200, {"ok": True, "status": "skipped"})
    assert _page(client)["version"] == 3


def test_a_task_that_comes_before_its_time_answers_409_so_the_queue_runs_it_again(
    client: FlaskClient, timed: Backends
) -> None:
    """Content API "Scheduled publishing": the page never goes live before publish_at."""
    client.post(PAGES, json=page_body(publish_at=AT), headers=AUTH)

    status, body = _run_task(client, timed, "growth-audit", "publish", AT)

    assert (status, body["error"]) == (409, "conflict")
    assert _page(client)["status"] == "scheduled"


def test_unpublish_at_takes_a_live_page_down_at_its_time(
    client: FlaskClient, timed: Backends, clock: ManualClock
) -> None:
    """Content API "Scheduled publishing": at unpublish_at the page comes down as DELETE does."""
    posted = client.post(PAGES, json=page_body(unpublish_at=AT), headers=AUTH).get_json()["page"]
    clock.now = START + timedelta(hours=1)

    status, body = _run_task(client, timed, "growth-audit", "unpublish", AT)

    page = _page(client)
    assert (posted["status"], posted["unpublish_at"]) == ("published", AT)
    assert (status, body["status"]) == (200, "unpublished")
    assert (page["status"], page["is_published"], page["unpublish_at"]) == (
        "unpublished",
        False,
        None,
    )
    assert client.get("/p/growth-audit").status_code == 404


def test_a_scheduled_page_with_both_times_goes_live_then_comes_down(
    client: FlaskClient, timed: Backends, clock: ManualClock
) -> None:
    """Content API "Scheduled publishing": publish_at, then unpublish_at, on one page."""
    client.post(PAGES, json=page_body(publish_at=AT, unpublish_at=LATER), headers=AUTH)
    clock.now = START + timedelta(hours=1)
    _run_task(client, timed, "growth-audit", "publish", AT)
    live = _page(client)
    clock.now = START + timedelta(hours=2)

    _run_task(client, timed, "growth-audit", "unpublish", LATER)

    assert (live["status"], live["unpublish_at"]) == ("published", LATER)
    assert _page(client)["status"] == "unpublished"


@pytest.mark.parametrize(
    ("fields", "field", "code"),
    [
        ({"publish_at": "2026-11-28T11:59:00Z"}, "publish_at", "in_the_past"),
        ({"publish_at": "2026-11-28T14:00:00"}, "publish_at", "timezone_aware"),
        ({"publish_at": 1_800_000_000}, "publish_at", "invalid_type"),
        ({"publish_at": "tomorrow"}, "publish_at", "invalid_type"),
        ({"publish_at": AT, "unpublish_at": AT}, "unpublish_at", "before_publish_at"),
        ({"publish_at": AT, "is_published": True}, "publish_at", "conflicts_with_is_published"),
        ({"unpublish_at": AT, "is_published": False}, "unpublish_at", "not_live"),
        ({"unpublish_at": "2026-11-28T11:00:00Z"}, "unpublish_at", "in_the_past"),
    ],
)
def test_a_schedule_that_cannot_be_kept_is_refused_422_naming_the_field(
    client: FlaskClient, fields: dict[str, Any], field: str, code: str
) -> None:
    """Content API "Scheduled publishing": times in the future, with an offset, in order."""
    answer = client.post(PAGES, json=page_body(**fields), headers=AUTH)

    body = answer.get_json()
    assert answer.status_code == 422
    assert body["error"] == "invalid_payload"
    assert (field, code) in {(i["field"], i["code"]) for i in body["issues"]}
    assert client.get(f"{PAGES}/growth-audit", headers=AUTH).status_code == 404


def test_patch_schedules_a_live_page_only_with_is_published_false(client: FlaskClient) -> None:
    """Content API "Scheduled publishing": a live page is not silently taken down."""
    client.post(PAGES, json=page_body(), headers=AUTH)

    refused = client.patch(f"{PAGES}/growth-audit", json={"publish_at": AT}, headers=AUTH)
    taken = client.patch(
        f"{PAGES}/growth-audit", json={"publish_at": AT, "is_published": False}, headers=AUTH
    )

    assert refused.status_code == 422
    assert [(i["field"], i["code"]) for i in refused.get_json()["issues"]] == [
        ("publish_at", "conflicts_with_is_published")
    ]
    assert taken.get_json()["page"]["status"] == "scheduled"
    assert client.get("/p/growth-audit").status_code == 404


def test_null_clears_a_schedule_and_the_page_is_a_draft_again(client: FlaskClient) -> None:
    """Content API "Scheduled publishing": PATCH `publish_at: null` cancels it."""
    client.post(PAGES, json=page_body(publish_at=AT), headers=AUTH)

    cleared = client.patch(f"{PAGES}/growth-audit", json={"publish_at": None}, headers=AUTH)

    page = cleared.get_json()["page"]
    assert (page["status"], page["publish_at"], page["is_published"]) == ("draft", None, False)


def test_publishing_a_scheduled_page_by_hand_makes_it_live_now_and_its_task_does_nothing(
    client: FlaskClient, timed: Backends, clock: ManualClock
) -> None:
    """Content API "Scheduled publishing": `is_published: true` publishes at once."""
    client.post(PAGES, json=page_body(publish_at=AT), headers=AUTH)

    now = client.patch(f"{PAGES}/growth-audit", json={"is_published": True}, headers=AUTH)
    clock.now = START + timedelta(hours=1)
    task = _run_task(client, timed, "growth-audit", "publish", AT)

    page = now.get_json()["page"]
    assert (page["status"], page["publish_at"], page["version"]) == ("published", None, 2)
    assert task == (200, {"ok": True, "status": "skipped"})
    assert _page(client)["version"] == 2


def test_delete_cancels_a_schedule(
    client: FlaskClient, timed: Backends, clock: ManualClock
) -> None:
    """Content API "Scheduled publishing": DELETE takes a scheduled page off and keeps it off."""
    client.post(PAGES, json=page_body(publish_at=AT), headers=AUTH)

    deleted = client.delete(f"{PAGES}/growth-audit", headers=AUTH).get_json()["page"]
    clock.now = START + timedelta(hours=1)
    task = _run_task(client, timed, "growth-audit", "publish", AT)

    assert (deleted["status"], deleted["publish_at"]) == ("unpublished", None)
    assert task == (200, {"ok": True, "status": "skipped"})


def test_a_retried_schedule_write_answers_as_the_first_did(
    client: FlaskClient, clock: ManualClock
) -> None:
    """Content API "Scheduled publishing": a repeated time is not judged again."""
    client.post(PAGES, json=page_body(publish_at=AT), headers=AUTH)
    clock.now = START + timedelta(minutes=30)

    again = client.patch(f"{PAGES}/growth-audit", json={"publish_at": AT}, headers=AUTH)

    assert again.status_code == 200
    assert again.get_json()["page"]["version"] == 1


def test_the_schedule_route_refuses_calls_without_the_internal_token(
    client: FlaskClient,
) -> None:
    """Content API "Scheduled publishing": only the task queue runs a schedule."""
    client.post(PAGES, json=page_body(publish_at=AT), headers=AUTH)
    body = {"action": "publish", "at": AT}

    missing = client.post("/internal/pages/growth-audit/schedule", json=body)
    wrong = client.post(
        "/internal/pages/growth-audit/schedule",
        json=body,
        headers={INTERNAL_TOKEN_HEADER: "not-the-token"},
    )

    assert (missing.status_code, wrong.status_code) == (401, 401)
    assert _page(client)["status"] == "scheduled"


def test_a_restored_scheduled_version_comes_back_a_draft_without_its_schedule(
    client: FlaskClient,
) -> None:
    """Content API "Scheduled publishing": a restore never brings back a past schedule."""
    client.post(PAGES, json=page_body(publish_at=AT), headers=AUTH)
    client.patch(f"{PAGES}/growth-audit", json={"publish_at": None}, headers=AUTH)

    restored = client.post(f"{PAGES}/growth-audit/versions/1/restore", headers=AUTH)

    page = restored.get_json()["page"]
    assert (page["status"], page["publish_at"], page["version"]) == ("draft", None, 3)
