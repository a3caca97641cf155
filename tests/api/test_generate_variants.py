"""POST /api/public/content/pages/generate with `variants`: the page and, from the writer's
other angles, variants of it, each through the gate, on SQLite and on the Firestore emulator."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from backends.content_files import load_catalog
from frontdoor.settings import Settings
from gate.check import check_page
from schemas.content.jobs import GenerationBrief
from schemas.errors import errors_of
from tests.api.lanes import PAGES, Lanes, lane_app, lane_backends, lane_client, lanes
from tests.api.test_generate import KEY, wire, wired
from tests.wire import providers
from tests.wire.server import WireServer

# fixtures used below
__all__ = ["lane_app", "lane_backends", "lane_client", "lanes", "wire", "wired"]

GENERATE = f"{PAGES}/generate"
CATALOG = load_catalog(Settings().content_dir)
BRIEF: dict[str, Any] = {
    "slug": "revops-audit",
    "topic": "A pipeline audit for revenue teams",
    "icp": "RevOps leads at Series B SaaS companies",
    "goal": "Book an audit call with teams whose funnel reporting disagrees with the CRM",
    "offer": "A two-week review of tracking and funnel conversion. You keep the written plan.",
    "proof": [
        "Cut cost per opportunity by 32% across 14 clients in 2025",
        "Booked 41 qualified meetings in the first 90 days for a Series B payroll company",
    ],
}


def hero_title(page: dict[str, Any]) -> str:
    hero = page["blocks"][0]
    assert hero["type"] == "hero"
    return str(hero["title"])


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("versions", [1, 5, "3", True])
def test_a_brief_asking_for_fewer_than_2_or_more_than_4_versions_is_refused_naming_variants(
    lane_client: FlaskClient, lanes: Lanes, versions: object
) -> None:
    """Generation brief: `variants` is a whole number from 2 to 4; outside, 422 and no job."""
    response = lane_client.post(GENERATE, json={**BRIEF, "variants": versions}, headers=lanes.a)

    body = response.get_json()
    assert response.status_code == 422
    assert body["error"] == "invalid_payload"
    assert [(i["field"], i["code"]) for i in body["issues"]] == [
        ("variants", "invalid_type" if isinstance(versions, str | bool) else "out_of_range")
    ]
    assert lane_client.get(f"{PAGES}/revops-audit", headers=lanes.a).status_code == 404


@pytest.mark.spec("content.generate")
def test_variants_3_writes_the_page_and_two_variants_with_distinct_heroes_that_pass_the_gate(
    lane_client: FlaskClient, lanes: Lanes
) -> None:
    """Generation brief: `variants: 3` is three versions in all, the page (the control) and
    variants b (another headline) and c (another proof first), each gated against the brief."""
    response = lane_client.post(GENERATE, json={**BRIEF, "variants": 3}, headers=lanes.a)

    body = response.get_json()
    assert response.status_code == 201, body
    assert [(v["id"], v["angle"], v["status"], v["issues"]) for v in body["job"]["variants"]] == [
        ("b", "headline", "written", []),
        ("c", "proof", "written", []),
    ]
    stored = lane_client.get(f"{PAGES}/revops-audit/variants", headers=lanes.a).get_json()
    assert [(v["id"], v["version"]) for v in stored["variants"]] == [("b", 1), ("c", 1)]
    heroes = [hero_title(body["page"]), *(hero_title(v["page"]) for v in stored["variants"])]
    assert len(set(heroes)) == 3, heroes
    brief = GenerationBrief.model_validate({**BRIEF, "variants": 3})
    for variant in stored["variants"]:
        assert errors_of(check_page(variant["page"], brand=CATALOG.brand, brief=brief)) == []
        assert variant["page"]["slug"] == "revops-audit"


@pytest.mark.spec("content.jobs")
def test_the_polled_job_names_the_variants_it_wrote_beside_its_page(
    lane_client: FlaskClient, lanes: Lanes
) -> None:
    """Jobs: GET jobs/{id} lists each variant with its id on the page, its angle and status."""
    first = lane_client.post(GENERATE, json={**BRIEF, "variants": 4}, headers=lanes.a)
    job_url = first.get_json()["job"]["url"].removeprefix("http://testserver")

    polled = lane_client.get(job_url, headers=lanes.a).get_json()

    assert polled["job"]["status"] == "succeeded"
    assert polled["page"]["slug"] == "revops-audit"
    assert [(v["id"], v["angle"], v["status"]) for v in polled["job"]["variants"]] == [
        ("b", "headline", "written"),
        ("c", "proof", "written"),
        ("d", "voice", "written"),
    ]


@pytest.mark.spec("content.generate")
def test_a_replayed_idempotency_key_writes_no_second_set_of_variants(
    lane_client: FlaskClient, lanes: Lanes
) -> None:
    """Idempotency: the same key and brief answer the first result; each variant stays at v1."""
    headers = {**lanes.a, "Idempotency-Key": "gen-variants-1"}
    first = lane_client.post(GENERATE, json={**BRIEF, "variants": 3}, headers=headers)

    again = lane_client.post(GENERATE, json={**BRIEF, "variants": 3}, headers=headers)

    assert again.status_code == first.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["job"]["id"] == first.get_json()["job"]["id"]
    stored = lane_client.get(f"{PAGES}/revops-audit/variants", headers=lanes.a).get_json()
    assert [(v["id"], v["version"]) for v in stored["variants"]] == [("b", 1), ("c", 1)]


@pytest.mark.spec("content.generate")
def test_generating_the_same_brief_again_keeps_one_version_of_each_variant(
    lane_client: FlaskClient, lanes: Lanes
) -> None:
    """Generation: a regenerated page replaces its variants b, c by id; the same content
    written again is no new version, so a brief sent twice never piles variants up."""
    lane_client.post(GENERATE, json={**BRIEF, "variants": 3}, headers=lanes.a)

    again = lane_client.post(GENERATE, json={**BRIEF, "variants": 3}, headers=lanes.a)

    assert again.status_code == 201
    stored = lane_client.get(f"{PAGES}/revops-audit/variants", headers=lanes.a).get_json()
    assert [(v["id"], v["version"]) for v in stored["variants"]] == [("b", 1), ("c", 1)]


@pytest.mark.spec("content.generate")
def test_a_draft_with_variants_serves_nothing_and_splits_no_traffic_until_you_say(
    lane_client: FlaskClient, lanes: Lanes
) -> None:
    """Generation: a draft's variants are drafts with it (/p/ serves nothing), and generate sets
    no allocation, so published later every visitor still gets the control until one is set."""
    lane_client.post(GENERATE, json={**BRIEF, "variants": 2}, headers=lanes.a)

    draft_view = lane_client.get("/p/revops-audit")
    allocation = lane_client.get(f"{PAGES}/revops-audit/allocation", headers=lanes.a)

    assert draft_view.status_code == 404
    assert allocation.get_json()["allocation"]["shares"] == {"control": 100}
    published = lane_client.patch(
        f"{PAGES}/revops-audit",
        json={"is_published": True},
        headers={**lanes.a, "content-type": "application/merge-patch+json"},
    )
    assert published.status_code == 200
    served = lane_client.get("/p/revops-audit")
    assert served.status_code == 200
    assert "fd_aid" not in served.headers.get("Set-Cookie", "")


@pytest.mark.spec("content.generate")
def test_a_brief_without_variants_writes_none(lane_client: FlaskClient, lanes: Lanes) -> None:
    """Generation brief: `variants` left out is the page alone, as before."""
    response = lane_client.post(GENERATE, json=BRIEF, headers=lanes.a)

    assert response.status_code == 201
    assert response.get_json()["job"]["variants"] == []
    stored = lane_client.get(f"{PAGES}/revops-audit/variants", headers=lanes.a).get_json()
    assert stored["variants"] == []


@pytest.mark.spec("content.generate")
def test_a_model_writer_is_asked_for_each_variants_angle(
    wired: FlaskClient, wire: WireServer
) -> None:
    """Generation: the model-backed writer is told what each variant changes (another headline,
    another proof first), so it writes versions, not copies; the page's prompt asks for none."""
    response = wired.post(GENERATE, json={**BRIEF, "variants": 3}, headers=KEY)

    prompts = [str(request.body) for request in wire.requests]
    assert response.status_code == 201
    assert wire.calls == 3
    assert "A/B test" not in prompts[0]
    assert "another headline angle" in prompts[1]
    assert "put the proof first" in prompts[2]


@pytest.mark.spec("content.generate")
def test_a_variant_the_gate_refuses_twice_is_listed_with_its_issues_and_the_page_stands(
    wired: FlaskClient, wire: WireServer
) -> None:
    """Generation: each variant gets the gate's one retry; refused twice, the job lists it as
    `refused` with the gate's errors, stores nothing for it, and the page and the other
    variant are written."""
    off_icp = providers.openai_page(providers.off_icp_page)
    wire.answer_next(providers.openai_page(), off_icp, off_icp)

    response = wired.post(GENERATE, json={**BRIEF, "variants": 3}, headers=KEY)

    body = response.get_json()
    assert response.status_code == 201
    assert body["page"]["slug"] == "revops-audit"
    refused, written = body["job"]["variants"]
    assert (refused["id"], refused["status"]) == ("b", "refused")
    assert ("blocks.0.sub", "icp_missing") in {(i["field"], i["code"]) for i in refused["issues"]}
    assert "icp_missing" in str(wire.requests[2].body)  # the retry saw the gate's errors
    assert (written["id"], written["status"]) == ("c", "written")
    stored = wired.get(f"{PAGES}/revops-audit/variants", headers=KEY).get_json()
    assert [v["id"] for v in stored["variants"]] == ["c"]


@pytest.mark.spec("content.generate")
def test_a_variant_whose_model_fails_is_listed_as_failed_and_the_page_stands(
    wired: FlaskClient, wire: WireServer
) -> None:
    """Generation: a model failure on a variant fails that variant (`model_failed`,
    retryable), never the job: the page is written and answered 201."""
    wire.answer_next(providers.openai_page(), providers.openai_server_error)

    response = wired.post(GENERATE, json={**BRIEF, "variants": 2}, headers=KEY)

    body = response.get_json()
    assert response.status_code == 201
    assert body["job"]["status"] == "succeeded"
    [failed] = body["job"]["variants"]
    assert (failed["id"], failed["status"], failed["error"]["code"]) == (
        "b",
        "failed",
        "model_failed",
    )
    assert failed["error"]["retryable"] is True
