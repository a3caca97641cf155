"""Every kind of page a visitor's browser shows fits a 390 px phone and a 1280 px desktop.

Landing pages in each lead-form state, a generated page, a draft's preview, the on-brand 404
and 503, the developer portal and an error code's page: none scrolls sideways
(document.documentElement.scrollWidth <= innerWidth), each has one h1 and no console error.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Route

from renderers.page_html import FORM_STATES, render_unavailable
from renderers.site import build_site
from tests.conftest import CONTENT_KEY
from tests.e2e.conftest import LiveServer
from tests.e2e.sample_page import all_blocks_page, store_page
from tests.e2e.test_generated_page_browser import BRIEF

pytestmark = pytest.mark.browser

WIDTHS = (390, 1280)
UNAVAILABLE = "/p/unavailable-store"  # answered here with the 503 page the app serves


def post(server: LiveServer, path: str, body: dict[str, object]) -> dict[str, object]:
    request = urllib.request.Request(  # noqa: S310  # the loopback test server
        f"{server.url}{path}",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "x-api-key": CONTENT_KEY},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310
        assert answer.status == 201
        found: dict[str, object] = json.loads(answer.read())
        return found


@pytest.fixture(scope="module")
def visitor_paths(live_server: LiveServer) -> dict[str, str]:
    """One path per kind of page, its content written once for the module."""
    landing, generated, draft = "visitor-landing", "visitor-generated", "visitor-draft"
    store_page(live_server.backends.pages, landing)
    post(live_server, "/api/public/content/pages/generate", {**BRIEF, "slug": generated})
    saved = post(
        live_server, "/api/public/content/pages", all_blocks_page(draft) | {"is_published": False}
    )
    page = saved["page"]
    assert isinstance(page, dict)
    preview = str(page["preview_url"]).removeprefix(live_server.url)
    queries = {
        "open": "",
        "submitted": "?submitted=1",
        "invalid_email": "?error=invalid_email",
        "invalid_name": "?error=invalid_name",
        "invalid_company": "?error=invalid_company",
        "rate_limited": "?error=rate_limited",
        "unavailable": "?error=unavailable",
    }
    assert set(queries) == set(FORM_STATES)
    return {
        **{f"landing-{state}": f"/p/{landing}{query}" for state, query in queries.items()},
        "generated": f"/p/{generated}",
        "preview": preview,
        "not-found": "/p/no-such-page",
        "unavailable": UNAVAILABLE,
        "developers": "/developers",
        "error-code": "/errors/rate_limited",
    }


KINDS = [
    *(f"landing-{state}" for state in FORM_STATES),
    "generated",
    "preview",
    "not-found",
    "unavailable",
    "developers",
    "error-code",
]


@pytest.mark.spec("pages.render")
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("kind", KINDS)
def test_no_page_a_visitor_sees_scrolls_sideways(
    browser: Browser,
    live_server: LiveServer,
    visitor_paths: dict[str, str],
    screenshots: Path,
    kind: str,
    width: int,
) -> None:
    """At 390 and 1280 px the page is as wide as the window, with one h1 and no console error."""
    site = build_site(live_server.backends.catalog, base_url=live_server.url)
    unavailable = render_unavailable(site=site).html

    def serve_unavailable(route: Route) -> None:
        route.fulfill(status=503, content_type="text/html; charset=utf-8", body=unavailable)

    context = browser.new_context(viewport={"width": width, "height": 900})
    context.route(f"{live_server.url}{UNAVAILABLE}", serve_unavailable)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    response = page.goto(f"{live_server.url}{visitor_paths[kind]}")
    page.wait_for_load_state("networkidle")
    # A full-page shot of the longest page took over 30 s on two loaded cores.
    page.screenshot(
        path=str(screenshots / f"visitor-{kind}-{width}.png"), full_page=True, timeout=120_000
    )
    sizes = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    headings = page.locator("h1").count()
    context.close()

    assert response is not None
    assert response.status in (200, 404, 503)
    assert sizes[0] <= sizes[1]
    assert headings == 1
    assert errors == []
