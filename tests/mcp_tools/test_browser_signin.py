"""A real browser (Debian's chromium) completes the sign-in, code and consent pages once."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, Route

from tests.emulators import REPO
from tests.mcp_tools.conftest import (
    REDIRECT_URI,
    authorize_url,
    call_tool_raw,
    exchange,
    new_pkce,
    read_code,
    register,
)
from tests.mcp_tools.tokens import EMAIL
from tests.served import Served

SCREENSHOTS = REPO / "tests" / "artifacts" / "screenshots"


@pytest.mark.browser
@pytest.mark.spec("mcp.oauth.signin")
def test_a_person_signs_in_with_an_emailed_code_and_allows_the_agent_in_a_browser(
    served: Served,
    browser: Browser,
) -> None:
    """DESIGN MCP: the plain-HTML sign-in, code and consent pages work in a real browser."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    client_id = register(served)
    pkce = new_pkce()
    callbacks: list[str] = []

    def callback(route: Route) -> None:
        callbacks.append(route.request.url)
        route.fulfill(status=200, content_type="text/plain", body="signed in")

    page = browser.new_page(viewport={"width": 800, "height": 700})
    try:
        page.route(f"{REDIRECT_URI}*", callback)
        page.goto(authorize_url(served, client_id, pkce))
        page.screenshot(path=str(SCREENSHOTS / "mcp-signin-email.png"))
        page.get_by_label("Email address").fill(EMAIL)
        page.get_by_role("button", name="Email me a code").click()
        page.wait_for_url("**/oauth/code?*")
        page.get_by_label("Six-digit code").fill(read_code(served.outbox, EMAIL, set()))
        page.screenshot(path=str(SCREENSHOTS / "mcp-signin-code.png"))
        page.get_by_role("button", name="Continue").click()
        page.wait_for_url("**/oauth/consent?*")
        consent = page.content()
        page.screenshot(path=str(SCREENSHOTS / "mcp-signin-consent.png"), full_page=True)
        page.get_by_role("button", name="Allow").click()
        page.wait_for_url(f"{REDIRECT_URI}*")
    finally:
        page.close()

    query = {k: v[0] for k, v in parse_qs(urlsplit(callbacks[-1]).query).items()}
    token = exchange(served, client_id, query["code"], pkce.verifier).json()["access_token"]
    assert "refusal tests" in consent
    assert "127.0.0.1:33418" in consent
    assert (query["state"], query["iss"]) == ("state-1", served.base)
    assert call_tool_raw(served, token).status_code == 200
