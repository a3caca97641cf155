"""A generated page in a real chromium: brief in over HTTP, /p/{slug} out with its hero image."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.conftest import CONTENT_KEY
from tests.e2e.conftest import LiveServer

pytestmark = pytest.mark.browser

BRIEF = {
    "topic": "Attribution your CFO can check",
    "icp": "Heads of growth at Series A SaaS companies",
    "goal": "Book a two-week attribution audit",
    "offer": (
        "One attribution table from your ad platforms, analytics and CRM. "
        "Every number the sources disagree on is flagged, with the reason."
    ),
    "proof": [
        "Found 18% of pipeline double-counted across 3 ad platforms for a Series A payroll company",
        "\u201cFor the first time our board deck and our CRM agree.\u201d"
        " \u2014 Priya Raman, Ledgerly",
    ],
    "sections": ["How it works", "Results", "Testimonial", "Questions"],
    "tone": "plain and direct",
    "publish": True,
}


@pytest.mark.spec("content.generate")
def test_a_generated_page_renders_with_its_hero_image(
    live_server: LiveServer, browser: Browser, slug: str, screenshots: Path
) -> None:
    """The generated, published page loads in chromium and its hero image is drawn."""
    request = urllib.request.Request(  # noqa: S310  # the loopback test server
        f"{live_server.url}/api/public/content/pages/generate",
        data=json.dumps({**BRIEF, "slug": slug}).encode(),
        headers={"content-type": "application/json", "x-api-key": CONTENT_KEY},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310
        assert answer.status == 201

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    response = page.goto(f"{live_server.url}/p/{slug}")
    page.wait_for_load_state("networkidle")
    drawn = page.evaluate(
        "() => [...document.images].filter(i => i.src.includes('/assets/hero/'))"
        ".map(i => i.complete && i.naturalWidth > 0)"
    )
    page.screenshot(path=str(screenshots / "generated-page.png"), full_page=True)
    page.close()

    assert response is not None
    assert response.status == 200
    assert drawn
    assert all(drawn)


@pytest.mark.spec("pages.render")
@pytest.mark.parametrize("width", [390, 1280])
def test_a_requested_testimonial_heading_and_its_quote_read_as_one_section(
    live_server: LiveServer, browser: Browser, slug: str, screenshots: Path, width: int
) -> None:
    """The writer puts the brief's "Testimonial" heading and a line before the quote block: on
    the page they share one band (same background, no rule, a short gap), not a near-empty
    section followed by another."""
    request = urllib.request.Request(  # noqa: S310  # the loopback test server
        f"{live_server.url}/api/public/content/pages/generate",
        data=json.dumps({**BRIEF, "slug": slug}).encode(),
        headers={"content-type": "application/json", "x-api-key": CONTENT_KEY},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310
        assert answer.status == 201

    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(f"{live_server.url}/p/{slug}")
    heading = page.get_by_role("heading", name="Testimonial", exact=True)
    intro = heading.locator("xpath=ancestor::section[1]")
    quote = intro.locator("xpath=following-sibling::section[1]")
    look = page.evaluate(
        """([intro, quote]) => ({
            backgrounds: [intro, quote].map(s => getComputedStyle(s).backgroundColor),
            rule: getComputedStyle(quote).borderTopWidth,
            gap: quote.querySelector('blockquote').getBoundingClientRect().top
                 - intro.querySelector('.prose > :last-child').getBoundingClientRect().bottom,
        })""",
        [intro.element_handle(), quote.element_handle()],
    )
    quote_class = quote.get_attribute("class")
    page.screenshot(path=str(screenshots / f"generated-testimonial-{width}.png"), full_page=True)
    page.close()

    assert quote_class == "block quote"
    assert look["backgrounds"][0] == look["backgrounds"][1]
    assert look["rule"] == "0px"
    assert 0 < look["gap"] < 80
