"""A page's history: every version kept with who wrote it, listed, read and restored
through today's gate, over HTTP on SQLite and on the Firestore emulator."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from api.app import create_app
from backends.bundle import Backends
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from schemas.catalog import BannedPhrase
from tests.api.content_client import page_body
from tests.api.lanes import PAGES, Lanes, lane_app, lane_backends, lane_client, lanes
from tests.conftest import CONTENT_KEY

__all__ = ["lane_app", "lane_backends", "lane_client", "lanes"]  # fixtures used below

pytestmark = pytest.mark.spec("content.history")


def edit_five_times(client: FlaskClient, headers: dict[str, str]) -> None:
    """Create, PATCH twice, unpublish, restore version 1."""
    client.post(PAGES, json=page_body("audit", title="The first title"), headers=headers)
    client.patch(f"{PAGES}/audit", json={"title": "The second title"}, headers=headers)
    client.patch(f"{PAGES}/audit", json={"title": "The third title"}, headers=headers)
    client.delete(f"{PAGES}/audit", headers=headers)
    client.post(f"{PAGES}/audit/versions/1/restore", headers=headers)


def test_five_writes_are_five_versions_newest_first_with_partner_and_source(
    lane_client: FlaskClient, lanes: Lanes
) -> None:
    """Create, PATCH twice, unpublish, restore v1: five versions, each with its writer."""
    edit_five_times(lane_client, lanes.a)

    listed = lane_client.get(f"{PAGES}/audit/versions", headers=lanes.a).get_json()

    assert [
        (v["version"], v["status"], v["source"], v["partner"], v["page"]["title"])
        for v in listed["versions"]
    ] == [
        (5, "published", "restore", "acme", "The first title"),
        (4, "unpublished", "api", "acme", "The third title"),
        (3, "published", "api", "acme", "The third title"),
        (2, "published", "api", "acme", "The second title"),
        (1, "published", "api", "acme", "The first title"),
    ]
    assert all(v["key_id"] and not v["key_id"].startswith("fdk_") for v in listed["versions"])
    assert (listed["has_more"], listed["next_cursor"]) == (False, None)


def test_the_restored_version_is_served_at_its_url(lane_client: FlaskClient, lanes: Lanes) -> None:
    """After restoring version 1, /p/{slug} serves version 1's content again."""
    edit_five_times(lane_client, lanes.a)

    page = lane_client.get(f"{PAGES}/audit", headers=lanes.a).get_json()["page"]
    served = lane_client.get("/p/audit")

    assert (page["version"], page["status"], page["title"]) == (5, "published", "The first title")
    assert served.status_code == 200
    assert "The first title" in served.text
    assert "The third title" not in served.text


def test_versions_page_with_limit_and_cursor(lane_client: FlaskClient, lanes: Lanes) -> None:
    """`limit` and `cursor` in, `next_cursor` and `has_more` out, as on the pages list."""
    edit_five_times(lane_client, lanes.a)

    first = lane_client.get(f"{PAGES}/audit/versions?limit=2", headers=lanes.a).get_json()
    second = lane_client.get(
        f"{PAGES}/audit/versions?limit=2&cursor={first['next_cursor']}", headers=lanes.a
    ).get_json()
    third = lane_client.get(
        f"{PAGES}/audit/versions?limit=2&cursor={second['next_cursor']}", headers=lanes.a
    ).get_json()
    bad = lane_client.get(f"{PAGES}/audit/versions?cursor=nope", headers=lanes.a)

    assert [v["version"] for v in first["versions"]] == [5, 4]
    assert first["has_more"] is True
    assert [v["version"] for v in second["versions"]] == [3, 2]
    assert [v["version"] for v in third["versions"]] == [1]
    assert (third["has_more"], third["next_cursor"]) == (False, None)
    assert (bad.status_code, bad.get_json()["issues"][0]["field"]) == (400, "cursor")


def test_one_version_reads_back_as_it_was(lane_client: FlaskClient, lanes: Lanes) -> None:
    """GET .../versions/{n} answers that version; an unknown one is 404."""
    edit_five_times(lane_client, lanes.a)

    second = lane_client.get(f"{PAGES}/audit/versions/2", headers=lanes.a).get_json()
    missing = lane_client.get(f"{PAGES}/audit/versions/9", headers=lanes.a)

    assert second["version"]["version"] == 2
    assert second["version"]["page"]["title"] == "The second title"
    assert second["version"]["page"]["preview_url"] is None
    assert (missing.status_code, missing.get_json()["error"]) == (404, "not_found")


def test_restore_honours_if_match_and_idempotency_key(
    lane_client: FlaskClient, lanes: Lanes
) -> None:
    """Restore takes If-Match (412 on a stale ETag) and Idempotency-Key (a replay)."""
    lane_client.post(PAGES, json=page_body("audit", title="The first title"), headers=lanes.a)
    lane_client.patch(f"{PAGES}/audit", json={"title": "The second title"}, headers=lanes.a)
    restore = f"{PAGES}/audit/versions/1/restore"

    stale = lane_client.post(restore, headers={**lanes.a, "If-Match": '"v1"'})
    first = lane_client.post(
        restore, headers={**lanes.a, "If-Match": '"v2"', "Idempotency-Key": "r1"}
    )
    again = lane_client.post(restore, headers={**lanes.a, "Idempotency-Key": "r1"})
    with_body = lane_client.post(restore, json={"version": 1}, headers=lanes.a)

    assert (stale.status_code, stale.get_json()["error"]) == (412, "precondition_failed")
    assert first.status_code == 200
    assert first.headers["ETag"] == '"v3"'
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    assert with_body.status_code == 400
    assert [(i["field"], i["code"]) for i in with_body.get_json()["issues"]] == [
        ("", "not_allowed")
    ]
    assert lane_client.get(f"{PAGES}/audit", headers=lanes.a).get_json()["page"]["version"] == 3


def test_a_version_that_fails_todays_gate_is_not_restored(
    settings: Settings, lane_backends: Backends, lanes: Lanes
) -> None:
    """Restoring a version today's brand rules refuse answers 422 with its issues and
    changes nothing."""
    today = create_app(app_config(settings), lane_backends).test_client()
    today.post(PAGES, json=page_body("audit", title="Pipeline reviews"), headers=lanes.a)
    today.patch(f"{PAGES}/audit", json={"title": "A growth audit"}, headers=lanes.a)
    brand = lane_backends.catalog.brand
    stricter = brand.model_copy(
        update={
            "banned_wording": [
                *brand.banned_wording,
                BannedPhrase(phrase="pipeline reviews", reason="Retired wording."),
            ]
        }
    )
    catalog = lane_backends.catalog.model_copy(update={"brand": stricter})
    tomorrow = create_app(
        app_config(settings), dataclasses.replace(lane_backends, catalog=catalog)
    ).test_client()
    before = tomorrow.get(f"{PAGES}/audit", headers=lanes.a).get_json()

    refused = tomorrow.post(f"{PAGES}/audit/versions/1/restore", headers=lanes.a)

    assert refused.status_code == 422
    assert refused.get_json()["error"] == "invalid_payload"
    assert ("title", "off_brand") in {(i["field"], i["code"]) for i in refused.get_json()["issues"]}
    assert tomorrow.get(f"{PAGES}/audit", headers=lanes.a).get_json() == before
    history = tomorrow.get(f"{PAGES}/audit/versions", headers=lanes.a).get_json()
    assert [v["version"] for v in history["versions"]] == [2, 1]


def test_history_keeps_only_the_configured_number_of_versions(tmp_path: Path) -> None:
    """content-api.md History: PAGE_HISTORY_LIMIT keeps the newest N versions."""
    settings = Settings(
        data_dir=tmp_path / "data",
        public_base_url="http://testserver",
        content_api_key=CONTENT_KEY,
        page_history_limit=2,
    )
    backends = build_backends(settings)
    client = create_app(app_config(settings), backends).test_client()
    key = {"x-api-key": CONTENT_KEY}
    try:
        client.post(PAGES, json=page_body("audit"), headers=key)
        for title in ("Second", "Third", "Fourth"):
            client.patch(f"{PAGES}/audit", json={"title": title}, headers=key)

        listed = client.get(f"{PAGES}/audit/versions", headers=key).get_json()
        gone = client.get(f"{PAGES}/audit/versions/1", headers=key)
    finally:
        backends.close()

    assert [v["version"] for v in listed["versions"]] == [4, 3]
    assert gone.status_code == 404


@pytest.mark.spec("content.history")
def test_by_default_the_newest_20_versions_of_a_page_are_kept(client: FlaskClient) -> None:
    """content-api.md History: PAGE_HISTORY_LIMIT is 20 unless set."""
    key = {"x-api-key": CONTENT_KEY}
    client.post(PAGES, json=page_body("audit"), headers=key)
    for n in range(2, 23):
        client.patch(f"{PAGES}/audit", json={"title": f"Audit number {n}"}, headers=key)

    listed = client.get(f"{PAGES}/audit/versions?limit=100", headers=key).get_json()

    assert [v["version"] for v in listed["versions"]] == list(range(22, 2, -1))
    assert client.get(f"{PAGES}/audit/versions/2", headers=key).status_code == 404


@pytest.mark.spec("content.history")
def test_a_write_past_the_partners_storage_quota_answers_429_and_changes_nothing(
    tmp_path: Path,
) -> None:
    """content-api.md History: PAGE_STORAGE_QUOTA_MIB bounds what one partner's pages hold."""
    settings = Settings(
        data_dir=tmp_path / "data",
        public_base_url="http://testserver",
        content_api_key=CONTENT_KEY,
        page_storage_quota_mib=1,
    )
    backends = build_backends(settings)
    client = create_app(app_config(settings), backends).test_client()
    key = {"x-api-key": CONTENT_KEY}
    prose = "We read your pipeline and write down where deals stall and why. " * 60
    blocks = [page_body()["blocks"][0], *[{"type": "richtext", "markdown": prose[:3_900]}] * 25]
    try:
        statuses = [
            client.post(PAGES, json=page_body(f"long-{n}", blocks=blocks), headers=key).status_code
            for n in range(12)
        ]
        refused = client.post(PAGES, json=page_body("long-12", blocks=blocks), headers=key)
        patched = client.patch(f"{PAGES}/long-0", json={"title": "Shorter"}, headers=key)
        kept = client.get(f"{PAGES}/long-0", headers=key).get_json()["page"]
        used = backends.pages.stored_bytes("bootstrap")
    finally:
        backends.close()

    assert statuses == [201] * 10 + [429] * 2
    assert refused.status_code == 429
    assert "Retry-After" not in refused.headers
    assert refused.get_json()["error"] == "storage_quota_exceeded"
    assert refused.get_json()["issues"][0]["code"] == "storage_quota_exceeded"
    assert patched.status_code == 429  # a new version: it adds as much again
    assert (kept["version"], kept["title"]) == (1, page_body()["title"])
    assert used <= 1024 * 1024


@pytest.mark.parametrize("slug", ["__reserved__", "..", "Not-A-Slug", "a" * 1600])
def test_a_slug_or_job_id_no_page_can_have_answers_404_on_every_operation(
    lane_client: FlaskClient, lanes: Lanes, slug: str
) -> None:
    """content-api.md: an unknown slug is 404 `not_found`, also one Firestore refuses as a
    document id (reserved `__x__`, `..`, past 1500 bytes), which must never reach it as a 500."""
    page = f"{PAGES}/{slug}"
    merge = {**lanes.a, "content-type": "application/merge-patch+json"}

    answers = [
        lane_client.get(page, headers=lanes.a),
        lane_client.patch(page, data='{"title": "Audit"}', headers=merge),
        lane_client.delete(page, headers=lanes.a),
        lane_client.get(f"{page}/versions", headers=lanes.a),
        lane_client.get(f"{page}/versions/1", headers=lanes.a),
        lane_client.post(f"{page}/versions/1/restore", headers=lanes.a),
        lane_client.get(f"/api/public/content/jobs/{slug}", headers=lanes.a),
    ]

    assert [a.status_code for a in answers] == [404] * len(answers)
    assert {a.get_json()["error"] for a in answers} == {"not_found"}
