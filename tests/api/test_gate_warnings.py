"""DESIGN gate severities over HTTP: errors refuse a write, warnings come back beside the page;
and the brand rules document (GET /api/public/content/brand)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.api.content_client import AUTH, PAGES, page_body
from tests.api.test_generate import GENERATE, brief, wire_client
from tests.wire import providers
from tests.wire.server import WireServer

PROMISE = "We report every result, including the numbers that did not move."
BRAND = "/api/public/content/brand"


def promising_page(slug: str = "growth-audit", **fields: Any) -> dict[str, Any]:
    body = page_body(slug, **fields)
    body["blocks"][1] = {"type": "richtext", "title": "Reporting", "markdown": PROMISE}
    return body


def findings(items: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [(i["field"], i["code"], i["severity"]) for i in items]


WARNED = [("blocks.1.markdown", "universal_promise", "warning")]


@pytest.mark.spec("content.gate")
def test_a_page_with_a_promise_is_stored_and_answers_its_warning(client: FlaskClient) -> None:
    """A universal word in a promise is a judgement call: 201, with `warnings[]`."""
    response = client.post(PAGES, json=promising_page(), headers=AUTH)

    assert response.status_code == 201
    assert findings(response.get_json()["warnings"]) == WARNED
    assert response.get_json()["page"]["status"] == "published"


@pytest.mark.spec("content.gate")
def test_patch_and_restore_answer_the_warnings_of_the_page_they_leave(
    client: FlaskClient,
) -> None:
    """PATCH (200) and restore (200) carry the warnings of the page as it now stands."""
    client.post(PAGES, json=promising_page(), headers=AUTH)
    plain = {"blocks": page_body()["blocks"]}

    cleared = client.patch(f"{PAGES}/growth-audit", json=plain, headers=AUTH)
    restored = client.post(f"{PAGES}/growth-audit/versions/1/restore", headers=AUTH)

    assert cleared.status_code == 200
    assert cleared.get_json()["warnings"] == []
    assert restored.status_code == 200
    assert findings(restored.get_json()["warnings"]) == WARNED


@pytest.mark.spec("content.gate")
def test_a_refused_page_lists_only_errors_each_with_its_severity(client: FlaskClient) -> None:
    """422 `issues[]` are the errors; a warning never refuses a write."""
    body = promising_page(title="x" * 61)

    response = client.post(PAGES, json=body, headers=AUTH)

    assert response.status_code == 422
    assert findings(response.get_json()["issues"]) == [("title", "too_long", "error")]


def test_a_drafts_preview_banner_lists_the_gates_warnings(client: FlaskClient) -> None:
    """DESIGN Pages: the draft banner shows what the gate warned about."""
    page = client.post(PAGES, json=promising_page(is_published=False), headers=AUTH).get_json()

    html = client.get(page["page"]["preview_url"].removeprefix("http://testserver")).text

    assert 'class="draft-warnings"' in html
    assert "blocks.1.markdown" in html
    assert "universal_promise" in html


def test_a_drafts_preview_without_warnings_lists_none(client: FlaskClient) -> None:
    page = client.post(PAGES, json=page_body(is_published=False), headers=AUTH).get_json()

    html = client.get(page["page"]["preview_url"].removeprefix("http://testserver")).text

    assert "Draft preview." in html
    assert "draft-warnings" not in html


def promising_answer(request: Any) -> dict[str, Any]:
    page = providers.good_page(request)
    page["blocks"].insert(1, {"type": "richtext", "title": "Reporting", "markdown": PROMISE})
    return page


@pytest.fixture
def wire() -> Iterator[WireServer]:
    server = WireServer(providers.openai_page(promising_answer)).start()
    yield server
    server.stop()


@pytest.fixture
def wired(tmp_path: Path, wire: WireServer) -> Iterator[FlaskClient]:
    yield from wire_client(tmp_path, wire)


@pytest.mark.spec("content.generate")
def test_a_generated_page_with_a_promise_publishes_at_once_with_its_warning(
    wired: FlaskClient, wire: WireServer
) -> None:
    """One writer call: the warning is returned on the answer and the job, never retried."""
    client = wired

    response = client.post(GENERATE, json=brief(), headers=AUTH)
    body = response.get_json()
    polled = client.get(body["job"]["url"], headers=AUTH).get_json()

    assert response.status_code == 201
    assert wire.calls == 1
    assert WARNED[0] in findings(body["warnings"])
    assert body["job"]["warnings"] == body["warnings"]
    assert polled["warnings"] == body["warnings"]
    assert polled["job"]["warnings"] == body["warnings"]


@pytest.mark.spec("content.brand")
def test_the_brand_document_answers_the_rules_the_gate_applies(client: FlaskClient) -> None:
    """Ruleset, ICP vocabulary, banned phrases with reasons and alternatives, allowances,
    each rule's code and severity, and the limits of every field."""
    stored = client.post(PAGES, json=page_body(), headers=AUTH).get_json()["page"]

    response = client.get(BRAND, headers=AUTH)
    brand = response.get_json()["brand"]

    assert response.status_code == 200
    assert brand["ruleset"] == stored["gate"]["ruleset"]
    assert "b2b saas" in brand["icp_vocabulary"]
    seamless = next(b for b in brand["banned_wording"] if b["phrase"] == "seamless")
    assert seamless["reason"]
    assert seamless["suggest"]
    assert seamless["allow"] == ["negated", "proof_quote"]
    assert set(brand["allowances"]) == {"negated", "proof_quote"}
    severities = {rule["code"]: rule["severity"] for rule in brand["rules"]}
    assert severities["unsupported_claim"] == "error"
    assert severities["universal_promise"] == "warning"
    limits = {limit["field"]: limit for limit in brand["limits"]}
    assert limits["blocks[hero].sub"]["max_length"] == 220
    assert limits["blocks[stats].items"]["max_items"] == 4
    assert limits["title"]["max_length"] == 60


def test_every_code_the_gate_gives_is_a_rule_of_the_document(client: FlaskClient) -> None:
    """A gate finding names the rule it broke: its code is one of the document's rules."""
    rules = {rule["code"] for rule in client.get(BRAND, headers=AUTH).get_json()["brand"]["rules"]}
    body = promising_page(title="x" * 61, description="A seamless audit", cta_href="http://x.io")
    body["blocks"][0]["sub"] = "Not for B2B SaaS companies."

    issues = client.post(PAGES, json=body, headers=AUTH).get_json()["issues"]

    assert {i["code"] for i in issues} == {"too_long", "off_brand", "unsafe_url", "icp_missing"}
    assert {i["code"] for i in issues} <= rules


def test_the_brand_document_needs_the_content_key(client: FlaskClient) -> None:
    assert client.get(BRAND).status_code == 401
