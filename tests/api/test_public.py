"""SPEC.md "Public read (no key)": the six read endpoints, their bodies, caching and CORS."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

READ_PATHS = [
    "/api/public/v1/company",
    "/api/public/v1/blog",
    "/api/public/v1/research",
    "/api/public/v1/careers",
]


@pytest.mark.spec("public.company")
def test_company_answers_ok_with_a_name_and_named_agents(client: FlaskClient) -> None:
    """SPEC Resources/Company: an object with `name` and `agents[].name`."""
    response = client.get("/api/public/v1/company")

    body = response.get_json()
    assert response.status_code == 200
    assert body["ok"] is True
    assert body["company"]["name"]
    assert all(agent["name"] for agent in body["company"]["agents"])


@pytest.mark.spec("public.blog")
def test_blog_lists_posts_with_string_fields_and_absolute_urls(client: FlaskClient) -> None:
    """SPEC BlogPost: slug, title, author, url (all strings)."""
    posts = client.get("/api/public/v1/blog").get_json()["posts"]

    assert len(posts) >= 6
    for post in posts:
        assert {k: type(post[k]) for k in ("slug", "title", "author", "url")} == dict.fromkeys(
            ("slug", "title", "author", "url"), str
        )
        assert post["url"].startswith("https://")


@pytest.mark.spec("public.research")
def test_research_lists_experiments_with_every_spec_field_as_a_string(client: FlaskClient) -> None:
    """SPEC Experiment: ten string fields."""
    experiments = client.get("/api/public/v1/research").get_json()["experiments"]

    fields = (
        "slug",
        "title",
        "tag",
        "status",
        "excerpt",
        "author",
        "date",
        "readTime",
        "surface",
        "url",
    )
    assert len(experiments) >= 8
    for experiment in experiments:
        assert all(isinstance(experiment[f], str) for f in fields)
        assert "body" not in experiment


@pytest.mark.spec("public.research.detail")
def test_experiment_detail_returns_the_record_with_its_body(client: FlaskClient) -> None:
    slug = client.get("/api/public/v1/research").get_json()["experiments"][0]["slug"]

    body = client.get(f"/api/public/v1/research/{slug}").get_json()

    assert body["ok"] is True
    assert body["experiment"]["slug"] == slug
    assert len(body["experiment"]["body"]) > 200


@pytest.mark.spec("public.careers")
def test_careers_lists_roles_with_boolean_is_new(client: FlaskClient) -> None:
    roles = client.get("/api/public/v1/careers").get_json()["roles"]

    assert len(roles) >= 5
    assert all(isinstance(role["isNew"], bool) for role in roles)
    assert all(
        isinstance(role[f], str)
        for role in roles
        for f in ("slug", "code", "title", "tagline", "location", "type", "url")
    )


@pytest.mark.spec("public.careers.detail")
def test_role_detail_returns_the_role_with_its_description(client: FlaskClient) -> None:
    slug = client.get("/api/public/v1/careers").get_json()["roles"][0]["slug"]

    body = client.get(f"/api/public/v1/careers/{slug}").get_json()

    assert body["role"]["slug"] == slug
    assert body["role"]["description"]


@pytest.mark.parametrize("path", ["/api/public/v1/research/nope", "/api/public/v1/careers/nope"])
def test_unknown_slug_answers_exactly_the_spec_404_body(client: FlaskClient, path: str) -> None:
    """SPEC Errors: public read body is `{error, slug}`."""
    response = client.get(path)

    assert response.status_code == 404
    assert response.mimetype == "application/json"
    assert response.get_json() == {"error": "not_found", "slug": "nope"}


@pytest.mark.parametrize("path", READ_PATHS)
def test_public_reads_are_cacheable_with_open_cors_and_a_strong_etag(
    client: FlaskClient, path: str
) -> None:
    """DESIGN: ACAO *, public max-age=300 s-maxage=3600, strong ETag."""
    response = client.get(path)

    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert response.headers["Cache-Control"] == "public, max-age=300, s-maxage=3600"
    assert response.headers["ETag"].startswith('"')


@pytest.mark.parametrize("path", READ_PATHS)
def test_if_none_match_with_the_etag_answers_304_with_no_body(
    client: FlaskClient, path: str
) -> None:
    etag = client.get(path).headers["ETag"]

    response = client.get(path, headers={"If-None-Match": etag})

    assert response.status_code == 304
    assert response.data == b""
    assert response.headers["ETag"] == etag


def test_head_answers_the_get_headers_without_a_body(client: FlaskClient) -> None:
    response = client.head("/api/public/v1/company")

    assert response.status_code == 200
    assert response.data == b""
    assert response.headers["ETag"]


def test_options_preflight_answers_with_cors_headers(client: FlaskClient) -> None:
    response = client.options(
        "/api/public/v1/company",
        headers={"Origin": "https://partner.example", "Access-Control-Request-Method": "GET"},
    )

    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "GET" in response.headers["Access-Control-Allow-Methods"]


def test_unknown_route_answers_json_404_problem(client: FlaskClient) -> None:
    """DESIGN: unknown routes answer 404 `not_found` as JSON."""
    response = client.get("/api/public/v1/nothing-here")

    body = response.get_json()
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"
    assert body["ok"] is False
    assert body["error"] == "not_found"
    assert body["status"] == 404
    assert body["type"].endswith("/errors/not_found")
    assert body["instance"] == response.headers["X-Request-Id"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/public/v1//company"),
        ("GET", "/api/public/v1/research//"),
        ("POST", "/api/public/content//pages"),
    ],
)
def test_a_path_with_doubled_slashes_is_a_404_not_a_redirect_to_the_host_sent(
    client: FlaskClient, method: str, path: str
) -> None:
    """Unknown routes answer 404 (DESIGN). A redirect built from the request would name the
    Host the client sent and the scheme the proxy spoke (http behind TLS), and a client that
    follows a 308 sends its body and `x-api-key` again, there."""
    response = client.open(path, method=method, headers={"Host": "elsewhere.example"})

    assert response.status_code == 404
    assert "Location" not in response.headers
    assert response.mimetype == "application/problem+json"


def test_wrong_method_answers_json_405_with_allow(client: FlaskClient) -> None:
    response = client.post("/api/public/v1/company")

    assert response.status_code == 405
    assert response.get_json()["error"] == "method_not_allowed"
    assert "GET" in response.headers["Allow"]


def test_a_304_carries_the_validators_and_cors_but_no_content_headers(client: FlaskClient) -> None:
    """RFC 9110 15.4.5: a 304 sends ETag and Cache-Control, never the body's Content-*."""
    etag = client.get("/api/public/v1/company").headers["ETag"]

    response = client.get("/api/public/v1/company", headers={"If-None-Match": f'W/{etag}, "x"'})

    assert response.status_code == 304
    assert response.headers["ETag"] == etag
    assert response.headers["Cache-Control"] == "public, max-age=300, s-maxage=3600"
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "Content-Type" not in response.headers
    assert "Content-Length" not in response.headers


def test_head_announces_the_length_of_the_get_body(client: FlaskClient) -> None:
    """HEAD answers the GET's headers (RFC 9110 9.3.2), Content-Length included."""
    body = client.get("/api/public/v1/blog").data

    response = client.head("/api/public/v1/blog")

    assert response.headers["Content-Length"] == str(len(body))
    assert response.headers["Content-Type"] == "application/json"
