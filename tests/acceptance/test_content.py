"""SPEC.md "Content API", `/p/{slug}` and generation over HTTP, in both modes."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from tests.acceptance.conftest import Service
from tests.api.content_client import page_body
from tests.polling import wait_for

pytestmark = pytest.mark.emulator

PAGES = "/api/public/content/pages"


def key(service: Service) -> dict[str, str]:
    return {"x-api-key": service.content_key}


def brief(slug: str, **changes: Any) -> dict[str, Any]:
    return {
        "slug": slug,
        "topic": "Attribution you can check",
        "icp": "Heads of growth at Series A SaaS companies",
        "offer": "A reconciled attribution table with every disagreement flagged.",
        **changes,
    }


@pytest.mark.spec("content.create")
def test_a_page_is_created_read_listed_patched_unpublished_and_republished(
    http: httpx.Client, service: Service, slug: str
) -> None:
    """SPEC States and transitions: published, unpublished (soft delete), published again."""
    created = http.post(PAGES, json=page_body(slug), headers=key(service))
    read = http.get(f"{PAGES}/{slug}", headers=key(service))
    listed = http.get(PAGES, headers=key(service))
    patched = http.patch(
        f"{PAGES}/{slug}", json={"title": "A growth audit in ten days"}, headers=key(service)
    )
    live = http.get(f"/p/{slug}")
    unpublished = http.delete(f"{PAGES}/{slug}", headers=key(service))
    gone = http.get(f"/p/{slug}")
    republished = http.patch(f"{PAGES}/{slug}", json={"is_published": True}, headers=key(service))
    back = http.get(f"/p/{slug}")

    assert created.status_code == 201, created.json()
    assert created.json()["page"]["status"] == "published"
    assert read.status_code == 200
    assert read.headers["etag"]
    assert slug in [page["slug"] for page in listed.json()["pages"]]
    assert patched.status_code == 200
    assert patched.json()["page"]["title"] == "A growth audit in ten days"
    assert live.status_code == 200
    assert "A growth audit in ten days" in live.text
    assert unpublished.status_code == 200
    assert unpublished.json()["page"]["status"] == "unpublished"
    assert gone.status_code in (404, 410)
    assert republished.json()["page"]["status"] == "published"
    assert back.status_code == 200


@pytest.mark.spec("content.create")
def test_a_page_failing_the_gate_answers_422_naming_the_field(
    http: httpx.Client, service: Service, slug: str
) -> None:
    """SPEC Quality gate: the hero subcopy must name the ICP; 422 invalid_payload, issues[]."""
    body = page_body(slug)
    body["blocks"][0]["sub"] = "Find the leaks in your funnel."

    response = http.post(PAGES, json=body, headers=key(service))

    assert response.status_code == 422
    assert response.json()["error"] == "invalid_payload"
    assert {"field": "blocks.0.sub", "code": "icp_missing"} in [
        {"field": i["field"], "code": i["code"]} for i in response.json()["issues"]
    ]


@pytest.mark.spec("content.create")
def test_a_retried_post_with_the_same_idempotency_key_replays_the_first_answer(
    http: httpx.Client, service: Service, slug: str
) -> None:
    """DESIGN Idempotency-Key: a repeat returns the stored first result."""
    headers = {**key(service), "Idempotency-Key": str(uuid.uuid4())}

    first = http.post(PAGES, json=page_body(slug), headers=headers)
    again = http.post(PAGES, json=page_body(slug), headers=headers)

    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert http.get(f"{PAGES}/{slug}", headers=key(service)).json()["page"]["version"] == 1


@pytest.mark.spec("pages.serve")
def test_a_draft_is_not_served_at_its_public_path(
    http: httpx.Client, service: Service, slug: str
) -> None:
    """DESIGN Pages: `is_published: false` gives a draft; /p/{slug} serves only published ones."""
    created = http.post(PAGES, json=page_body(slug, is_published=False), headers=key(service))

    response = http.get(f"/p/{slug}")

    assert created.json()["page"]["status"] == "draft"
    assert response.status_code == 404


@pytest.mark.spec("content.generate")
def test_generate_answers_201_with_a_draft_written_by_the_template_writer(
    http: httpx.Client, service: Service, slug: str
) -> None:
    """SPEC Generation flow: without `publish` the generated page is a reviewable draft."""
    response = http.post(f"{PAGES}/generate", json=brief(slug), headers=key(service))

    assert response.status_code == 201, response.json()
    assert response.json()["page"]["status"] == "draft"
    assert response.json()["page"]["source"] == "generate"
    assert response.json()["job"]["status"] == "succeeded"


@pytest.mark.spec("content.generate")
def test_generate_with_respond_async_answers_202_and_the_job_reaches_succeeded(
    http: httpx.Client, service: Service, slug: str
) -> None:
    """DESIGN Generation: `Prefer: respond-async` gives 202 and a Location to poll."""
    headers = {**key(service), "Prefer": "respond-async"}

    accepted = http.post(f"{PAGES}/generate", json=brief(slug, publish=True), headers=headers)

    assert accepted.status_code == 202, accepted.json()
    location = accepted.headers["location"]
    wait_for(
        lambda: http.get(location, headers=key(service)).json()["job"]["status"] == "succeeded",
        timeout=60,
        what="job succeeded",
    )
    assert http.get(f"/p/{slug}").status_code == 200
