"""/p/{slug} in a real chromium: every block renders, screenshots, axe, no horizontal scroll."""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path
from typing import Any

import PIL.Image
import PIL.ImageDraw
import pytest
from playwright.sync_api import Browser, Page, Route

from schemas.content.pages import BLOCK_TYPES
from tests.e2e.conftest import LiveServer
from tests.e2e.sample_page import all_blocks_page, store_page

pytestmark = pytest.mark.browser

AXE = Path(__file__).with_name("vendor") / "axe.min.js"
HERO_IMAGE = "https://images.example/hero.png"
WIDTHS = {"desktop": 1280, "phone": 390}


def with_image(slug: str) -> dict[str, Any]:
    return all_blocks_page(slug, image_url=HERO_IMAGE)


@cache
def hero_png() -> bytes:
    """A 1200x900 chart in the brand colours: the hero image's https host is served here."""
    image = PIL.Image.new("RGB", (1200, 900), "#f1ede6")
    draw = PIL.ImageDraw.Draw(image)
    for n, (width, colour) in enumerate([(900, "#b3471d"), (640, "#d98a62"), (380, "#17212b")]):
        draw.rounded_rectangle((150, 180 + n * 200, 150 + width, 320 + n * 200), 16, fill=colour)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def serve_hero(route: Route) -> None:
    route.fulfill(status=200, content_type="image/png", body=hero_png())


def open_page(browser: Browser, url: str, *, width: int, **options: Any) -> tuple[Page, list[str]]:
    """A fresh page at `width`, with console errors collected, loaded from `url`."""
    context = browser.new_context(viewport={"width": width, "height": 900}, **options)
    context.route("https://images.example/**", serve_hero)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    response = page.goto(url)
    assert response is not None
    assert response.status in (200, 404)
    return page, errors


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's violations for the loaded page (the context bypasses CSP to inject it)."""
    page.add_script_tag(path=str(AXE))
    result: dict[str, Any] = page.evaluate("() => axe.run(document)")
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]]}
        for v in result["violations"]
    ]


@pytest.mark.spec("pages.render")
@pytest.mark.parametrize("device", sorted(WIDTHS))
def test_every_block_type_renders_without_horizontal_scroll(
    browser: Browser, live_server: LiveServer, slug: str, screenshots: Path, device: str
) -> None:
    """Every block type renders, responsive at 1280 and 390 px, with no console error."""
    store_page(live_server.backends.pages, slug, page_input=with_image(slug))
    width = WIDTHS[device]

    page, errors = open_page(browser, f"{live_server.url}/p/{slug}", width=width)
    page.screenshot(path=str(screenshots / f"page-all-blocks-{width}.png"), full_page=True)

    for block_type in BLOCK_TYPES:
        assert page.locator(f"main section.{block_type}").first.is_visible(), block_type
    assert page.locator("h1").count() == 1
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    assert page.locator(".hero-media img").evaluate("img => img.naturalWidth") == 1200
    # Our own beacon file is the page's only script; no inline script runs.
    scripts = page.locator("script:not([type='application/ld+json'])")
    assert scripts.evaluate_all("s => s.map(e => new URL(e.src).pathname.split('.')[0])") == [
        "/static/beacon"
    ]
    assert errors == []
    page.context.close()


@pytest.mark.spec("pages.render")
def test_narrowest_phone_has_no_horizontal_scroll(
    browser: Browser, live_server: LiveServer, slug: str
) -> None:
    """Responsive from 360 px phones."""
    store_page(live_server.backends.pages, slug)

    page, errors = open_page(browser, f"{live_server.url}/p/{slug}", width=360)

    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    assert errors == []
    page.context.close()


@pytest.mark.spec("pages.accessibility")
@pytest.mark.parametrize(
    ("state", "suffix", "device"),
    [
        ("page", "", "desktop"),
        ("page", "", "phone"),
        ("thank-you", "?submitted=1", "desktop"),
        ("email-error", "?error=invalid_email", "phone"),
        ("company-error", "?error=invalid_company", "phone"),
        ("not-found", "-missing", "phone"),
    ],
)
def test_axe_reports_no_violation(
    browser: Browser,
    live_server: LiveServer,
    slug: str,
    screenshots: Path,
    state: str,
    suffix: str,
    device: str,
) -> None:
    """axe-core (vendored) finds no accessibility violation on pages, states and 404."""
    store_page(live_server.backends.pages, slug, page_input=with_image(slug))
    width = WIDTHS[device]
    url = f"{live_server.url}/p/{slug}{suffix}"

    page, _ = open_page(browser, url, width=width, bypass_csp=True)
    if state != "page":
        page.screenshot(path=str(screenshots / f"page-{state}-{width}.png"), full_page=True)

    assert axe_violations(page) == []
    page.context.close()


@pytest.mark.spec("pages.accessibility")
def test_keyboard_user_can_skip_to_content_and_sees_the_focus(
    browser: Browser, live_server: LiveServer, slug: str
) -> None:
    """Skip link first in tab order, visible focus styles."""
    store_page(live_server.backends.pages, slug)
    page, _ = open_page(browser, f"{live_server.url}/p/{slug}", width=1280)

    page.keyboard.press("Tab")
    skip = page.locator(".skip-link")
    outline = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")

    assert skip.evaluate("a => a === document.activeElement")
    assert skip.is_visible()
    assert outline == "solid"
    page.context.close()
