"""SPEC "Generation brief" and POST /api/public/content/pages/generate, DESIGN "Generation"."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

import api.app
from api.app import create_app
from api.rest.pages import create_pages_blueprint
from backends.bundle import Backends
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from schemas.content.jobs import JobError
from services.keys import issue_key
from tests.conftest import CONTENT_KEY
from tests.e2e.sample_page import store_page
from tests.polling import wait_for
from tests.wire import providers
from tests.wire.server import WireServer

KEY = {"x-api-key": CONTENT_KEY}
GENERATE = "/api/public/content/pages/generate"
PROOF = [
    "Cut cost per opportunity by 32% across 14 clients in 2025",
    "Booked 41 qualified meetings in the first 90 days for a Series B payroll company",
    "\u201cWe found three leaks in our funnel in the first week.\u201d \u2014 Dana Ortiz, Acme",
]


def brief(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "slug": "revops-audit",
        "topic": "A pipeline audit for revenue teams",
        "icp": "RevOps leads at Series B SaaS companies",
        "goal": "Book an audit call with teams whose funnel reporting disagrees with the CRM",
        "offer": "A two-week review of tracking and funnel conversion. You keep the written plan.",
    }
    return {**base, **changes}


def wire_client(tmp_path: Path, wire: WireServer, **extra: Any) -> Iterator[FlaskClient]:
    settings = Settings(
        data_dir=tmp_path / "wire-data",
        public_base_url="http://testserver",
        content_api_key=CONTENT_KEY,
        author_model="openai",
        author_base_url=f"{wire.url}/v1",
        author_api_key="wire-test-key-0123456789",
        **extra,
    )
    built = build_backends(settings)
    yield create_app(app_config(settings), built).test_client()
    built.close()


@pytest.fixture
def wire() -> Iterator[WireServer]:
    server = WireServer(providers.openai_page()).start()
    yield server
    server.stop()


@pytest.fixture
def wired(tmp_path: Path, wire: WireServer) -> Iterator[FlaskClient]:
    yield from wire_client(tmp_path, wire)


@pytest.mark.spec("content.generate")
def test_a_valid_brief_answers_201_with_a_draft_that_p_does_not_serve(client: FlaskClient) -> None:
    """SPEC States: generate without `publish` gives a reviewable draft, not a live page."""
    response = client.post(GENERATE, json=brief(), headers=KEY)

    body = response.get_json()
    assert response.status_code == 201
    assert body["ok"] is True
    assert body["page"]["status"] == "draft"
    assert body["page"]["source"] == "generate"
    assert body["page"]["preview_url"]
    assert body["job"]["status"] == "succeeded"
    assert body["job"]["writer_calls"] == 1
    assert "RevOps leads at Series B SaaS companies" in body["page"]["blocks"][0]["sub"]
    assert client.get("/p/revops-audit").status_code == 404


@pytest.mark.spec("content.generate")
def test_a_brief_with_publish_true_is_served_at_p(client: FlaskClient) -> None:
    """SPEC States: `publish: true` and a passed gate give a published page."""
    response = client.post(GENERATE, json=brief(publish=True), headers=KEY)

    assert response.status_code == 201
    assert response.get_json()["page"]["status"] == "published"
    page = client.get("/p/revops-audit")
    assert page.status_code == 200
    assert b"RevOps leads at Series B SaaS companies" in page.data


@pytest.mark.spec("content.generate")
def test_a_brief_without_proof_yields_no_stats_or_quote_blocks(client: FlaskClient) -> None:
    """SPEC brief `proof`: with no proof, no stats or quote blocks are produced."""
    response = client.post(
        GENERATE, json=brief(sections=["results", "testimonial", "faq"]), headers=KEY
    )

    types = [block["type"] for block in response.get_json()["page"]["blocks"]]
    assert response.status_code == 201
    assert "stats" not in types
    assert "quote" not in types


@pytest.mark.spec("content.generate")
def test_every_number_and_percentage_on_a_generated_page_appears_in_the_proof(
    client: FlaskClient,
) -> None:
    """SPEC brief `proof`: the only facts the writer may state."""
    response = client.post(GENERATE, json=brief(proof=PROOF), headers=KEY)

    page = response.get_json()["page"]
    copy = " ".join([*_strings(page["blocks"]), page["title"], page.get("description") or ""])
    numbers = set(re.findall(r"\d[\d,.]*%?", copy))
    proof_text = " ".join(PROOF)
    assert response.status_code == 201
    assert {b["type"] for b in page["blocks"]} >= {"stats", "quote"}
    assert numbers, "the proof's numbers should be shown"
    assert all(number.rstrip(".,") in proof_text for number in numbers)


@pytest.mark.spec("content.generate")
def test_an_invalid_brief_answers_422_naming_each_field(client: FlaskClient) -> None:
    """SPEC brief limits, DESIGN: slug over 80, icp over 12 words, https callbacks."""
    bad = brief(
        slug="a" * 81,
        icp="heads of growth and revenue operations at venture backed software firms in europe",
        proof=["fact"] * 9,
        callback_url="ftp://example.com/hook",
        sections=["x"] * 11,
        colour="red",
    )
    del bad["topic"]

    response = client.post(GENERATE, json=bad, headers=KEY)

    body = response.get_json()
    found = {(issue["field"], issue["code"]) for issue in body["issues"]}
    assert response.status_code == 422
    assert body["error"] == "invalid_payload"
    assert found == {
        ("slug", "too_long"),
        ("icp", "too_long"),
        ("proof", "too_many"),
        ("sections", "too_many"),
        ("callback_url", "unsafe_url"),
        ("topic", "missing"),
        ("colour", "unknown_field"),
    }


@pytest.mark.spec("content.generate")
def test_a_brief_slug_over_80_is_refused_before_any_model_call(
    wired: FlaskClient, wire: WireServer
) -> None:
    """DESIGN Generation: a brief slug over 80 is refused at once."""
    response = wired.post(GENERATE, json=brief(slug="b" * 100), headers=KEY)

    assert response.status_code == 422
    assert response.get_json()["issues"][0]["field"] == "slug"
    assert wire.calls == 0


@pytest.mark.spec("content.generate")
def test_generate_without_the_content_key_answers_401(client: FlaskClient) -> None:
    """SPEC Content API: `x-api-key` required."""
    response = client.post(GENERATE, json=brief())

    assert response.status_code == 401
    assert response.get_json()["error"] == "unauthorized"


@pytest.mark.spec("content.jobs")
def test_prefer_respond_async_answers_202_and_the_job_reaches_succeeded(
    client: FlaskClient,
) -> None:
    """DESIGN Generation: 202 with Location; GET there shows the job's states."""
    response = client.post(GENERATE, json=brief(), headers={**KEY, "Prefer": "respond-async"})

    location = response.headers["Location"]
    assert response.status_code == 202
    assert response.get_json()["job"]["status"] in ("queued", "running", "succeeded")
    assert location == f"/api/public/content/jobs/{response.get_json()['job']['id']}"
    wait_for(lambda: client.get(location, headers=KEY).get_json()["job"]["status"] == "succeeded")
    done = client.get(location, headers=KEY).get_json()
    assert done["page"]["slug"] == "revops-audit"
    assert done["job"]["page_slug"] == "revops-audit"


@pytest.mark.spec("pages.serve")
def test_a_page_generated_after_the_answer_shows_at_p_at_once(
    settings: Settings, backends: Backends, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job that stores its page after the 202 clears this process's /p/ lookup memo too."""
    stopped = functools.partial(create_pages_blueprint, monotonic=lambda: 100.0)
    monkeypatch.setattr(api.app, "create_pages_blueprint", stopped)
    store_page(backends.pages, "revops-audit", title="The page before generation")
    client = create_app(app_config(settings), backends).test_client()
    before = client.get("/p/revops-audit")

    response = client.post(
        GENERATE, json=brief(publish=True), headers={**KEY, "Prefer": "respond-async"}
    )
    location = response.headers["Location"]
    wait_for(lambda: client.get(location, headers=KEY).get_json()["job"]["status"] == "succeeded")
    after = client.get("/p/revops-audit")

    assert "The page before generation" in before.text
    assert after.status_code == 200
    assert "The page before generation" not in after.text


@pytest.mark.spec("content.jobs")
def test_an_unknown_job_answers_404(client: FlaskClient) -> None:
    """GET /api/public/content/jobs/{id}: 404 not_found for an id nobody created."""
    response = client.get("/api/public/content/jobs/nope", headers=KEY)

    assert response.status_code == 404
    assert response.get_json()["error"] == "not_found"


@pytest.mark.spec("content.jobs")
def test_a_job_is_not_shown_to_another_partners_key(
    client: FlaskClient, backends: Backends
) -> None:
    """Jobs are scoped to the partner that created them: another partner gets 404."""
    raw, _record = issue_key(
        keys=backends.keys, partner="other", scope="content", now=backends.clock()
    )
    location = client.post(
        GENERATE, json=brief(), headers={**KEY, "Prefer": "respond-async"}
    ).headers["Location"]

    response = client.get(location, headers={"x-api-key": raw})

    assert response.status_code == 404


@pytest.mark.spec("content.generate")
def test_the_same_idempotency_key_returns_the_same_job_and_page_with_one_writer_call(
    wired: FlaskClient, wire: WireServer
) -> None:
    """DESIGN: one Idempotency-Key never calls the model twice."""
    headers = {**KEY, "Idempotency-Key": "brief-42"}

    first = wired.post(GENERATE, json=brief(), headers=headers)
    second = wired.post(GENERATE, json=brief(), headers=headers)

    assert first.status_code == second.status_code == 201
    assert second.headers["Idempotent-Replayed"] == "true"
    assert second.get_json()["job"]["id"] == first.get_json()["job"]["id"]
    assert second.get_json()["page"] == first.get_json()["page"]
    assert wire.calls == 1


@pytest.mark.spec("content.generate")
def test_a_key_first_answered_202_later_returns_the_same_job_with_its_page(
    client: FlaskClient,
) -> None:
    """DESIGN Idempotency-Key: the repeat names the same job and, once done, its page."""
    headers = {**KEY, "Idempotency-Key": "async-7", "Prefer": "respond-async"}
    first = client.post(GENERATE, json=brief(), headers=headers)
    location = first.headers["Location"]
    wait_for(lambda: client.get(location, headers=KEY).get_json()["job"]["status"] == "succeeded")

    again = client.post(GENERATE, json=brief(), headers=headers)

    assert first.status_code == 202
    assert again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["job"]["id"] == first.get_json()["job"]["id"]
    assert again.get_json()["page"]["slug"] == "revops-audit"
    assert again.get_json()["job"]["writer_calls"] == 1


@pytest.mark.spec("content.generate")
def test_a_writer_that_fails_the_gate_twice_answers_422_with_the_issues(
    wired: FlaskClient, wire: WireServer
) -> None:
    """SPEC Generation flow: one retry with the failures fed back; a second failure is 422."""
    wire.default = providers.openai_page(providers.off_icp_page)

    response = wired.post(GENERATE, json=brief(), headers=KEY)

    body = response.get_json()
    assert response.status_code == 422
    assert body["error"] == "invalid_payload"
    assert ("blocks.0.sub", "icp_missing") in {(i["field"], i["code"]) for i in body["issues"]}
    assert body["job"]["writer_calls"] == 2
    assert wire.calls == 2
    assert "icp_missing" in str(wire.requests[1].body)
    assert body["notes"] == body["job"]["notes"]


@pytest.mark.spec("content.generate")
def test_a_writer_that_fails_once_is_retried_with_the_issues_and_gives_201(
    wired: FlaskClient, wire: WireServer
) -> None:
    """SPEC Generation flow: the retry sees the gate's issues and can pass."""
    wire.answer_next(providers.openai_page(providers.off_icp_page))

    response = wired.post(GENERATE, json=brief(), headers=KEY)

    assert response.status_code == 201
    assert response.get_json()["job"]["writer_calls"] == 2


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize(
    "answer", [providers.openai_malformed, providers.openai_refusal, providers.openai_server_error]
)
def test_a_writer_that_errors_answers_502_model_failed_retryable(
    wired: FlaskClient, wire: WireServer, answer: Any
) -> None:
    """SPEC Errors: 502 when the authoring model failed; DESIGN: `retryable: true`."""
    wire.default = answer

    response = wired.post(GENERATE, json=brief(), headers=KEY)

    body = response.get_json()
    assert response.status_code == 502
    assert body["error"] == "model_failed"
    assert body["retryable"] is True
    assert body["job"]["status"] == "failed"


@pytest.mark.spec("content.generate")
def test_the_hero_image_is_served_at_assets_with_a_long_cache(client: FlaskClient) -> None:
    """DESIGN: hero images in the blob store, served at /assets/ in embedded mode."""
    page = client.post(GENERATE, json=brief(), headers=KEY).get_json()["page"]

    path = page["hero_image_url"].removeprefix("http://testserver")
    image = client.get(path)
    webp = client.get(path.replace(".png", ".webp").replace("1200x630", "600x315"))
    assert image.status_code == 200
    assert image.mimetype == "image/png"
    assert "immutable" in image.headers["Cache-Control"]
    assert webp.mimetype == "image/webp"
    assert client.get("/assets/../data/frontdoor.sqlite3").status_code == 404


@pytest.mark.spec("content.generate")
def test_a_brief_with_generate_image_false_has_no_hero_image(client: FlaskClient) -> None:
    """SPEC brief `generate_image`: false renders no hero visual."""
    page = client.post(GENERATE, json=brief(generate_image=False), headers=KEY).get_json()["page"]

    assert page["hero_image_url"] is None


def _strings(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [
            s
            for key, value in node.items()
            if key not in ("ctaHref", "type")
            for s in _strings(value)
        ]
    if isinstance(node, list):
        return [s for item in node for s in _strings(item)]
    return []


@pytest.mark.spec("content.generate")
def test_a_key_whose_job_was_abandoned_starts_a_new_job_and_repeats_follow_it(
    client: FlaskClient, backends: Backends
) -> None:
    """A job that ended `abandoned` is safe to post again, even with the same key."""
    headers = {**KEY, "Idempotency-Key": "async-abandoned", "Prefer": "respond-async"}
    first = client.post(GENERATE, json=brief(slug="abandoned-brief"), headers=headers)
    stale_id = first.get_json()["job"]["id"]
    wait_for(lambda: backends.jobs.get_job(stale_id).finished)  # type: ignore[union-attr]
    abandoned = JobError(code="abandoned", message="its workers kept dying", retryable=True)
    backends.jobs.update_job(  # as job recovery leaves a job it gave up on
        stale_id, lambda job: job.model_copy(update={"status": "failed", "error": abandoned})
    )

    again = client.post(GENERATE, json=brief(slug="abandoned-brief"), headers=headers)
    new_id = again.get_json()["job"]["id"]
    wait_for(lambda: backends.jobs.get_job(new_id).finished)  # type: ignore[union-attr]
    third = client.post(GENERATE, json=brief(slug="abandoned-brief"), headers=headers)

    assert again.status_code in (201, 202)
    assert new_id != stale_id
    assert third.status_code == 201
    assert third.get_json()["job"]["id"] == new_id


@pytest.mark.spec("content.generate")
def test_the_answer_and_the_job_carry_notes_naming_what_the_page_left_out(
    client: FlaskClient,
) -> None:
    """Nothing of the brief disappears silently; `notes[]` says what and why."""
    response = client.post(
        GENERATE,
        json=brief(
            topic="A revolutionary pipeline audit",
            offer="We leverage agents. You keep the written plan.",
            sections=["Results", "results"],
        ),
        headers=KEY,
    )

    body = response.get_json()
    assert response.status_code == 201
    notes = {(n["field"], n["code"]): n["message"] for n in body["notes"]}
    assert "off-brand word 'revolutionary'" in notes["topic", "dropped"]
    assert "off-brand word 'leverage'" in notes["offer", "dropped"]
    assert ("sections.1", "merged") in notes
    assert body["job"]["notes"] == body["notes"]
    polled = client.get(body["job"]["url"].removeprefix("http://testserver"), headers=KEY)
    assert polled.get_json()["notes"] == body["notes"]


@pytest.mark.spec("content.generate")
def test_a_tone_naming_none_of_the_voices_is_noted_in_the_answer(client: FlaskClient) -> None:
    """content-api.md: an unknown tone gets the direct voice and a `tone` note, never silence."""
    body = client.post(GENERATE, json=brief(tone="whimsical"), headers=KEY).get_json()

    assert body["notes"] == [
        {
            "field": "tone",
            "code": "not_used",
            "message": "tone 'whimsical' names none of the voices (direct, warm, formal); "
            "written in the direct voice",
        }
    ]


@pytest.mark.spec("content.generate")
def test_a_brief_the_page_uses_whole_has_no_notes(client: FlaskClient) -> None:
    """Notes are empty when every element of the brief made it onto the page."""
    body = client.post(GENERATE, json=brief(), headers=KEY).get_json()

    assert body["notes"] == []


@pytest.mark.spec("content.generate")
def test_a_generated_draft_for_an_icp_outside_the_vocabulary_can_be_edited_published_restored(
    client: FlaskClient,
) -> None:
    """content-api.md Page states: a generated draft is reviewed, then published with PATCH. Its
    hero names the brief's ICP ("practice managers at dental clinics"), which the brand's ICP
    vocabulary does not hold; a change that keeps that sentence is not refused `icp_missing`,
    and one that rewrites it must name an ICP the gate knows."""
    page = f"/api/public/content/pages/{brief()['slug']}"
    merge = {**KEY, "content-type": "application/merge-patch+json"}
    created = client.post(
        GENERATE,
        json=brief(icp="practice managers at dental clinics", generate_image=False),
        headers=KEY,
    )
    hero = created.get_json()["page"]["blocks"][0]

    edited = client.patch(page, data='{"title": "A booking audit"}', headers=merge)
    published = client.patch(page, data='{"is_published": true}', headers=merge)
    restored = client.post(f"{page}/versions/1/restore", headers=KEY)
    rewritten = client.patch(
        page,
        json={"blocks": [{**hero, "sub": "For practice managers who want more bookings."}]},
        headers=merge,
    )

    assert created.status_code == 201
    assert "practice managers at dental clinics" in hero["sub"]
    assert [edited.status_code, published.status_code, restored.status_code] == [200, 200, 200]
    assert published.get_json()["page"]["status"] == "published"
    assert rewritten.status_code == 422
    assert [i["code"] for i in rewritten.get_json()["issues"]] == ["icp_missing"]


@pytest.mark.spec("content.generate")
def test_a_generated_page_keeps_the_proof_quote_a_brand_rule_allows_through_later_edits(
    client: FlaskClient,
) -> None:
    """content-api.md The quality gate: a phrase allowed inside a customer quote the brief's
    proof gives ("game-changer") stays allowed in that quote when the page is edited later;
    the same phrase written anew elsewhere is still `off_brand`."""
    page = f"/api/public/content/pages/{brief()['slug']}"
    merge = {**KEY, "content-type": "application/merge-patch+json"}
    quote = '"A game-changer for our pipeline reviews" - Dana Ruiz, VP Growth at Acme'
    created = client.post(
        GENERATE, json=brief(proof=[quote], generate_image=False), headers=KEY
    ).get_json()["page"]
    blocks = created["blocks"]

    edited = client.patch(page, data='{"title": "A pipeline audit"}', headers=merge)
    hyped = client.patch(page, data='{"description": "A game-changer."}', headers=merge)

    assert any(b["type"] == "quote" and "game-changer" in b["quote"] for b in blocks)
    assert edited.status_code == 200
    assert hyped.status_code == 422
    assert [(i["field"], i["code"]) for i in hyped.get_json()["issues"]] == [
        ("description", "off_brand")
    ]
