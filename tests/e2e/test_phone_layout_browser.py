"""What a visitor on a phone meets on /p/{slug}, in chromium: the consent notice does not hide
the lead form after a redirect to it, and the header's brand and CTA stay readable.
Screenshots go to /tmp/pagelook2/ (not the repo)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page

from tests.e2e.conftest import LiveServer
from tests.e2e.sample_page import store_page
from tests.e2e.test_beacon_browser import consent_server

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/pagelook2")  # noqa: S108  # pictures to look at, never committed
FORTY = "Book a free 45-minute pipeline audit now"  # the gate's longest cta_label

# Whether the element under the centre of a target is the target or inside it.
ON_TOP = """el => {
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
  return hit !== null && el.contains(hit);
}"""
# How many line boxes an element's text takes.
LINES = """el => {
  const range = document.createRange();
  range.selectNodeContents(el);
  return new Set(Array.from(range.getClientRects(), r => Math.round(r.top))).size;
}"""


@pytest.fixture(scope="module")
def consent_live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The app with BEACON_CONSENT=required, once for the module."""
    with consent_server(tmp_path_factory.mktemp("consent")) as live:
        yield live


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def assert_shown_and_uncovered(page: Page, target: Locator, notice: Locator) -> None:
    """The target, scrolled to from above just far enough to show it (block: nearest, as
    browsers other than chromium scroll to what gets focus), is in the viewport and on top at
    its centre, and its box does not meet the notice's."""
    page.evaluate("scrollTo(0, 0)")
    target.evaluate("el => el.scrollIntoView({block: 'nearest'})")
    box, bar = target.bounding_box(), notice.bounding_box()
    assert box is not None
    assert bar is not None
    height = page.evaluate("innerHeight")
    assert box["y"] >= 0
    assert box["y"] + box["height"] <= height
    assert box["y"] + box["height"] <= bar["y"]
    assert target.evaluate(ON_TOP)


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("state", ["invalid_email", "rate_limited", "unavailable"])
def test_after_a_redirect_to_the_form_the_consent_notice_hides_neither_its_message_nor_its_button(
    browser: Browser, consent_live: LiveServer, slug: str, width: int, state: str
) -> None:
    """The notice is a bar at the foot of the viewport; what the visitor must read and press
    scrolls into view above it, and at the page's end the footer is not under it."""
    store_page(consent_live.backends.pages, slug)
    context = browser.new_context(viewport={"width": width, "height": 844})
    page = context.new_page()
    page.goto(f"{consent_live.url}/p/{slug}?error={state}#leadform")
    notice = page.get_by_role("region", name="Analytics consent")
    notice.wait_for()
    message = page.locator(".leadform .field-error, .leadform [role=alert]")
    button = page.get_by_role("button", name="Book the audit").last
    shot(page, f"consent-{state}-{width}")

    assert_shown_and_uncovered(page, message, notice)
    assert_shown_and_uncovered(page, button, notice)
    shot(page, f"consent-{state}-{width}-button")
    page.evaluate("scrollTo(0, document.documentElement.scrollHeight)")
    assert page.locator(".footer-legal p").evaluate(ON_TOP)
    assert page.get_by_role("button", name="Yes").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    context.close()


def test_the_consent_notice_is_answered_with_the_keyboard_and_gives_its_room_back(
    browser: Browser, consent_live: LiveServer, slug: str
) -> None:
    """The submit button, focused, is above the bar; the bar comes last in the tab order (after
    the footer), and Enter on No removes it and its scroll padding."""
    store_page(consent_live.backends.pages, slug)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(f"{consent_live.url}/p/{slug}?error=rate_limited#leadform")
    notice = page.get_by_role("region", name="Analytics consent")
    notice.wait_for()
    padding = page.evaluate("getComputedStyle(document.documentElement).scrollPaddingBottom")

    page.get_by_role("button", name="Book the audit").last.focus()
    assert_shown_and_uncovered(page, page.locator(":focus"), notice)
    page.locator(".footer-links a").last.focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.textContent")
    page.keyboard.press("Enter")

    assert padding != "auto"
    assert focused == "No"
    assert notice.count() == 0
    assert page.evaluate("getComputedStyle(document.documentElement).scrollPaddingBottom") == "auto"
    context.close()


SHIFTS = """window.shifts = 0;
new PerformanceObserver(list => list.getEntries().forEach(e => {
  if (!e.hadRecentInput) window.shifts += e.value;
})).observe({type: "layout-shift", buffered: true});"""


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("where", ["", "?error=rate_limited#leadform"])
def test_the_consent_bar_appearing_shifts_no_layout(
    browser: Browser, consent_live: LiveServer, slug: str, width: int, where: str
) -> None:
    """Cumulative layout shift (the layout-shift entries Lighthouse sums) stays 0 while the
    page loads and the bar appears."""
    store_page(consent_live.backends.pages, slug)
    context = browser.new_context(viewport={"width": width, "height": 844})
    context.add_init_script(SHIFTS)
    page = context.new_page()
    page.goto(f"{consent_live.url}/p/{slug}{where}")
    page.get_by_role("region", name="Analytics consent").wait_for()
    page.wait_for_load_state("networkidle")

    assert page.evaluate("window.shifts") == 0
    context.close()


@pytest.mark.parametrize("label", ["Book an intro call", "Book the audit"])
def test_on_a_390_px_phone_the_header_cta_and_brand_each_take_one_line(
    browser: Browser, live_server: LiveServer, slug: str, label: str
) -> None:
    """The repo's CTA labels (the composer's default and the sample page's) and brand name."""
    store_page(live_server.backends.pages, slug, cta_label=label)
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(f"{live_server.url}/p/{slug}")
    cta = page.locator(".site-header .button")
    shot(page, f"header-390-{label.replace(' ', '-')}")

    assert cta.inner_text() == label
    assert cta.evaluate(LINES) == 1
    assert page.locator(".site-header .brand span").evaluate(LINES) == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    context.close()


def test_on_a_320_px_phone_a_header_cta_of_the_gates_40_characters_scrolls_nothing_sideways(
    browser: Browser, live_server: LiveServer, slug: str
) -> None:
    """schemas/content/pages.py caps cta_label at 40 characters; the header fits it at 320 px
    and keeps the brand on one line."""
    store_page(live_server.backends.pages, slug, cta_label=FORTY)
    context = browser.new_context(java_script_enabled=False, viewport={"width": 320, "height": 640})
    page = context.new_page()
    page.goto(f"{live_server.url}/p/{slug}")
    shot(page, "header-320-forty")

    assert len(FORTY) == 40
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    assert page.locator(".site-header .brand span").evaluate(LINES) == 1
    context.close()


@pytest.mark.parametrize("javascript", [True, False])
@pytest.mark.parametrize(
    "state", ["invalid_email", "invalid_name", "invalid_company", "rate_limited", "unavailable"]
)
def test_on_a_390_px_phone_a_redirect_to_the_form_lands_on_what_to_fix(
    browser: Browser, live_server: LiveServer, slug: str, state: str, javascript: bool
) -> None:
    """`?error=…#leadform` opens with the form's message in view, not the section's heading and
    its steps a screen above it; a link to `#leadform` with no error still opens the section."""
    store_page(live_server.backends.pages, slug)
    context = browser.new_context(
        java_script_enabled=javascript, viewport={"width": 390, "height": 844}
    )
    page = context.new_page()
    page.goto(f"{live_server.url}/p/{slug}?error={state}#leadform")
    message = page.locator(".leadform .field-error, .leadform [role=alert]")
    shot(page, f"landing-{state}-{'js' if javascript else 'nojs'}")
    box = message.bounding_box()

    assert box is not None
    assert box["y"] >= 0
    assert box["y"] + box["height"] <= 844
    page.goto(f"{live_server.url}/p/{slug}#leadform")
    heading = page.locator(".leadform h2").bounding_box()
    assert heading is not None
    assert heading["y"] >= 0
    assert heading["y"] < 844
    context.close()
