"""Generated pages that asked for Pricing, Security and Integrations, in chromium at two widths.

Each page is written by the built-in writer over HTTP and read in the browser as a buyer reads
it: a "Pricing" heading shows the company's plans with their prices, a "Security" or
"Integrations" heading appears only with an answer under it (else the job's notes name it),
and the lead form's "What happens next" is the page's own. The screenshots are left in
tests/artifacts/screenshots/ (not committed).
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.conftest import CONTENT_KEY
from tests.e2e.conftest import LiveServer
from tests.workers.heading_briefs import HEADING_BRIEFS

pytestmark = pytest.mark.browser

ASKED = {brief["slug"]: brief for brief in HEADING_BRIEFS}
PAGES = [
    ASKED["h-security-offer"],
    ASKED["h-scaled-money"],
    {
        "slug": "h-reply-form",
        "topic": "Attribution your CFO can check",
        "icp": "Heads of growth at Series A SaaS companies",
        "goal": "Get a reply through the form",
        "offer": "One attribution table from your ad platforms, analytics and CRM. Integrations: "
        "we read HubSpot and Salesforce exports, Google Ads and LinkedIn Ads reports.",
        "proof": ["Merged 1.2 million CRM records"],
        "sections": ["Pricing", "Security", "Integrations", "Timeline", "Get in touch"],
        "tone": "warm",
    },
]


def generate(live_server: LiveServer, brief: dict[str, Any], slug: str) -> dict[str, Any]:
    request = urllib.request.Request(  # noqa: S310  # the loopback test server
        f"{live_server.url}/api/public/content/pages/generate",
        data=json.dumps({**brief, "slug": slug, "publish": True}).encode(),
        headers={"content-type": "application/json", "x-api-key": CONTENT_KEY},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310
        assert answer.status == 201
        body: dict[str, Any] = json.loads(answer.read())
    return body


@pytest.mark.spec("content.generate")
@pytest.mark.parametrize("brief", PAGES, ids=[b["slug"] for b in PAGES])
def test_a_page_asking_for_pricing_security_and_integrations_answers_each_or_notes_it(
    live_server: LiveServer, browser: Browser, slug: str, screenshots: Path, brief: dict[str, Any]
) -> None:
    """Prices under "Pricing"; "Security" and "Integrations" with an answer or in `notes[]`;
    screenshots at 1280 and 390 px."""
    body = generate(live_server, brief, slug)
    noted = " ".join(n["message"] for n in body["job"]["notes"])

    headings: list[str] = []
    for width in (1280, 390):
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(f"{live_server.url}/p/{slug}")
        page.wait_for_load_state("networkidle")
        headings = page.locator("h2").all_inner_texts()
        pricing = page.locator("section", has=page.locator("h2", has_text="Pricing"))
        prices = pricing.inner_text() if pricing.count() else ""
        page.screenshot(path=str(screenshots / f"{brief['slug']}-{width}.png"), full_page=True)
        page.close()

        assert "Pricing" in headings
        assert "$9,500 / month" in prices or "$4,800 one-time" in prices
    for asked in ("Security", "Integrations"):
        assert asked in headings or f"section {asked!r} left out" in noted
