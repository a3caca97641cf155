"""The base URL itself (`/`): SPEC names no answer there; a person or a client opening the
"Base URL" the docs show is sent to the developer portal in the form it reads (README
"Docs for partners and agents")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask.testing import FlaskClient

from api.app import create_app
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends

BASE = "http://testserver"
# What Chromium and Firefox send for a page they navigate to.
BROWSER_ACCEPT = [
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,"
    "image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    """One app for the module: these tests only read what is rendered at start."""
    settings = Settings(data_dir=tmp_path_factory.mktemp("root"), public_base_url=BASE)
    backends = build_backends(settings)
    yield create_app(app_config(settings), backends).test_client()
    backends.close()


@pytest.mark.parametrize("accept", BROWSER_ACCEPT)
def test_a_browser_opening_the_base_url_is_sent_to_the_developer_portal(
    client: FlaskClient, accept: str
) -> None:
    """A person who opens the base URL lands on the HTML portal, not on a JSON 404."""
    response = client.get("/", headers={"Accept": accept})
    portal = client.get(response.headers["Location"], headers={"Accept": accept})

    assert response.status_code == 302
    assert response.headers["Location"] == "/developers"
    assert "Accept" in response.headers["Vary"]
    assert portal.status_code == 200
    assert portal.mimetype == "text/html"


@pytest.mark.parametrize("accept", [None, "*/*", "application/json"])
def test_an_api_client_opening_the_base_url_is_sent_to_the_json_manifest(
    client: FlaskClient, accept: str | None
) -> None:
    """Everything speaks JSON (SPEC): curl, an SDK or an agent gets the portal's manifest,
    which links every file and API."""
    headers = {"Accept": accept} if accept else {}

    response = client.get("/", headers=headers)
    manifest = client.get(response.headers["Location"], headers=headers)

    assert response.status_code == 302
    assert response.headers["Location"] == "/developers.json"
    assert "Accept" in response.headers["Vary"]
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert manifest.status_code == 200
    assert manifest.mimetype == "application/json"
    assert manifest.get_json()["base_url"] == BASE


def test_head_on_the_base_url_answers_as_get_does(client: FlaskClient) -> None:
    """HEAD is GET without the body."""
    response = client.head("/", headers={"Accept": "application/json"})

    assert response.status_code == 302
    assert response.headers["Location"] == "/developers.json"


def test_an_unknown_route_still_answers_the_json_404(client: FlaskClient) -> None:
    """DESIGN Contract decisions: unknown routes answer 404 `not_found` as JSON."""
    response = client.get("/no-such-route", headers={"Accept": BROWSER_ACCEPT[0]})

    assert response.status_code == 404
    assert response.get_json()["error"] == "not_found"
