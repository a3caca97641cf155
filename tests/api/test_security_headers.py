"""The security headers of each surface of the served app (README "Security headers"): the app
`python -m frontdoor.serve` serves, with its public URL on https as behind the TLS proxy."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug.test import Client, TestResponse

from api.security_headers import HSTS, HTML_POLICY, OTHER_POLICY
from frontdoor.serve import compose_served_app
from frontdoor.settings import Settings
from frontdoor.wiring import build_backends
from tests.api.content_client import page_body
from tests.conftest import CONTENT_KEY, INGEST_KEY, SIGNALS_KEY

BASE = "https://www.acme.test"
HOST = {"Host": "www.acme.test"}
PAGES = "/api/public/content/pages"


def _client(data_dir: Path, base_url: str) -> Iterator[Client]:
    settings = Settings(
        data_dir=data_dir,
        public_base_url=base_url,
        content_api_key=CONTENT_KEY,
        signals_api_key=SIGNALS_KEY,
        ingest_api_key=INGEST_KEY,
    )
    backends = build_backends(settings)
    yield Client(compose_served_app(settings, backends))
    backends.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Client]:
    yield from _client(tmp_path / "data", BASE)


def _get(client: Client, path: str) -> TestResponse:
    return client.get(path, headers=HOST)


def _baseline(response: TestResponse) -> None:
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Strict-Transport-Security"] == HSTS


def test_json_answers_get_nosniff_hsts_and_a_policy_that_runs_nothing(served: Client) -> None:
    """README Security headers: the JSON API, its errors included."""
    for response in (_get(served, "/api/public/v1/company"), _get(served, "/api/nope")):
        _baseline(response)
        assert response.headers["Content-Security-Policy"] == OTHER_POLICY


def test_keyed_json_answers_get_the_same_headers(served: Client) -> None:
    """README Security headers: the Content and Signal APIs."""
    response = served.get(f"{PAGES}", headers={**HOST, "x-api-key": CONTENT_KEY})

    assert response.status_code == 200
    _baseline(response)
    assert response.headers["Content-Security-Policy"] == OTHER_POLICY


def test_the_developers_page_gets_a_policy_nosniff_and_is_never_framed(served: Client) -> None:
    """README Security headers: /developers had no CSP, nosniff or frame-ancestors."""
    response = _get(served, "/developers")

    assert response.status_code == 200
    _baseline(response)
    assert response.headers["Content-Security-Policy"] == HTML_POLICY
    assert "frame-ancestors 'none'" in HTML_POLICY
    assert "script-src" not in HTML_POLICY  # default-src 'none': no script at all
    assert response.headers["X-Frame-Options"] == "DENY"


def test_published_pages_keep_their_own_policy_and_gain_hsts(served: Client) -> None:
    """README Security headers: /p/ pages keep the policy that fits their JSON-LD."""
    served.post(PAGES, json=page_body("headers"), headers={**HOST, "x-api-key": CONTENT_KEY})

    response = _get(served, "/p/headers")

    assert response.status_code == 200
    _baseline(response)
    assert "'sha256-" in response.headers["Content-Security-Policy"]
    assert response.headers["Content-Security-Policy"].count("frame-ancestors") == 1


def test_a_revalidated_page_gets_none_of_our_headers_over_its_own(served: Client) -> None:
    """README Security headers: a 304 carries none (a browser would store them over the page's)."""
    served.post(PAGES, json=page_body("headers"), headers={**HOST, "x-api-key": CONTENT_KEY})
    etag = _get(served, "/p/headers").headers["ETag"]

    again = served.get("/p/headers", headers={**HOST, "If-None-Match": etag})

    assert again.status_code == 304
    assert "Content-Security-Policy" not in again.headers
    assert "X-Content-Type-Options" not in again.headers


def test_draft_previews_get_the_page_headers(served: Client) -> None:
    """README Security headers: previews are pages (the token never leaves as a referrer)."""
    body = page_body("draft", is_published=False)
    created = served.post(PAGES, json=body, headers={**HOST, "x-api-key": CONTENT_KEY})
    preview = created.get_json()["page"]["preview_url"].removeprefix(BASE)

    response = _get(served, preview)

    assert response.status_code == 200
    _baseline(response)
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    assert response.headers["Referrer-Policy"] == "strict-origin-when-cross-origin"


def test_static_files_get_nosniff_and_a_policy_that_runs_nothing(served: Client) -> None:
    """README Security headers: the site's stylesheet and script."""
    served.post(PAGES, json=page_body("headers"), headers={**HOST, "x-api-key": CONTENT_KEY})
    html = _get(served, "/p/headers").get_data(as_text=True)
    stylesheet = re.search(r'href="(?:https://www\.acme\.test)?(/static/[^"]+\.css)"', html)
    assert stylesheet is not None

    response = _get(served, stylesheet.group(1))

    assert response.status_code == 200
    assert response.mimetype == "text/css"
    _baseline(response)
    assert response.headers["Content-Security-Policy"] == OTHER_POLICY


def test_the_mcp_endpoint_and_oauth_metadata_get_the_same_headers(served: Client) -> None:
    """README Security headers: /mcp and the authorization server's JSON."""
    for response in (
        served.post("/mcp", headers=HOST),
        _get(served, "/.well-known/oauth-authorization-server"),
    ):
        _baseline(response)
        assert response.headers["Content-Security-Policy"] == OTHER_POLICY


def test_a_local_run_on_plain_http_sends_no_hsts(tmp_path: Path) -> None:
    """README Security headers: HSTS only where the public URL is https."""
    for client in _client(tmp_path / "data", "http://127.0.0.1:8123"):
        response = client.get("/api/public/v1/company")

        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert "Strict-Transport-Security" not in response.headers


def test_the_oauth_sign_in_page_keeps_its_policy_and_gains_nosniff_and_hsts(served: Client) -> None:
    """README Security headers: the authorization server's HTML pages."""
    client = served.post(
        "/register",
        json={"redirect_uris": ["http://127.0.0.1/cb"], "client_name": "x"},
        headers=HOST,
    ).get_json()
    authorize = {
        "response_type": "code",
        "client_id": client["client_id"],
        "redirect_uri": "http://127.0.0.1/cb",
        "code_challenge": "a" * 43,
        "code_challenge_method": "S256",
        "state": "s",
    }
    signin = served.get("/authorize", query_string=authorize, headers=HOST).headers["Location"]

    response = _get(served, signin.removeprefix(BASE))

    assert response.status_code == 200
    assert response.mimetype == "text/html"
    _baseline(response)
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    assert response.headers["Content-Security-Policy"] != HTML_POLICY  # the page's own
