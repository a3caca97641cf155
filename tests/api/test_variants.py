"""Content API: a page's variants (create, list, read, merge-patch, delete) and its allocation,
on SQLite and on the Firestore emulator, in partner lanes."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.api.content_client import page_body
from tests.api.lanes import PAGES, Lanes, lane_app, lane_backends, lane_client, lanes

__all__ = ["lane_app", "lane_backends", "lane_client", "lanes"]  # fixtures used below

VARIANTS = f"{PAGES}/growth-audit/variants"
ALLOCATION = f"{PAGES}/growth-audit/allocation"
PROMISE = "We report every result, including the numbers that did not move."


def variant_page(title: str = "A second look at your growth", **fields: Any) -> dict[str, Any]:
    body = page_body(title=title, **fields)
    del body["slug"]  # a variant's slug is its page's
    return body


def findings(items: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(i["field"], i["code"]) for i in items]


@pytest.fixture
def client(lane_client: FlaskClient, lanes: Lanes) -> FlaskClient:
    created = lane_client.post(PAGES, json=page_body(), headers=lanes.a)
    assert created.status_code == 201
    return lane_client


def test_a_variant_is_created_with_a_derived_id_and_read_back(
    client: FlaskClient, lanes: Lanes
) -> None:
    """Variants: POST without an id takes the first free letter; GET one and the list agree."""
    created = client.post(VARIANTS, json={"page": variant_page()}, headers=lanes.a)

    variant = created.get_json()["variant"]
    assert created.status_code == 201
    assert created.headers["ETag"] == '"v1"'
    assert created.headers["Location"] == f"{VARIANTS}/b"
    assert (variant["id"], variant["slug"], variant["version"]) == ("b", "growth-audit", 1)
    assert variant["page"]["slug"] == "growth-audit"
    assert variant["page"]["title"] == "A second look at your growth"
    assert client.get(f"{VARIANTS}/b", headers=lanes.a).get_json()["variant"] == variant
    assert client.get(VARIANTS, headers=lanes.a).get_json()["variants"] == [variant]


def test_a_variant_id_taken_on_the_page_is_a_409(client: FlaskClient, lanes: Lanes) -> None:
    """Variants: POST with an id the page has answers 409 `variant_exists`."""
    client.post(VARIANTS, json={"id": "bold", "page": variant_page()}, headers=lanes.a)

    again = client.post(VARIANTS, json={"id": "bold", "page": variant_page()}, headers=lanes.a)

    assert again.status_code == 409
    assert again.get_json()["error"] == "variant_exists"
    assert findings(again.get_json()["issues"]) == [("id", "variant_exists")]


def test_a_fifth_variant_is_refused_with_422(client: FlaskClient, lanes: Lanes) -> None:
    """Variants: a page carries at most 4 variants besides its control."""
    for _ in range(4):
        assert (
            client.post(VARIANTS, json={"page": variant_page()}, headers=lanes.a).status_code == 201
        )

    fifth = client.post(VARIANTS, json={"page": variant_page()}, headers=lanes.a)

    assert fifth.status_code == 422
    assert findings(fifth.get_json()["issues"]) == [("", "too_many_variants")]
    listed = client.get(VARIANTS, headers=lanes.a).get_json()["variants"]
    assert [v["id"] for v in listed] == ["b", "c", "d", "e"]


def test_a_variant_passes_the_gate_on_its_own_errors_refuse_and_warnings_return(
    client: FlaskClient, lanes: Lanes
) -> None:
    """Variants: the page's gate judges each variant; errors block, warnings come back."""
    refused = client.post(VARIANTS, json={"page": variant_page(title="x" * 61)}, headers=lanes.a)
    warned_page = variant_page()
    warned_page["blocks"][1] = {"type": "richtext", "title": "Reporting", "markdown": PROMISE}
    warned = client.post(VARIANTS, json={"page": warned_page}, headers=lanes.a)

    assert refused.status_code == 422
    assert findings(refused.get_json()["issues"]) == [("title", "too_long")]
    assert warned.status_code == 201
    assert findings(warned.get_json()["warnings"]) == [("blocks.1.markdown", "universal_promise")]


def test_a_variant_with_another_slug_or_a_bad_id_is_refused(
    client: FlaskClient, lanes: Lanes
) -> None:
    """Variants: a variant's slug is its page's; `control` is no variant id."""
    other = client.post(VARIANTS, json={"page": page_body("other-page")}, headers=lanes.a)
    control = client.post(VARIANTS, json={"id": "control", "page": variant_page()}, headers=lanes.a)

    assert other.status_code == 422
    assert findings(other.get_json()["issues"]) == [("slug", "slug_mismatch")]
    assert control.status_code == 422
    assert [i["field"] for i in control.get_json()["issues"]] == ["id"]


def test_patch_merges_into_the_variant_with_if_match_like_the_page(
    client: FlaskClient, lanes: Lanes
) -> None:
    """Variants: PATCH is a JSON merge patch, versioned; a stale If-Match is a 412."""
    client.post(VARIANTS, json={"page": variant_page()}, headers=lanes.a)
    patch = {"page": {"title": "Where your pipeline leaks"}}

    changed = client.patch(f"{VARIANTS}/b", json=patch, headers={**lanes.a, "If-Match": '"v1"'})
    stale = client.patch(
        f"{VARIANTS}/b", json={"page": {"title": "Late"}}, headers={**lanes.a, "If-Match": '"v1"'}
    )

    assert changed.status_code == 200
    assert changed.headers["ETag"] == '"v2"'
    assert changed.get_json()["variant"]["page"]["title"] == "Where your pipeline leaks"
    assert changed.get_json()["variant"]["page"]["blocks"] == variant_page()["blocks"]
    assert stale.status_code == 412
    assert stale.headers["ETag"] == '"v2"'


def test_delete_removes_the_variant(client: FlaskClient, lanes: Lanes) -> None:
    """Variants: DELETE answers 204; the variant is gone."""
    client.post(VARIANTS, json={"page": variant_page()}, headers=lanes.a)

    deleted = client.delete(f"{VARIANTS}/b", headers=lanes.a)

    assert deleted.status_code == 204
    assert client.get(f"{VARIANTS}/b", headers=lanes.a).status_code == 404
    assert client.delete(f"{VARIANTS}/b", headers=lanes.a).status_code == 404


def test_another_partners_page_has_no_variants_to_see_or_change(
    client: FlaskClient, lanes: Lanes
) -> None:
    """Variants hold the partner lanes: another partner's page answers 404 on every route."""
    client.post(VARIANTS, json={"page": variant_page()}, headers=lanes.a)

    answers = [
        client.get(VARIANTS, headers=lanes.b),
        client.get(f"{VARIANTS}/b", headers=lanes.b),
        client.post(VARIANTS, json={"page": variant_page()}, headers=lanes.b),
        client.patch(f"{VARIANTS}/b", json={"page": {"title": "Mine"}}, headers=lanes.b),
        client.delete(f"{VARIANTS}/b", headers=lanes.b),
        client.get(ALLOCATION, headers=lanes.b),
        client.put(ALLOCATION, json={"shares": {"control": 100}}, headers=lanes.b),
    ]

    assert [a.status_code for a in answers] == [404] * len(answers)
    assert client.get(VARIANTS, headers=lanes.admin).status_code == 200
    assert client.get(f"{VARIANTS}/b", headers=lanes.a).get_json()["variant"]["version"] == 1


def test_a_repeated_post_with_one_idempotency_key_creates_one_variant(
    client: FlaskClient, lanes: Lanes
) -> None:
    """Variants: Idempotency-Key works as on the page's writes."""
    headers = {**lanes.a, "Idempotency-Key": "variant-once"}

    first = client.post(VARIANTS, json={"page": variant_page()}, headers=headers)
    again = client.post(VARIANTS, json={"page": variant_page()}, headers=headers)

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.get_json() == first.get_json()
    assert len(client.get(VARIANTS, headers=lanes.a).get_json()["variants"]) == 1


def test_an_allocation_is_fixed_percentages_of_known_arms_making_100(
    client: FlaskClient, lanes: Lanes
) -> None:
    """Allocation: shares by arm in percent; unknown arms and sums other than 100 are 422."""
    client.post(VARIANTS, json={"page": variant_page()}, headers=lanes.a)
    unset = client.get(ALLOCATION, headers=lanes.a)

    short = client.put(ALLOCATION, json={"shares": {"control": 50, "b": 40}}, headers=lanes.a)
    unknown = client.put(ALLOCATION, json={"shares": {"control": 50, "z": 50}}, headers=lanes.a)
    saved = client.put(ALLOCATION, json={"shares": {"control": 50, "b": 50}}, headers=lanes.a)

    assert unset.get_json()["allocation"]["shares"] == {"control": 100.0}
    assert unset.get_json()["allocation"]["version"] == 0
    assert findings(short.get_json()["issues"]) == [("shares", "shares_sum")]
    assert findings(unknown.get_json()["issues"]) == [("shares.z", "unknown_variant")]
    assert saved.status_code == 200
    assert saved.headers["ETag"] == '"v1"'
    assert saved.get_json()["allocation"]["shares"] == {"control": 50.0, "b": 50.0}
    assert client.get(ALLOCATION, headers=lanes.a).get_json() == saved.get_json()
