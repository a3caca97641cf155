"""Partners stay in their own lane, over HTTP on SQLite and on the Firestore emulator.

Partner B's content key can neither read, list, change, unpublish, restore nor take over
partner A's page, job, idempotent replay or webhook endpoint, and nothing it tried leaves a
trace on A's data; a `content_admin` key reads and changes every partner's pages.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from flask.testing import FlaskClient

from backends.bundle import Backends
from backends.ports import Delivery
from tests.api.content_client import page_body
from tests.api.lanes import PAGES, Lanes, lane_app, lane_backends, lane_client, lanes

__all__ = ["lane_app", "lane_backends", "lane_client", "lanes"]  # fixtures used below

pytestmark = pytest.mark.spec("content.ownership")

GENERATE = f"{PAGES}/generate"
HOOKS = "/api/public/v1/signals/webhooks"


def brief(slug: str) -> dict[str, Any]:
    return {
        "slug": slug,
        "topic": "A two-week audit of the revenue funnel",
        "icp": "heads of growth at B2B SaaS companies",
        "generate_image": False,
    }


def snapshot(client: FlaskClient, lanes: Lanes, slug: str) -> tuple[Any, Any]:
    """A's page and its history as A reads them."""
    page = client.get(f"{PAGES}/{slug}", headers=lanes.a).get_json()
    history = client.get(f"{PAGES}/{slug}/versions", headers=lanes.a).get_json()
    return page, history


def test_another_partners_page_is_not_found_and_its_slug_is_taken(
    lane_client: FlaskClient, lanes: Lanes
) -> None:
    """B gets 404 on A's page, never sees it listed, and 409 slug_taken on its slug."""
    lane_client.post(PAGES, json=page_body("acme-audit"), headers=lanes.a)
    before = snapshot(lane_client, lanes, "acme-audit")

    read = lane_client.get(f"{PAGES}/acme-audit", headers=lanes.b)
    listed = lane_client.get(PAGES, headers=lanes.b)
    changed = lane_client.patch(f"{PAGES}/acme-audit", json={"title": "Mine"}, headers=lanes.b)
    unpublished = lane_client.delete(f"{PAGES}/acme-audit", headers=lanes.b)
    history = lane_client.get(f"{PAGES}/acme-audit/versions", headers=lanes.b)
    version = lane_client.get(f"{PAGES}/acme-audit/versions/1", headers=lanes.b)
    restored = lane_client.post(f"{PAGES}/acme-audit/versions/1/restore", headers=lanes.b)
    taken = lane_client.post(PAGES, json=page_body("acme-audit", title="Mine"), headers=lanes.b)
    generated = lane_client.post(GENERATE, json=brief("acme-audit"), headers=lanes.b)

    for answer in (read, changed, unpublished, history, version, restored):
        assert (answer.status_code, answer.get_json()["error"]) == (404, "not_found")
    assert listed.status_code == 200
    assert listed.get_json()["pages"] == []
    for answer in (taken, generated):
        assert answer.status_code == 409
        assert answer.get_json()["error"] == "slug_taken"
        assert [(i["field"], i["code"]) for i in answer.get_json()["issues"]] == [
            ("slug", "slug_taken")
        ]
    assert snapshot(lane_client, lanes, "acme-audit") == before
    assert len(before[1]["versions"]) == 1
    assert lane_client.get("/p/acme-audit").status_code == 200


def test_a_refused_generate_brief_queues_no_job(
    lane_client: FlaskClient, lanes: Lanes, lane_backends: Backends
) -> None:
    """A brief for another partner's slug is refused at once, before any job."""
    lane_client.post(PAGES, json=page_body("acme-audit"), headers=lanes.a)

    answer = lane_client.post(
        GENERATE, json=brief("acme-audit"), headers={**lanes.b, "Prefer": "respond-async"}
    )

    assert answer.status_code == 409
    assert "job" not in answer.get_json()
    assert "Location" not in answer.headers


def test_another_partners_job_and_idempotent_replay_stay_theirs(
    lane_client: FlaskClient, lanes: Lanes
) -> None:
    """B cannot read A's job, nor get A's stored answer by reusing its Idempotency-Key."""
    key = {"Idempotency-Key": "launch-1"}
    first = lane_client.post(GENERATE, json=brief("acme-launch"), headers={**lanes.a, **key})
    job_id = first.get_json()["job"]["id"]
    before = lane_client.get(f"/api/public/content/jobs/{job_id}", headers=lanes.a).get_json()

    job = lane_client.get(f"/api/public/content/jobs/{job_id}", headers=lanes.b)
    replay = lane_client.post(GENERATE, json=brief("acme-launch"), headers={**lanes.b, **key})
    again = lane_client.post(GENERATE, json=brief("acme-launch"), headers={**lanes.a, **key})

    assert first.status_code == 201
    assert (job.status_code, job.get_json()["error"]) == (404, "not_found")
    assert replay.status_code == 409
    assert replay.get_json()["error"] == "slug_taken"
    assert "Idempotent-Replayed" not in replay.headers
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["job"]["id"] == job_id
    after = lane_client.get(f"/api/public/content/jobs/{job_id}", headers=lanes.a).get_json()
    assert after == before
    assert after["page"]["version"] == 1


def test_another_partners_webhook_endpoint_and_deliveries_stay_theirs(
    lane_client: FlaskClient, lanes: Lanes, lane_backends: Backends
) -> None:
    """B cannot see, rotate, delete, list deliveries of or replay A's endpoint."""
    created = lane_client.post(
        HOOKS, json={"url": "https://hooks.example.com/in"}, headers=lanes.a_signals
    ).get_json()
    endpoint_id = created["endpoint"]["id"]
    now = datetime.now(UTC)
    lane_backends.webhooks.add_delivery(
        Delivery(
            delivery_id="msg_lanes_1",
            endpoint_id=endpoint_id,
            event_id="site:lanes-1",
            event_type="book_call",
            payload='{"type":"signal.book_call"}',
            status="failed",
            created_at=now,
            next_attempt_at=now,
        )
    )
    before = lane_backends.webhooks.get_endpoint(endpoint_id)

    listed = lane_client.get(HOOKS, headers=lanes.b_signals)
    rotated = lane_client.post(f"{HOOKS}/{endpoint_id}/rotate", headers=lanes.b_signals)
    deliveries = lane_client.get(f"{HOOKS}/{endpoint_id}/deliveries", headers=lanes.b_signals)
    replayed = lane_client.post(f"{HOOKS}/deliveries/msg_lanes_1/replay", headers=lanes.b_signals)
    deleted = lane_client.delete(f"{HOOKS}/{endpoint_id}", headers=lanes.b_signals)

    assert listed.get_json()["endpoints"] == []
    for answer in (rotated, deliveries, replayed, deleted):
        assert (answer.status_code, answer.get_json()["error"]) == (404, "not_found")
    assert lane_backends.webhooks.get_endpoint(endpoint_id) == before
    delivery = lane_backends.webhooks.get_delivery("msg_lanes_1")
    assert delivery is not None
    assert (delivery.status, delivery.replays) == ("failed", 0)
    own = lane_client.get(f"{HOOKS}/{endpoint_id}/deliveries", headers=lanes.a_signals)
    assert [d["id"] for d in own.get_json()["deliveries"]] == ["msg_lanes_1"]


def test_content_admin_reads_and_changes_every_partners_pages(
    lane_client: FlaskClient, lanes: Lanes
) -> None:
    """A content_admin key lists, reads, changes and unpublishes any page; the owner
    keeps the page and sees who changed it."""
    lane_client.post(PAGES, json=page_body("acme-audit"), headers=lanes.a)
    lane_client.post(PAGES, json=page_body("bravo-audit"), headers=lanes.b)
    job = lane_client.post(GENERATE, json=brief("acme-launch"), headers=lanes.a).get_json()

    listed = lane_client.get(PAGES, headers=lanes.admin).get_json()
    bravo_only = lane_client.get(f"{PAGES}?partner=bravo", headers=lanes.admin).get_json()
    read = lane_client.get(f"{PAGES}/bravo-audit", headers=lanes.admin)
    patched = lane_client.patch(
        f"{PAGES}/acme-audit", json={"title": "Checked by the team"}, headers=lanes.admin
    )
    unpublished = lane_client.delete(f"{PAGES}/bravo-audit", headers=lanes.admin)
    admin_job = lane_client.get(f"/api/public/content/jobs/{job['job']['id']}", headers=lanes.admin)

    assert {p["slug"]: p["partner"] for p in listed["pages"]} == {
        "acme-audit": "acme",
        "acme-launch": "acme",
        "bravo-audit": "bravo",
    }
    assert [p["slug"] for p in bravo_only["pages"]] == ["bravo-audit"]
    assert read.status_code == 200
    assert patched.status_code == 200
    assert unpublished.get_json()["page"]["status"] == "unpublished"
    assert admin_job.status_code == 200
    own = lane_client.get(f"{PAGES}/acme-audit", headers=lanes.a).get_json()["page"]
    assert own["title"] == "Checked by the team"
    versions = lane_client.get(f"{PAGES}/acme-audit/versions", headers=lanes.a).get_json()
    assert [(v["version"], v["partner"], v["source"]) for v in versions["versions"]] == [
        (2, "ops", "api"),
        (1, "acme", "api"),
    ]
    own_list = lane_client.get(PAGES, headers=lanes.a).get_json()["pages"]
    assert [p["slug"] for p in own_list] == ["acme-audit", "acme-launch"]  # newest change first


def test_a_partner_key_asking_for_another_partners_pages_is_refused_naming_partner(
    lane_client: FlaskClient, lanes: Lanes
) -> None:
    """Only a content_admin key picks a partner: a partner key's `partner=other` is 400
    `invalid_query` naming `partner`, not an empty list; its own name lists its own pages."""
    lane_client.post(PAGES, json=page_body("acme-audit"), headers=lanes.a)
    lane_client.post(PAGES, json=page_body("bravo-audit"), headers=lanes.b)

    other = lane_client.get(f"{PAGES}?partner=bravo", headers=lanes.a)
    nobody = lane_client.get(f"{PAGES}?partner=nobody", headers=lanes.a)
    own = lane_client.get(f"{PAGES}?partner=acme", headers=lanes.a)

    for refused in (other, nobody):
        body = refused.get_json()
        assert (refused.status_code, body["error"]) == (400, "invalid_query")
        assert [i["field"] for i in body["issues"]] == ["partner"]
    assert [p["slug"] for p in own.get_json()["pages"]] == ["acme-audit"]


def test_a_content_admin_key_is_refused_on_the_signal_api(
    lane_client: FlaskClient, lanes: Lanes
) -> None:
    """content_admin opens the Content API only; other surfaces answer 401."""
    answer = lane_client.get("/api/public/v1/signals", headers=lanes.admin)

    assert answer.status_code == 401


@pytest.mark.spec("content.auth")
@pytest.mark.parametrize(
    "key_id",
    [
        pytest.param("..", id="dot-dot"),
        pytest.param(".", id="dot"),
        pytest.param("a/b", id="slash"),
        pytest.param("a" * 1600, id="past-1500-bytes"),
    ],
)
def test_a_forged_key_naming_an_id_no_key_can_have_answers_401(
    lane_client: FlaskClient, key_id: str
) -> None:
    """SPEC Authentication: a wrong key is 401 `unauthorized`, also one whose id the key store
    could not hold (Firestore refuses `..` and ids past 1500 bytes as document ids)."""
    forged = {"x-api-key": f"fdk_content_{key_id}_secret"}
    bearer = {"Authorization": f"Bearer fdk_signals_{key_id}_secret"}

    answers = [
        lane_client.get(PAGES, headers=forged),
        lane_client.get("/api/public/v1/signals/accounts", headers=bearer),
    ]

    assert [a.status_code for a in answers] == [401, 401]
    assert {a.get_json()["error"] for a in answers} == {"unauthorized"}


@pytest.mark.spec("signals.webhooks")
@pytest.mark.parametrize("hook_id", ["__reserved__", "a" * 1600])
def test_a_webhook_or_delivery_id_no_record_can_have_answers_404(
    lane_client: FlaskClient, lanes: Lanes, hook_id: str
) -> None:
    """signals-api.md: an unknown endpoint or delivery is 404 `not_found`, also an id Firestore
    refuses as a document id (reserved `__x__`, past 1500 bytes)."""
    hooks = "/api/public/v1/signals/webhooks"

    answers = [
        lane_client.delete(f"{hooks}/{hook_id}", headers=lanes.a_signals),
        lane_client.post(f"{hooks}/{hook_id}/rotate", headers=lanes.a_signals),
        lane_client.get(f"{hooks}/{hook_id}/deliveries", headers=lanes.a_signals),
        lane_client.post(f"{hooks}/deliveries/{hook_id}/replay", headers=lanes.a_signals),
    ]

    assert [a.status_code for a in answers] == [404] * len(answers)
