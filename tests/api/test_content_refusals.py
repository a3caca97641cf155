"""What the Content API, the /p/ pages and the sitemaps answer to input a client got wrong and
to an outage of their stores: a 4xx with `issues[]` naming each field, or a 503 to retry, never
a 500 (DESIGN Errors, content-api.md)."""

from __future__ import annotations

import base64
import dataclasses
import json
import re

import pytest
from flask.testing import FlaskClient
from google.cloud import firestore

from api.app import create_app
from backends.bundle import Backends
from backends.gcp.jobs import FirestoreJobStore
from backends.gcp.pages import FirestorePageStore
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from tests.api.content_client import AUTH, PAGES, page_body


def forged_list_cursor(*parts: object) -> str:
    """A pages-list cursor as the service encodes one, holding what a client put in it."""
    raw = json.dumps(list(parts)).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.spec("content.list")
@pytest.mark.parametrize(
    "stamp",
    [
        pytest.param("0001-01-01T00:00:00+14:00", id="before-year-1-in-utc"),
        pytest.param("9999-12-31T23:59:59-14:00", id="after-year-9999-in-utc"),
    ],
)
def test_a_forged_list_cursor_at_the_edge_of_time_answers_400_naming_the_cursor(
    client: FlaskClient, stamp: str
) -> None:
    """content-api.md Listing: `cursor` takes a `next_cursor`; anything else is 400."""
    response = client.get(
        PAGES, query_string={"cursor": forged_list_cursor(stamp, "a")}, headers=AUTH
    )

    body = response.get_json()
    assert response.status_code == 400
    assert body["error"] == "invalid_query"
    assert [i["field"] for i in body["issues"]] == ["cursor"]


@pytest.mark.spec("content.read")
def test_a_page_store_outage_answers_503_unavailable_with_retry_after_on_every_operation(
    settings: Settings, backends: Backends, down_firestore: firestore.Client
) -> None:
    """content-api.md Errors: a store that is down is 503 with Retry-After, never a 500."""
    outage = dataclasses.replace(
        backends, pages=FirestorePageStore(down_firestore), jobs=FirestoreJobStore(down_firestore)
    )
    client = create_app(app_config(settings), outage).test_client()
    page = f"{PAGES}/growth-audit"
    merge = {**AUTH, "content-type": "application/merge-patch+json"}

    answers = [
        client.post(PAGES, json=page_body(), headers=AUTH),
        client.get(PAGES, headers=AUTH),
        client.get(page, headers=AUTH),
        client.patch(page, data=json.dumps({"title": "Audit"}), headers=merge),
        client.delete(page, headers=AUTH),
        client.get(f"{page}/versions", headers=AUTH),
        client.get(f"{page}/versions/1", headers=AUTH),
        client.post(f"{page}/versions/1/restore", headers=AUTH),
        client.get("/api/public/content/jobs/0123456789abcdef", headers=AUTH),
        client.get("/sitemap.xml"),
        client.get("/sitemap-images.xml"),
    ]

    assert [a.status_code for a in answers] == [503] * len(answers)
    assert {a.get_json()["error"] for a in answers} == {"unavailable"}
    assert {a.headers["Retry-After"] for a in answers} == {"5"}


@pytest.mark.spec("pages.serve")
def test_a_visitor_gets_an_on_brand_503_page_the_cdn_never_keeps_while_the_store_is_down(
    settings: Settings, backends: Backends, down_firestore: firestore.Client
) -> None:
    """A visitor is shown a page, not a problem document; it asks to retry and is not cached."""
    visitor = create_app(
        app_config(settings),
        dataclasses.replace(backends, pages=FirestorePageStore(down_firestore)),
    ).test_client()

    response = visitor.get("/p/growth-audit")

    assert response.status_code == 503
    assert response.mimetype == "text/html"
    assert response.headers["Retry-After"] == "5"
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["X-Robots-Tag"] == "noindex"
    assert "briefly unavailable" in response.text


@pytest.mark.spec("files.openapi")
def test_the_openapi_lists_503_on_every_content_operation_and_the_pages(
    client: FlaskClient,
) -> None:
    """The document promises what the endpoints answer (a 503 with Retry-After)."""
    paths = client.get("/openapi.json").get_json()["paths"]
    content = [
        op for path, ops in paths.items() if path.startswith("/api/public/content/") for op in ops
    ]
    operations = [
        paths[path][method]
        for path in paths
        if path.startswith("/api/public/content/")
        or path in ("/p/{slug}", "/sitemap.xml", "/sitemap-images.xml")
        for method in paths[path]
    ]

    served = {
        (method.lower(), re.sub(r"<[^>]+>", "{}", rule.rule))
        for rule in client.application.url_map.iter_rules()
        if rule.rule.startswith("/api/public/content/")
        for method in rule.methods or ()
        if method not in ("HEAD", "OPTIONS")
    }
    documented = {
        (method, re.sub(r"\{[^}]+\}", "{}", path))
        for path, ops in paths.items()
        if path.startswith("/api/public/content/")
        for method in ops
    }
    assert len(content) >= 11  # with GET brand, the rules the gate applies
    assert documented == served  # every content operation the service answers is documented
    assert all("503" in op["responses"] for op in operations)
    assert all("Retry-After" in op["responses"]["503"]["headers"] for op in operations)


CONTENT_OPERATIONS = [
    ("post", PAGES),
    ("get", PAGES),
    ("post", f"{PAGES}/generate"),
    ("get", f"{PAGES}/growth-audit"),
    ("patch", f"{PAGES}/growth-audit"),
    ("delete", f"{PAGES}/growth-audit"),
    ("get", f"{PAGES}/growth-audit/versions"),
    ("get", f"{PAGES}/growth-audit/versions/1"),
    ("post", f"{PAGES}/growth-audit/versions/1/restore"),
    ("get", "/api/public/content/jobs/0123456789abcdef"),
]


@pytest.mark.spec("content.list")
@pytest.mark.parametrize(("method", "path"), CONTENT_OPERATIONS)
def test_every_content_operation_refuses_a_query_parameter_it_does_not_take(
    client: FlaskClient, method: str, path: str
) -> None:
    """content-api.md: a parameter an operation does not know answers 400 naming it, so a typo
    (`?stauts=draft`) or a parameter of another operation never silently widens a request."""
    client.post(PAGES, json=page_body(), headers=AUTH)

    response = client.open(
        path, method=method.upper(), query_string={"stauts": "draft"}, headers=AUTH
    )

    body = response.get_json()
    assert response.status_code == 400
    assert body["error"] == "invalid_query"
    assert [(i["field"], i["code"]) for i in body["issues"]] == [("stauts", "unknown_parameter")]


@pytest.mark.spec("files.openapi")
def test_the_lists_take_exactly_the_query_parameters_the_openapi_documents(
    client: FlaskClient,
) -> None:
    """Every documented parameter is taken; every content operation lists its 400."""
    client.post(PAGES, json=page_body(), headers=AUTH)
    paths = client.get("/openapi.json").get_json()["paths"]
    values = {"status": "published", "partner": "bootstrap", "limit": "5"}

    answers = {}
    for path in (PAGES, f"{PAGES}/{{slug}}/versions"):
        documented = [p["name"] for p in paths[path]["get"]["parameters"] if p["in"] == "query"]
        query = {name: values[name] for name in documented if name in values}
        answers[path] = client.get(
            path.replace("{slug}", "growth-audit"), query_string=query, headers=AUTH
        )

    assert {path: a.status_code for path, a in answers.items()} == dict.fromkeys(answers, 200)
    assert all(
        "400" in paths[path][method]["responses"]
        for path in paths
        if path.startswith("/api/public/content/")
        for method in paths[path]
    )


@pytest.mark.spec("content.read")
def test_the_conditional_requests_answer_what_the_openapi_documents(client: FlaskClient) -> None:
    """content-api.md The stored record: If-None-Match on GET (304), If-Match and
    `If-None-Match: *` on POST (412); PATCH and DELETE may answer 409 `conflict`."""
    created = client.post(PAGES, json=page_body(), headers=AUTH)
    tag = created.headers["ETag"]
    client.patch(f"{PAGES}/growth-audit", json={"title": "Audit"}, headers=AUTH)
    paths = client.get("/openapi.json").get_json()["paths"]

    unchanged = client.get(f"{PAGES}/growth-audit", headers={**AUTH, "If-None-Match": '"v2"'})
    create_only = client.post(PAGES, json=page_body(), headers={**AUTH, "If-None-Match": "*"})
    stale = client.post(PAGES, json=page_body(), headers={**AUTH, "If-Match": tag})

    get_page = paths[f"{PAGES}/{{slug}}"]["get"]
    create = paths[PAGES]["post"]
    assert unchanged.status_code == 304
    assert "304" in get_page["responses"]
    assert "If-None-Match" in [p["name"] for p in get_page["parameters"]]
    assert (create_only.status_code, stale.status_code) == (412, 412)
    assert "412" in create["responses"]
    assert {"If-Match", "If-None-Match"} <= {p["name"] for p in create["parameters"]}
    assert all("409" in paths[f"{PAGES}/{{slug}}"][m]["responses"] for m in ("patch", "delete"))


@pytest.mark.spec("content.create")
@pytest.mark.parametrize(
    ("headers", "data", "status", "field"),
    [
        pytest.param({"content-type": "text/plain"}, b"{}", 415, "Content-Type", id="text-plain"),
        pytest.param({}, b"{}", 415, "Content-Type", id="no-content-type"),
        pytest.param({"content-type": "application/json"}, b"{bad", 400, "", id="not-json"),
        pytest.param({"content-type": "application/json"}, b"[" * 40, 400, "", id="too-deep"),
        pytest.param(
            {"content-type": "application/json"}, b" " * (1024 * 1024 + 1), 413, "", id="over-1mib"
        ),
    ],
)
def test_a_body_refused_before_its_fields_are_read_names_the_body_or_its_content_type(
    client: FlaskClient, headers: dict[str, str], data: bytes, status: int, field: str
) -> None:
    """DESIGN Errors: every 4xx of something the client sent names it in issues[] (`""` is the
    whole body), on page writes and briefs alike."""
    answers = [
        client.post(path, data=data, headers={**AUTH, **headers})
        for path in (PAGES, f"{PAGES}/generate")
    ]

    assert [a.status_code for a in answers] == [status, status]
    assert [[i["field"] for i in a.get_json()["issues"]] for a in answers] == [[field], [field]]


@pytest.mark.spec("content.generate")
def test_a_length_refusal_counts_in_the_singular_and_the_plural(client: FlaskClient) -> None:
    """An issue's message reads as English: "at least 1 character", "at most 8 items"."""
    brief = {"slug": "audit", "topic": "", "icp": "heads of growth", "proof": ["fact"] * 9}

    response = client.post(f"{PAGES}/generate", json=brief, headers=AUTH)

    messages = {i["field"]: i["message"] for i in response.get_json()["issues"]}
    assert response.status_code == 422
    assert messages == {"topic": "at least 1 character", "proof": "at most 8 items"}
