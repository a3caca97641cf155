"""Content API over HTTP: the lifecycle, statuses, conditional requests, auth and body errors."""

from __future__ import annotations

import dataclasses

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from backends.bundle import Backends
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from services.keys import issue_key
from tests.api.content_client import AUTH, PAGES, RecordingCdn, page_body
from tests.conftest import SIGNALS_KEY


@pytest.fixture
def cdn() -> RecordingCdn:
    return RecordingCdn()


@pytest.fixture
def app(settings: Settings, backends: Backends, cdn: RecordingCdn) -> Flask:
    return create_app(app_config(settings), dataclasses.replace(backends, cdn=cdn))


@pytest.mark.spec("content.create")
def test_post_publishes_a_page_that_is_served_at_its_url(
    client: FlaskClient, cdn: RecordingCdn
) -> None:
    """SPEC Content API: POST pages, 201 published; served at /p/{slug}."""
    response = client.post(PAGES, json=page_body(), headers=AUTH)

    page = response.get_json()["page"]
    assert response.status_code == 201
    assert response.headers["Location"] == f"{PAGES}/growth-audit"
    assert response.headers["ETag"] == '"v1"'
    assert response.headers["Cache-Control"] == "no-store"
    assert page["status"] == "published"
    assert page["is_published"] is True
    assert page["url"] == "http://testserver/p/growth-audit"
    assert page["version"] == 1
    assert page["source"] == "api"
    assert page["gate"]["passed"] is True
    assert page["gate"]["ruleset"].startswith("gate-3+brand-")
    assert page["published_at"] == page["created_at"] == page["updated_at"]
    assert page["preview_url"] is None
    assert client.get("/p/growth-audit").status_code == 200
    assert cdn.paths == ["/p/growth-audit"]


@pytest.mark.spec("content.create")
def test_is_published_false_gives_a_draft_with_a_signed_preview_link(client: FlaskClient) -> None:
    """DESIGN Pages: `is_published: false` gives a draft, reviewable through its preview_url."""
    page = client.post(PAGES, json=page_body(is_published=False), headers=AUTH).get_json()["page"]

    assert page["status"] == "draft"
    assert page["published_at"] is None
    assert page["preview_url"].startswith("http://testserver/p/growth-audit?preview=")
    assert client.get("/p/growth-audit").status_code == 404
    assert client.get(page["preview_url"].removeprefix("http://testserver")).status_code == 200


@pytest.mark.spec("content.read")
def test_get_one_page_answers_the_stored_record_with_a_strong_etag(client: FlaskClient) -> None:
    """SPEC Content API: GET pages/{slug} 200; DESIGN: strong ETag, If-None-Match 304."""
    created = client.post(PAGES, json=page_body(), headers=AUTH).get_json()["page"]

    response = client.get(f"{PAGES}/growth-audit", headers=AUTH)
    again = client.get(
        f"{PAGES}/growth-audit", headers={**AUTH, "If-None-Match": response.headers["ETag"]}
    )

    assert response.status_code == 200
    assert response.get_json() == {"ok": True, "page": created, "warnings": []}
    assert response.headers["ETag"] == '"v1"'
    assert again.status_code == 304


@pytest.mark.spec("content.read")
def test_an_unknown_slug_is_a_404_problem(client: FlaskClient) -> None:
    """SPEC Content API: GET pages/{slug} 404."""
    response = client.get(f"{PAGES}/no-such-page", headers=AUTH)

    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["error"] == "not_found"


@pytest.mark.spec("content.list")
def test_the_list_is_newest_first_filters_by_status_and_pages_by_cursor(
    client: FlaskClient,
) -> None:
    """SPEC Content API: GET pages 200 page list; DESIGN: newest first, status filter, cursor."""
    for slug in ("one", "two", "three"):
        client.post(PAGES, json=page_body(slug), headers=AUTH)
    client.post(PAGES, json=page_body("draft-one", is_published=False), headers=AUTH)

    everything = client.get(PAGES, headers=AUTH).get_json()
    drafts = client.get(f"{PAGES}?status=draft", headers=AUTH).get_json()
    first = client.get(f"{PAGES}?status=published&limit=2", headers=AUTH).get_json()
    rest = client.get(
        f"{PAGES}?status=published&limit=2&cursor={first['next_cursor']}", headers=AUTH
    ).get_json()

    assert everything["ok"] is True
    assert [p["slug"] for p in everything["pages"]] == ["draft-one", "three", "two", "one"]
    assert everything["next_cursor"] is None
    assert [p["slug"] for p in drafts["pages"]] == ["draft-one"]
    assert [p["slug"] for p in first["pages"]] == ["three", "two"]
    assert [p["slug"] for p in rest["pages"]] == ["one"]
    assert rest["next_cursor"] is None


@pytest.mark.parametrize(
    "query", ["status=live", "limit=0", "limit=101", "limit=ten", "cursor=bogus!"]
)
def test_a_bad_list_query_is_a_400_naming_the_parameter(client: FlaskClient, query: str) -> None:
    """DESIGN Statuses: 400 invalid_query."""
    response = client.get(f"{PAGES}?{query}", headers=AUTH)

    assert response.status_code == 400
    assert response.get_json()["error"] == "invalid_query"
    assert response.get_json()["issues"][0]["field"] == query.split("=")[0]


@pytest.mark.spec("content.update")
def test_patch_merges_into_the_stored_page(client: FlaskClient, cdn: RecordingCdn) -> None:
    """SPEC Content API: PATCH 200 updated; DESIGN: JSON merge patch, no field required."""
    client.post(PAGES, json=page_body(), headers=AUTH)

    response = client.patch(
        f"{PAGES}/growth-audit",
        json={"title": "A sharper growth audit", "description": None},
        headers=AUTH,
    )

    page = response.get_json()["page"]
    assert response.status_code == 200
    assert response.headers["ETag"] == '"v2"'
    assert page["title"] == "A sharper growth audit"
    assert page["description"] is None
    assert page["cta_label"] == "Book a call"
    assert page["version"] == 2
    assert page["status"] == "published"
    assert cdn.paths == ["/p/growth-audit", "/p/growth-audit"]


def test_patch_accepts_the_merge_patch_media_type(client: FlaskClient) -> None:
    """RFC 7396: application/merge-patch+json."""
    client.post(PAGES, json=page_body(), headers=AUTH)

    response = client.patch(
        f"{PAGES}/growth-audit",
        data='{"noindex": true}',
        headers={**AUTH, "Content-Type": "application/merge-patch+json"},
    )

    assert response.status_code == 200
    assert response.get_json()["page"]["noindex"] is True


@pytest.mark.spec("content.delete")
def test_delete_unpublishes_and_patch_publishes_again(
    client: FlaskClient, cdn: RecordingCdn
) -> None:
    """SPEC: DELETE 200 unpublished (soft); DESIGN: PATCH `is_published: true` republishes."""
    client.post(PAGES, json=page_body(), headers=AUTH)

    deleted = client.delete(f"{PAGES}/growth-audit", headers=AUTH)
    read_back = client.get(f"{PAGES}/growth-audit", headers=AUTH)
    gone = client.get("/p/growth-audit").status_code
    republished = client.patch(f"{PAGES}/growth-audit", json={"is_published": True}, headers=AUTH)

    assert deleted.status_code == 200
    assert deleted.get_json()["page"]["status"] == "unpublished"
    assert deleted.get_json()["page"]["is_published"] is False
    assert read_back.status_code == 200
    assert read_back.get_json()["page"]["status"] == "unpublished"
    assert gone == 404
    assert republished.get_json()["page"]["status"] == "published"
    assert republished.get_json()["page"]["version"] == 3
    assert client.get("/p/growth-audit").status_code == 200
    assert cdn.paths == ["/p/growth-audit"] * 3


def test_deleting_an_unpublished_page_again_changes_nothing(client: FlaskClient) -> None:
    """DESIGN Pages: DELETE is idempotent."""
    client.post(PAGES, json=page_body(), headers=AUTH)
    client.delete(f"{PAGES}/growth-audit", headers=AUTH)

    again = client.delete(f"{PAGES}/growth-audit", headers=AUTH)

    assert again.status_code == 200
    assert again.get_json()["page"]["version"] == 2


@pytest.mark.spec("content.create")
def test_post_replaces_a_page_by_slug(client: FlaskClient) -> None:
    """SPEC States: POST creates or replaces the page by slug."""
    first = client.post(PAGES, json=page_body(), headers=AUTH).get_json()["page"]

    response = client.post(PAGES, json=page_body(title="Replaced", description=None), headers=AUTH)

    page = response.get_json()["page"]
    assert response.status_code == 201
    assert page["title"] == "Replaced"
    assert page["description"] is None
    assert page["version"] == 2
    assert page["created_at"] == first["created_at"]
    assert page["published_at"] == first["published_at"]


def test_patching_a_draft_keeps_it_a_draft_with_a_fresh_preview(client: FlaskClient) -> None:
    """DESIGN Pages: a draft stays a draft until `is_published: true`; each version its own link."""
    draft = client.post(PAGES, json=page_body(is_published=False), headers=AUTH).get_json()["page"]

    edited = client.patch(
        f"{PAGES}/growth-audit", json={"title": "Edited"}, headers=AUTH
    ).get_json()["page"]

    assert edited["status"] == "draft"
    assert edited["preview_url"] != draft["preview_url"]


@pytest.mark.spec("pages.preview")
def test_a_preview_link_of_a_draft_that_went_live_leads_to_the_live_page(
    client: FlaskClient,
) -> None:
    """content-api.md Page states: a reviewer who opens a draft's link after it was published is
    sent to the live page (never cached), not shown a 404; a draft's stale link stays a 404."""
    draft = client.post(PAGES, json=page_body(is_published=False), headers=AUTH).get_json()["page"]
    stale_link = draft["preview_url"].removeprefix("http://testserver")
    client.patch(f"{PAGES}/growth-audit", json={"title": "Edited"}, headers=AUTH)
    still_draft = client.get(stale_link)
    client.patch(f"{PAGES}/growth-audit", json={"is_published": True}, headers=AUTH)

    opened = client.get(f"{stale_link}&utm_source=slack")
    followed = client.get(opened.headers["Location"])

    assert still_draft.status_code == 404
    assert opened.status_code == 302
    assert opened.headers["Location"] == "/p/growth-audit?utm_source=slack"
    assert opened.headers["Cache-Control"] == "no-store"
    assert followed.status_code == 200
    assert "Draft preview" not in followed.text
    assert "302" in client.get("/openapi.json").get_json()["paths"]["/p/{slug}"]["get"]["responses"]


@pytest.mark.spec("content.update")
def test_a_patch_that_changes_nothing_writes_no_version(client: FlaskClient) -> None:
    """content-api.md Editing: a repeat of a PATCH (or one that sends what is stored) answers
    200 with the page as it is: the same version and ETag, and no new entry in its history."""
    client.post(PAGES, json=page_body(), headers=AUTH)
    first = client.patch(f"{PAGES}/growth-audit", json={"title": "Edited"}, headers=AUTH)

    again = client.patch(f"{PAGES}/growth-audit", json={"title": "Edited"}, headers=AUTH)
    empty = client.patch(f"{PAGES}/growth-audit", json={}, headers=AUTH)
    versions = client.get(f"{PAGES}/growth-audit/versions", headers=AUTH).get_json()["versions"]

    assert [a.status_code for a in (first, again, empty)] == [200, 200, 200]
    assert first.headers["ETag"] == again.headers["ETag"] == empty.headers["ETag"] == '"v2"'
    assert again.get_json()["page"] == first.get_json()["page"]
    assert [v["version"] for v in versions] == [2, 1]


def test_patch_cannot_change_the_slug(client: FlaskClient) -> None:
    """DESIGN Pages: the slug names the page; a patch may not move it."""
    client.post(PAGES, json=page_body(), headers=AUTH)

    response = client.patch(f"{PAGES}/growth-audit", json={"slug": "elsewhere"}, headers=AUTH)

    assert response.status_code == 422
    assert [i["field"] for i in response.get_json()["issues"]] == ["slug"]


def test_patch_of_an_unknown_page_is_404(client: FlaskClient) -> None:
    """SPEC Content API: unknown slug."""
    assert client.patch(f"{PAGES}/nope", json={"title": "x"}, headers=AUTH).status_code == 404
    assert client.delete(f"{PAGES}/nope", headers=AUTH).status_code == 404


@pytest.mark.spec("content.update")
def test_if_match_with_a_stale_etag_is_412_and_changes_nothing(client: FlaskClient) -> None:
    """DESIGN Pages: PATCH and DELETE honour If-Match (412 on mismatch)."""
    client.post(PAGES, json=page_body(), headers=AUTH)
    client.patch(f"{PAGES}/growth-audit", json={"title": "Second"}, headers=AUTH)

    stale_patch = client.patch(
        f"{PAGES}/growth-audit", json={"title": "Lost"}, headers={**AUTH, "If-Match": '"v1"'}
    )
    stale_delete = client.delete(f"{PAGES}/growth-audit", headers={**AUTH, "If-Match": '"v1"'})
    weak = client.patch(
        f"{PAGES}/growth-audit", json={"title": "Lost"}, headers={**AUTH, "If-Match": 'W/"v2"'}
    )
    fresh = client.patch(
        f"{PAGES}/growth-audit", json={"title": "Third"}, headers={**AUTH, "If-Match": '"v2"'}
    )

    assert stale_patch.status_code == 412
    assert stale_patch.get_json()["error"] == "precondition_failed"
    assert stale_patch.headers["ETag"] == '"v2"'
    assert stale_delete.status_code == 412
    assert weak.status_code == 412
    assert fresh.status_code == 200
    assert fresh.get_json()["page"]["title"] == "Third"


def test_post_with_if_none_match_star_only_creates(client: FlaskClient) -> None:
    """RFC 9110 If-None-Match: * on POST: create, never replace."""
    create_only = {**AUTH, "If-None-Match": "*"}

    first = client.post(PAGES, json=page_body(), headers=create_only)
    second = client.post(PAGES, json=page_body(title="Replaced"), headers=create_only)

    assert first.status_code == 201
    assert second.status_code == 412


@pytest.mark.spec("content.auth")
@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"x-api-key": "wrong-key-0123456789abcdef"},
        {"x-api-key": SIGNALS_KEY},
        {"Authorization": "Bearer x"},
    ],
    ids=["missing", "wrong", "signals-scope", "bearer-not-accepted"],
)
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", PAGES),
        ("GET", PAGES),
        ("GET", f"{PAGES}/x"),
        ("PATCH", f"{PAGES}/x"),
        ("DELETE", f"{PAGES}/x"),
    ],
)
def test_every_operation_needs_a_content_key(
    client: FlaskClient, headers: dict[str, str], method: str, path: str
) -> None:
    """SPEC Authentication: missing or wrong key: 401 `unauthorized`; DESIGN: other scopes too."""
    response = client.open(path, method=method, json=page_body(), headers=headers)

    assert response.status_code == 401
    assert response.get_json()["error"] == "unauthorized"


def test_a_partner_issued_content_key_works(client: FlaskClient, backends: Backends) -> None:
    """DESIGN: keys are issued per partner with the CLI (same store)."""
    raw, _record = issue_key(
        keys=backends.keys, partner="acme", scope="content", now=backends.clock()
    )

    assert client.post(PAGES, json=page_body(), headers={"x-api-key": raw}).status_code == 201
