"""The docs: the served OpenAPI, content-api.md, llms-full.txt and AGENTS.md describe
ownership, history, restore and rate limits (their examples run in tests/test_docs_examples.py)."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

pytestmark = pytest.mark.spec("files.docs")

PAGE = "/api/public/content/pages/{slug}"


@pytest.mark.parametrize("path", ["/content-api.md", "/llms-full.txt", "/AGENTS.md"])
def test_the_docs_describe_ownership_history_restore_and_rate_limits(
    client: FlaskClient, path: str
) -> None:
    """Each doc names slug_taken, the history routes and the RateLimit fields."""
    text = client.get(path).text

    for words in ("slug_taken", "/versions", "/restore", "RateLimit-Policy", "Retry-After"):
        assert words in text, (path, words)


def test_openapi_documents_the_history_routes_and_the_rate_limit_fields(
    client: FlaskClient,
) -> None:
    """Versions, one version and restore are operations; a 429 names its fields."""
    document = client.get("/openapi.json").get_json()
    paths = document["paths"]

    restore = paths[f"{PAGE}/versions/{{n}}/restore"]["post"]
    listed = paths[f"{PAGE}/versions"]["get"]

    assert paths[f"{PAGE}/versions/{{n}}"]["get"]["operationId"] == "getPageVersion"
    assert {p["name"] for p in restore["parameters"]} >= {"If-Match", "Idempotency-Key", "n"}
    assert "requestBody" not in restore
    assert {"200", "404", "409", "412", "422", "429"} <= set(restore["responses"])
    assert {p["name"] for p in listed["parameters"]} >= {"cursor", "limit"}
    assert set(listed["responses"]["429"]["headers"]) == {
        "Retry-After",
        "RateLimit-Policy",
        "RateLimit",
    }
    assert "slug_taken" in document["paths"]["/api/public/content/pages"]["post"]["description"]
