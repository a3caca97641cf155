"""A page's funnel over HTTP: GET /api/public/content/pages/{slug}/stats (content-api.md
"A page's funnel")."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

from backends.bundle import Backends
from backends.embedded.queues import DurableQueue
from schemas.signals.events import NewEvent, Page
from tests.api.content_client import AUTH, PAGES, page_body
from tests.api.lanes import Lanes, lane_app, lane_backends, lane_client, lanes

__all__ = ["lane_app", "lane_backends", "lane_client", "lanes"]  # fixtures used below

COLLECT = "/api/public/v1/collect"
SITE = {"Origin": "http://testserver"}


def page_event(
    kind: str, slug: str, when: datetime, visitor: str | None = None, **properties: str
) -> NewEvent:
    props: dict[str, Any] = dict(properties)
    if visitor is not None:
        props["visitor_id"] = visitor
    return NewEvent(
        id=f"site:{uuid.uuid4().hex}",
        type=kind,  # type: ignore[arg-type]  # one of the page event types
        source="site",
        occurred_at=when,
        page=Page(url=f"http://testserver/p/{slug}", path=f"/p/{slug}"),
        properties=props,
    )


def create_page(client: FlaskClient, slug: str, headers: dict[str, str] = AUTH) -> None:
    assert client.post(PAGES, json=page_body(slug), headers=headers).status_code == 201


def stats(client: FlaskClient, slug: str, headers: dict[str, str] = AUTH, **query: Any) -> Any:
    return client.get(f"{PAGES}/{slug}/stats", query_string=query, headers=headers)


def visitor() -> str:
    return "v" + uuid.uuid4().hex


@pytest.mark.spec("content.page_stats")
def test_beacons_and_a_lead_form_on_a_page_make_its_funnel(
    client: FlaskClient, backends: Backends
) -> None:
    """Two visitors view the page (one twice), one clicks its button and sends its form."""
    create_page(client, "audit")
    ana, ben = visitor(), visitor()
    view = {"type": "page_view", "page": {"path": "/p/audit"}}
    for who in (ana, ana, ben):
        beacon = {**view, "id": uuid.uuid4().hex, "properties": {"visitor_id": who}}
        assert client.post(COLLECT, json=beacon, headers=SITE).status_code == 202
    click = {"type": "cta_click", "page": {"path": "/p/audit"}, "properties": {"visitor_id": ana}}
    assert client.post(COLLECT, json=click, headers=SITE).status_code == 202
    form = {"email": "ana@northbook.example", "page": "audit", "visitor_id": ana}
    assert client.post(COLLECT, data=form, headers=SITE).status_code == 303
    other = {**view, "page": {"path": "/p/other"}, "properties": {"visitor_id": ben}}
    assert client.post(COLLECT, json=other, headers=SITE).status_code == 202
    assert isinstance(backends.signal_queue, DurableQueue)
    assert backends.signal_queue.drain(timeout=10)

    response = stats(client, "audit")

    assert response.status_code == 200
    body = response.get_json()
    today = backends.clock().date()
    assert body == {
        "ok": True,
        "slug": "audit",
        "since": (today - timedelta(days=27)).isoformat(),
        "until": today.isoformat(),
        "days": 28,
        "by": None,
        "totals": {
            "page_views": 3,
            "unique_visitors": 2,
            "cta_clicks": 1,
            "lead_forms": 1,
            "conversion_rate": 0.5,
        },
        "rows": [],
    }


@pytest.mark.spec("content.page_stats")
def test_a_visitor_back_on_another_day_is_one_unique_visitor_of_the_range_and_one_of_each_day(
    client: FlaskClient, backends: Backends
) -> None:
    """Visitors per day count each day; across the range each visitor counts once, whatever
    order the events arrive in."""
    create_page(client, "audit")
    now = backends.clock()
    ana, ben = visitor(), visitor()
    two_days_ago, yesterday = now - timedelta(days=2), now - timedelta(days=1)
    backends.signals.store_events([page_event("page_view", "audit", now, ana)])
    backends.signals.store_events(
        [
            page_event("page_view", "audit", two_days_ago, ana),  # arrives after a later day
            page_event("page_view", "audit", yesterday, ben),
            page_event("lead_form", "audit", yesterday, ben),
        ]
    )

    by_day = stats(client, "audit", days=3, by="day").get_json()
    last_two = stats(client, "audit", days=2).get_json()

    assert [(r["key"], r["page_views"], r["unique_visitors"]) for r in by_day["rows"]] == [
        (two_days_ago.date().isoformat(), 1, 1),
        (yesterday.date().isoformat(), 1, 1),
        (now.date().isoformat(), 1, 1),
    ]
    assert by_day["totals"]["unique_visitors"] == 2
    assert by_day["totals"]["conversion_rate"] == 0.5
    assert (last_two["totals"]["page_views"], last_two["totals"]["unique_visitors"]) == (2, 2)


@pytest.mark.spec("content.page_stats")
def test_an_event_delivered_twice_counts_once(client: FlaskClient, backends: Backends) -> None:
    """The funnel is folded with the event's own idempotent write: a repeat adds nothing."""
    create_page(client, "audit")
    event = page_event("page_view", "audit", backends.clock(), visitor())

    backends.signals.store_events([event, event])
    backends.signals.store_events([event])

    totals = stats(client, "audit").get_json()["totals"]
    assert (totals["page_views"], totals["unique_visitors"]) == (1, 1)


@pytest.mark.spec("content.page_stats")
def test_by_variant_source_and_campaign_count_events_without_one_as_control_and_none(
    client: FlaskClient, backends: Backends
) -> None:
    """Events naming no variant are the control's; no utm field counts as `(none)`."""
    create_page(client, "audit")
    now = backends.clock()
    ana, ben, cy = visitor(), visitor(), visitor()
    backends.signals.store_events(
        [
            page_event("page_view", "audit", now, ana, variant="bold", utm_source="li"),
            page_event("lead_form", "audit", now, ana, variant="bold", utm_source="li"),
            page_event("page_view", "audit", now, ben, utm_campaign="q4"),
            page_event("page_view", "audit", now, cy, variant="bold", utm_campaign="q4"),
        ]
    )

    def rows(by: str) -> list[tuple[str, int, int, int, float | None]]:
        body = stats(client, "audit", by=by).get_json()
        return [
            (
                r["key"],
                r["page_views"],
                r["unique_visitors"],
                r["lead_forms"],
                r["conversion_rate"],
            )
            for r in body["rows"]
        ]

    assert rows("variant") == [("bold", 2, 2, 1, 0.5), ("control", 1, 1, 0, 0.0)]
    assert rows("source") == [("(none)", 2, 2, 0, 0.0), ("li", 1, 1, 1, 1.0)]
    assert rows("campaign") == [("q4", 2, 2, 0, 0.0), ("(none)", 1, 1, 1, 1.0)]


@pytest.mark.spec("content.page_stats")
def test_a_page_with_no_visitor_has_no_conversion_rate(client: FlaskClient) -> None:
    """Lead forms per unique visitor is undefined without a visitor: null, not 0."""
    create_page(client, "audit")

    totals = stats(client, "audit").get_json()["totals"]

    assert totals == {
        "page_views": 0,
        "unique_visitors": 0,
        "cta_clicks": 0,
        "lead_forms": 0,
        "conversion_rate": None,
    }


@pytest.mark.spec("content.page_stats")
def test_since_and_until_pick_the_days_counted(client: FlaskClient, backends: Backends) -> None:
    """since..until, both included (UTC days)."""
    create_page(client, "audit")
    now = backends.clock()
    backends.signals.store_events(
        [page_event("page_view", "audit", now - timedelta(days=n), visitor()) for n in range(5)]
    )
    since = (now - timedelta(days=3)).date().isoformat()
    until = (now - timedelta(days=1)).date().isoformat()

    body = stats(client, "audit", since=since, until=until).get_json()

    assert (body["since"], body["until"], body["days"]) == (since, until, 3)
    assert body["totals"]["page_views"] == 3


@pytest.mark.spec("content.page_stats")
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"window": "7"}, [("window", "unknown_parameter")]),
        ({"days": "0"}, [("days", "out_of_range")]),
        ({"days": "367"}, [("days", "out_of_range")]),
        ({"days": "x"}, [("days", "invalid_format")]),
        ({"by": "week"}, [("by", "invalid_format")]),
        (
            {"since": "2026-13-01", "until": "soon"},
            [("since", "invalid_format"), ("until", "invalid_format")],
        ),
        ({"days": "7", "since": "2026-01-01"}, [("days", "not_with_since")]),
        ({"since": "2026-01-05", "until": "2026-01-01"}, [("since", "after_until")]),
        ({"since": "2020-01-01", "until": "2026-01-01"}, [("since", "out_of_range")]),
    ],
)
def test_a_bad_query_is_400_naming_each_parameter(
    client: FlaskClient, query: dict[str, str], expected: list[tuple[str, str]]
) -> None:
    """Unknown parameters and bad values answer 400 invalid_query, as the other reads do."""
    create_page(client, "audit")

    response = stats(client, "audit", **query)

    assert response.status_code == 400
    body = response.get_json()
    assert body["error"] == "invalid_query"
    assert [(i["field"], i["code"]) for i in body["issues"]] == expected


@pytest.mark.spec("content.page_stats")
def test_another_partners_page_stats_are_404_and_a_content_admin_sees_every_page(
    lane_client: FlaskClient, lanes: Lanes
) -> None:
    """Partner lanes hold as on the page's other routes."""
    slug = f"a-{uuid.uuid4().hex[:8]}"
    create_page(lane_client, slug, lanes.a)

    own = stats(lane_client, slug, lanes.a)
    other = stats(lane_client, slug, lanes.b)
    nobody = stats(lane_client, f"n-{uuid.uuid4().hex[:8]}", lanes.b)
    admin = stats(lane_client, slug, lanes.admin)

    assert (own.status_code, admin.status_code) == (200, 200)
    assert (other.status_code, other.get_json()["error"]) == (404, "not_found")
    assert (nobody.status_code, nobody.get_json()["error"]) == (404, "not_found")
