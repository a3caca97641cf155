"""Sizes and counts are checked before any other work (content-api.md "Size limits"): a body
with more commas than any page holds is refused before it is parsed; an array past its limit is
one 422 issue naming it and only its first elements are checked on; an object, or a body's
text, past its bound is refused with that issue alone; and no error answer lists more than 50
issues."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from services.payload_bounds import raw_bound_issue
from tests.api.content_client import AUTH, PAGES, page_body

MERGE = {**AUTH, "content-type": "application/merge-patch+json"}
JSON = {**AUTH, "content-type": "application/json"}
HERO = {"type": "hero", "title": "Find the leaks", "sub": "For heads of growth at B2B SaaS."}


def compact(body: object) -> str:
    """JSON without spaces: a bomb of up to 1 MiB, the body limit."""
    return json.dumps(body, separators=(",", ":"))


def refused(response: Any) -> list[tuple[str, str]]:
    """The (field, code) of each issue of a 422 invalid_payload."""
    body = response.get_json()
    assert response.status_code == 422, body
    assert body["error"] == "invalid_payload"
    return [(issue["field"], issue["code"]) for issue in body["issues"]]


@pytest.mark.spec("content.gate.lengths")
@pytest.mark.parametrize(
    ("fields", "named"),
    [
        pytest.param({"blocks": [{}] * 5_000}, "blocks", id="5000-empty-blocks"),
        pytest.param({"blocks": [{"type": "hero"}] * 5_000}, "blocks", id="5000-hero-blocks"),
        pytest.param({f"x{n}": 1 for n in range(5_000)}, "", id="5000-unknown-fields"),
        pytest.param(
            {"blocks": [{**HERO, **{f"x{n}": 1 for n in range(5_000)}}]},
            "blocks.0",
            id="5000-unknown-block-fields",
        ),
    ],
)
def test_an_array_or_object_bomb_is_one_issue_naming_its_field(
    client: FlaskClient, fields: dict[str, Any], named: str
) -> None:
    """content-api.md Size limits: one issue for the bomb, never one per element."""
    response = client.post(PAGES, data=compact(page_body("bomb", **fields)), headers=JSON)

    issues = refused(response)
    assert issues[0] == (named, "too_many")
    assert len(response.data) < 10_000


@pytest.mark.spec("content.gate.lengths")
@pytest.mark.parametrize(
    "fields",
    [
        pytest.param({"blocks": [{}] * 330_000}, id="330000-empty-blocks"),
        pytest.param({"blocks": [{"type": "hero"}] * 60_000}, id="60000-hero-blocks"),
        pytest.param({f"x{n}": 1 for n in range(60_000)}, id="60000-unknown-fields"),
        pytest.param(
            {"blocks": [{**HERO, **{f"x{n}": 1 for n in range(60_000)}}]},
            id="60000-unknown-block-fields",
        ),
    ],
)
def test_a_body_with_more_commas_than_any_page_holds_is_refused_before_it_is_parsed(
    client: FlaskClient, fields: dict[str, Any]
) -> None:
    """content-api.md Size limits: past 20,000 commas a body is refused from its bytes (the
    largest page needs about 1,500), with that one issue on the whole body."""
    body = compact(page_body("bomb", **fields))
    assert body.count(",") > 20_000

    response = client.post(PAGES, data=body, headers=JSON)

    assert refused(response) == [("", "too_many")]
    assert "20,000 commas" in response.get_json()["issues"][0]["message"]
    assert len(response.data) < 1_000


@pytest.mark.spec("content.gate.lengths")
def test_a_page_with_many_commas_in_its_copy_is_not_refused_by_the_comma_bound() -> None:
    """The largest page the schema allows, its copy a comma every ten characters, stays under
    the bound: 30 richtext blocks of 4,000 characters."""
    prose = "Yes, then " * 400
    body = compact(
        page_body(
            "commas",
            blocks=[HERO, *({"type": "richtext", "markdown": prose[:4_000]} for _ in range(29))],
        )
    )

    assert raw_bound_issue(body.encode()) is None


@pytest.mark.spec("content.gate.lengths")
def test_a_page_with_more_than_150000_characters_of_text_is_refused_as_too_long(
    client: FlaskClient,
) -> None:
    """content-api.md Size limits: FAQ answers have no length of their own; the body's text has."""
    items = [{"q": "How long?", "a": "Two weeks. " * 1_500} for _ in range(12)]
    body = page_body("long-faq", blocks=[HERO, {"type": "faq", "items": items}])

    response = client.post(PAGES, json=body, headers=AUTH)

    assert refused(response) == [("", "too_long")]


@pytest.mark.spec("content.patch")
def test_a_patch_that_makes_a_page_an_array_bomb_is_refused_naming_blocks(
    client: FlaskClient,
) -> None:
    """content-api.md Size limits: PATCH runs the same bounds on the merged page."""
    assert client.post(PAGES, json=page_body("patched"), headers=AUTH).status_code == 201

    response = client.patch(
        f"{PAGES}/patched", data=compact({"blocks": [HERO] * 3_000}), headers=MERGE
    )

    issues = refused(response)
    assert issues[0] == ("blocks", "too_many")
    assert set(issues[1:]) == {(f"blocks.{n}", "hero_not_unique") for n in range(1, 30)}
    assert client.get(f"{PAGES}/patched", headers=AUTH).get_json()["page"]["version"] == 1


@pytest.mark.spec("content.generate")
def test_a_brief_with_20000_unknown_fields_is_one_issue(client: FlaskClient) -> None:
    """content-api.md Size limits: briefs are bounded as pages are."""
    brief = {"slug": "bomb", "topic": "Audits", "icp": "Heads of growth"}
    brief.update({f"x{n}": "y" for n in range(20_000)})

    response = client.post(f"{PAGES}/generate", data=compact(brief), headers=JSON)

    assert refused(response) == [("", "too_many")]


@pytest.mark.spec("content.gate.all_at_once")
def test_an_error_answer_lists_50_issues_and_counts_the_rest(client: FlaskClient) -> None:
    """content-api.md Errors: at most 50 issues, `issues_omitted` counts the others."""
    cards = [{"type": "features", "items": [{}] * 8} for _ in range(29)]
    body = page_body("many-issues", blocks=[HERO, *cards])

    response = client.post(PAGES, json=body, headers=AUTH)

    found = response.get_json()
    assert len(refused(response)) == 50
    assert found["issues_omitted"] == 29 * 8 * 2 - 50
    assert found["issues"][0] == {
        "field": "blocks.1.items.0.title",
        "code": "missing",
        "message": "required",
        "severity": "error",
    }
