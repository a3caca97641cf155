"""SPEC "Machine-readable files": every file answers by plain GET with its type, open CORS,
a strong ETag and 304; the OpenAPI document covers every endpoint; the portal every operation."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from xml.etree import ElementTree as ET

import pytest
from flask import Flask
from flask.testing import FlaskClient
from openapi_spec_validator import validate

from api.app import create_app
from api.rest.files import FILE_PATHS, create_files_blueprint, render_files
from backends.bundle import Backends
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from renderers.sitemap import IMAGE_NS, SITEMAP_NS, SitemapEntry
from tests.emulators import REPO

BASE = "http://testserver"
FILES = {
    "/openapi.json": "application/json",
    "/api/openapi.json": "application/json",
    "/llms.txt": "text/plain",
    "/llms-full.txt": "text/plain",
    "/AGENTS.md": "text/markdown",
    "/content-api.md": "text/markdown",
    "/signals-api.md": "text/markdown",
    "/signals-agent.md": "text/markdown",
    "/mcp.md": "text/markdown",
    "/sitemap.xml": "application/xml",
    "/sitemap-images.xml": "application/xml",
    "/robots.txt": "text/plain",
    "/developers": "text/html",
    "/developers.json": "application/json",
    "/developers.md": "text/markdown",
}
# SPEC.md "Endpoints" tables and the machine-readable table, as written there.
SPEC_ENDPOINTS = [
    ("get", "/api/public/v1/company"),
    ("get", "/api/public/v1/blog"),
    ("get", "/api/public/v1/research"),
    ("get", "/api/public/v1/research/{slug}"),
    ("get", "/api/public/v1/careers"),
    ("get", "/api/public/v1/careers/{slug}"),
    ("post", "/api/public/content/pages"),
    ("get", "/api/public/content/pages"),
    ("post", "/api/public/content/pages/generate"),
    ("get", "/api/public/content/pages/{slug}"),
    ("patch", "/api/public/content/pages/{slug}"),
    ("delete", "/api/public/content/pages/{slug}"),
    ("get", "/api/public/v1/signals"),
    ("get", "/api/public/v1/signals/accounts"),
    ("get", "/api/public/v1/signals/accounts/{domain}"),
    ("get", "/api/public/v1/signals/people/{email}"),
    ("post", "/mcp"),
    ("get", "/.well-known/oauth-authorization-server"),
    ("get", "/.well-known/oauth-protected-resource"),
    ("get", "/p/{slug}"),
    *(("get", path) for path in FILES),
]
# DESIGN.md "Contract decisions": the endpoints it adds to SPEC's.
DESIGN_ENDPOINTS = [
    ("get", "/api/public/content/jobs/{id}"),
    ("get", "/api/public/content/brand"),
    ("get", "/api/public/content/pages/{slug}/versions"),
    ("get", "/api/public/content/pages/{slug}/versions/{n}"),
    ("post", "/api/public/content/pages/{slug}/versions/{n}/restore"),
    ("get", "/api/public/content/pages/{slug}/experiment"),
    ("post", "/api/public/content/pages/{slug}/experiment/end"),
    ("get", "/api/public/content/pages/{slug}/stats"),
    ("delete", "/api/public/v1/signals/people/{email}"),
    ("post", "/api/public/v1/signals/events"),
    ("post", "/api/public/v1/collect"),
    ("post", "/api/public/v1/signals/webhooks"),
    ("get", "/api/public/v1/signals/webhooks"),
    ("delete", "/api/public/v1/signals/webhooks/{id}"),
    ("post", "/api/public/v1/signals/webhooks/{id}/rotate"),
    ("get", "/api/public/v1/signals/webhooks/{id}/deliveries"),
    ("post", "/api/public/v1/signals/webhooks/deliveries/{delivery_id}/replay"),
]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    """One app for the module: these tests only read files rendered at start."""
    settings = Settings(data_dir=tmp_path_factory.mktemp("files"), public_base_url=BASE)
    backends = build_backends(settings)
    yield create_app(app_config(settings), backends).test_client()
    backends.close()


@pytest.fixture(scope="module")
def openapi(client: FlaskClient) -> dict:  # type: ignore[type-arg]
    document: dict = client.get("/openapi.json").get_json()  # type: ignore[type-arg]
    return document


@pytest.mark.spec("files.table")
@pytest.mark.parametrize(("path", "media"), FILES.items())
def test_each_file_answers_with_its_type_open_cors_and_a_strong_etag(
    client: FlaskClient, path: str, media: str
) -> None:
    """SPEC Machine-readable files: plain GET, open CORS, cacheable (DESIGN: strong ETag)."""
    response = client.get(path)

    assert response.status_code == 200
    assert response.mimetype == media
    if media.startswith("text/"):
        assert response.mimetype_params.get("charset") == "utf-8"
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert response.headers["Cache-Control"].startswith("public, max-age=300")
    assert re.fullmatch(r'"[0-9a-f]{32}"', response.headers["ETag"])


@pytest.mark.spec("files.table")
@pytest.mark.parametrize("path", FILES)
def test_each_file_answers_304_to_its_own_etag(client: FlaskClient, path: str) -> None:
    """DESIGN Public reads and files: If-None-Match with the current ETag answers 304."""
    etag = client.get(path).headers["ETag"]

    response = client.get(path, headers={"If-None-Match": etag})

    assert response.status_code == 304
    assert response.data == b""
    assert response.headers["ETag"] == etag


@pytest.mark.parametrize("path", FILES)
def test_no_file_shows_a_reader_an_unexpanded_base_url_placeholder(
    client: FlaskClient, path: str
) -> None:
    """What a reader sees (the OpenAPI field descriptions, the portal, the docs) names real
    URLs of this deployment or says it in words, never a literal `{base_url}`."""
    body = client.get(path).get_data(as_text=True)

    assert "{base_url}" not in body
    assert "{{base_url}}" not in body


def test_a_page_records_url_field_reads_as_plain_words_with_an_example(
    openapi: dict,  # type: ignore[type-arg]
) -> None:
    """The stored page's `url`: where the page answers, in words, with an example URL."""
    url = openapi["components"]["schemas"]["PageRecord"]["properties"]["url"]

    assert url["description"].startswith("The page's public URL")
    assert url["examples"] == [f"{BASE}/p/pipeline-audit"]


@pytest.mark.spec("files.table")
def test_files_answer_head_and_cors_preflight(client: FlaskClient) -> None:
    """SPEC Machine-readable files: CORS is open (preflight included)."""
    head = client.head("/llms.txt")
    preflight = client.options("/openapi.json", headers={"Origin": "https://agent.example"})

    assert head.status_code == 200
    assert head.data == b""
    assert preflight.status_code == 200
    assert preflight.headers["Access-Control-Allow-Origin"] == "*"


@pytest.mark.spec("files.openapi")
def test_openapi_is_a_valid_3_1_document_version_1_0_0_served_twice(
    client: FlaskClient,
    openapi: dict,  # type: ignore[type-arg]
) -> None:
    """SPEC Versioning 3: OpenAPI 3.1, description version 1.0.0, also at /api/openapi.json."""
    validate(openapi)

    assert openapi["openapi"].startswith("3.1")
    assert openapi["info"]["version"] == "1.0.0"
    assert openapi["servers"][0]["url"] == BASE
    assert client.get("/api/openapi.json").get_json() == openapi


@pytest.mark.spec("files.openapi")
def test_openapi_documents_every_spec_and_design_endpoint(openapi: dict) -> None:  # type: ignore[type-arg]
    """SPEC Endpoints: every method and path of the tables is an operation with an id."""
    documented = {(m, p) for p, ops in openapi["paths"].items() for m in ops}

    missing = [e for e in SPEC_ENDPOINTS + DESIGN_ENDPOINTS if e not in documented]

    assert missing == []
    ids = [op["operationId"] for ops in openapi["paths"].values() for op in ops.values()]
    assert len(ids) == len(set(ids))


@pytest.mark.spec("files.openapi")
def test_openapi_names_the_security_scheme_of_each_surface(openapi: dict) -> None:  # type: ignore[type-arg]
    """SPEC Authentication: none, x-api-key (and bearer for signals and ingest), OAuth 2.1 for
    /mcp."""
    paths = openapi["paths"]
    schemes = openapi["components"]["securitySchemes"]

    assert paths["/api/public/v1/company"]["get"]["security"] == []
    assert paths["/api/public/content/pages"]["post"]["security"] == [{"contentKey": []}]
    assert paths["/api/public/v1/signals"]["get"]["security"] == [
        {"signalsKey": []},
        {"signalsBearer": []},
    ]
    assert paths["/api/public/v1/signals/events"]["post"]["security"] == [
        {"ingestKey": []},
        {"ingestBearer": []},
    ]
    assert paths["/mcp"]["post"]["security"] == [{"oauth2": ["openid", "email", "profile"]}]
    assert schemes["contentKey"] == {
        "type": "apiKey",
        "in": "header",
        "name": "x-api-key",
        "description": schemes["contentKey"]["description"],
    }
    assert schemes["signalsBearer"]["scheme"] == "bearer"
    flow = schemes["oauth2"]["flows"]["authorizationCode"]
    assert set(flow["scopes"]) == {"openid", "email", "profile"}


@pytest.mark.spec("files.openapi")
def test_openapi_errors_are_problems_and_the_public_404_is_the_exact_body(
    openapi: dict,  # type: ignore[type-arg]
) -> None:
    """SPEC Errors: problem bodies; the public read 404 is `{error, slug}`."""
    paths = openapi["paths"]
    public_404 = paths["/api/public/v1/research/{slug}"]["get"]["responses"]["404"]
    content_401 = paths["/api/public/content/pages"]["post"]["responses"]["401"]

    assert public_404["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/NotFoundBody"
    }
    assert content_401["content"]["application/problem+json"]["schema"] == {
        "$ref": "#/components/schemas/Problem"
    }
    assert openapi["components"]["schemas"]["NotFoundBody"]["required"] == ["error", "slug"]


@pytest.mark.spec("files.developers")
def test_portal_lists_every_operation_with_method_path_and_curl(
    client: FlaskClient,
    openapi: dict,  # type: ignore[type-arg]
) -> None:
    """SPEC files /developers: the API reference rendered from the OpenAPI document."""
    html = client.get("/developers").get_data(as_text=True)
    markdown = client.get("/developers.md").get_data(as_text=True)

    for path, ops in openapi["paths"].items():
        for method, op in ops.items():
            assert f'id="op-{op["operationId"]}"' in html
            assert f"### {method.upper()} {path}" in markdown
    assert 'aria-label="Response fields of getCompany"' in html
    assert 'aria-label="Request fields of createPage"' in html
    assert "<script" not in html
    assert not re.search(r'(src|href)="(https?:)?//(?!testserver)', html)
    assert html.count("<pre><code>curl ") >= len(openapi["paths"])


@pytest.mark.spec("files.developers")
@pytest.mark.parametrize("path", ["/developers", "/errors/rate_limited"])
def test_the_portal_and_error_code_pages_link_the_brand_icon_the_site_serves(
    client: FlaskClient, path: str
) -> None:
    """Their tabs show the brand icon, as the landing pages' do; without the link a browser
    asks for /favicon.ico, which is a 404 (a console error on every visit)."""
    html = client.get(path).get_data(as_text=True)

    found = re.search(r'<link rel="icon" href="(/static/favicon\.[0-9a-f]{12}\.svg)"', html)
    assert found is not None
    icon = client.get(found.group(1))
    assert (icon.status_code, icon.mimetype) == (200, "image/svg+xml")


@pytest.mark.spec("files.developers")
def test_manifest_links_every_file_and_api_with_auth_modes(client: FlaskClient) -> None:
    """SPEC files /developers.json: the portal's JSON manifest."""
    manifest = client.get("/developers.json").get_json()

    assert {f["path"] for f in manifest["files"]} == set(FILES)
    assert {a["name"] for a in manifest["apis"]} >= {"Public", "Content", "Signals", "Tools"}
    assert {a["mode"] for a in manifest["auth"]} == {"none", "api_key", "bearer", "oauth2"}
    assert manifest["openapi"] == f"{BASE}/openapi.json"
    assert manifest["contact"]["url"]


@pytest.mark.spec("files.llms")
def test_every_link_in_llms_txt_resolves_on_the_app(client: FlaskClient) -> None:
    """SPEC files /llms.txt: its navigation links answer 200."""
    text = client.get("/llms.txt").get_data(as_text=True)

    links = re.findall(r"\]\((\S+?)\)", text)
    # /mcp and the OAuth discovery documents live on the ASGI side (frontdoor.serve), not Flask.
    asgi = ("/mcp", "/.well-known/")
    local = [
        link.removeprefix(BASE)
        for link in links
        if link.startswith(BASE) and not link.removeprefix(BASE).startswith(asgi)
    ]

    assert len(local) >= 15
    assert {path: client.get(path).status_code for path in local} == dict.fromkeys(local, 200)


@pytest.mark.spec("files.sitemaps")
def test_sitemaps_parse_with_their_namespaces_and_robots_names_them(client: FlaskClient) -> None:
    """SPEC files: /sitemap.xml, /sitemap-images.xml, /robots.txt."""
    sitemap = ET.fromstring(client.get("/sitemap.xml").data)  # noqa: S314  # our own output
    images = ET.fromstring(client.get("/sitemap-images.xml").data)  # noqa: S314
    robots = client.get("/robots.txt").get_data(as_text=True)

    assert sitemap.tag == f"{{{SITEMAP_NS}}}urlset"
    locs = [loc.text for loc in sitemap.iter(f"{{{SITEMAP_NS}}}loc")]
    assert f"{BASE}/developers" in locs
    assert all(client.get(str(loc).removeprefix(BASE)).status_code == 200 for loc in locs)
    assert images.tag == f"{{{SITEMAP_NS}}}urlset"
    assert f"Sitemap: {BASE}/sitemap.xml" in robots
    assert f"Sitemap: {BASE}/sitemap-images.xml" in robots
    assert "Disallow: /api/public/content/" in robots
    assert "Disallow: /mcp" in robots


@pytest.mark.spec("files.sitemaps")
def test_sitemaps_list_the_pages_a_provider_gives_with_their_images(backends: Backends) -> None:
    """DESIGN files: landing pages join the sitemaps when a page provider is wired in."""
    pages = [SitemapEntry(f"{BASE}/p/growth-audit", "2026-11-01", (f"{BASE}/assets/h.png",))]
    app = Flask(__name__)
    app.register_blueprint(
        create_files_blueprint(backends.catalog, BASE, page_entries=lambda: pages)
    )
    client = app.test_client()

    sitemap = ET.fromstring(client.get("/sitemap.xml").data)  # noqa: S314  # our own output
    images = ET.fromstring(client.get("/sitemap-images.xml").data)  # noqa: S314

    assert f"{BASE}/p/growth-audit" in [loc.text for loc in sitemap.iter(f"{{{SITEMAP_NS}}}loc")]
    assert [i.text for i in images.iter(f"{{{IMAGE_NS}}}loc")] == [f"{BASE}/assets/h.png"]


@pytest.mark.spec("files.openapi")
def test_openapi_oauth_flow_points_at_the_external_issuer_when_one_is_set(
    backends: Backends,
) -> None:
    """SPEC Authentication: authorization at `{auth_url}/authorize`, token at `{auth_url}/token`."""
    app = Flask(__name__)
    app.register_blueprint(
        create_files_blueprint(backends.catalog, BASE, auth_url="https://idp.example")
    )

    document = app.test_client().get("/openapi.json").get_json()

    flow = document["components"]["securitySchemes"]["oauth2"]["flows"]["authorizationCode"]
    assert flow["authorizationUrl"] == "https://idp.example/authorize"
    assert flow["tokenUrl"] == "https://idp.example/token"


@pytest.mark.spec("errors")
def test_each_problem_type_names_a_page_that_explains_the_code(client: FlaskClient) -> None:
    """DESIGN Contract decisions: `type` is `{base}/errors/{CODE}`, a page that explains it."""
    problem = client.get("/api/public/content/pages").get_json()

    page = client.get(problem["type"].removeprefix(BASE))

    assert problem["type"] == f"{BASE}/errors/unauthorized"
    assert page.status_code == 200
    assert page.mimetype == "text/html"
    assert "<code>unauthorized</code>" in page.get_data(as_text=True)
    assert client.get("/errors/no_such_code").status_code == 404


@pytest.mark.spec("errors")
def test_every_code_a_view_answers_has_its_problem_type_page(client: FlaskClient) -> None:
    """A problem's `type` never leads to a 404: each literal code an answer in api/ is built
    with (an `ApiError`, or an api/errors.py builder that takes its code) has a page (and a row
    in the docs' error tables, built from the same list)."""
    # Where each call takes its code: ApiError(status, code, ...), bad_request(code, ...), ...
    code_at = {"ApiError": 1, "bad_request": 0, "refused_reuse": 0, "conflict": 1}
    codes: set[str] = set()
    for path in (REPO / "api").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            name = getattr(node, "func", None)
            at = code_at.get(getattr(name, "id", getattr(name, "attr", None)) or "")
            if not isinstance(node, ast.Call) or at is None or len(node.args) <= at:
                continue
            code = node.args[at]
            if isinstance(code, ast.Constant) and isinstance(code.value, str):
                codes.add(code.value)

    missing = sorted(c for c in codes if client.get(f"/errors/{c}").status_code != 200)

    assert {"endpoint_disabled", "conflict", "invalid_domain", "unavailable"} <= codes
    assert missing == []


def test_the_routed_file_paths_are_exactly_the_files_rendered(backends: Backends) -> None:
    """The files render on first request, so their routes are known before rendering:
    FILE_PATHS and what render_files gives must be the same set."""
    rendered = render_files(backends.catalog, BASE, auth_url=None)

    assert sorted(rendered) == sorted(FILE_PATHS)
    assert len(FILE_PATHS) == len(set(FILE_PATHS))
