"""Variants "Must show", in chromium: 200 fresh visitors to a page with a control and one
variant at a fixed 50/50 split each keep their arm on reload, and the split is within the
binomial bounds; GPC visitors get the control with nothing stored; with JavaScript off the
variant is whole and its lead form records the variant in the stored lead_form event."""

from __future__ import annotations

import math
import uuid
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from backends.embedded.queues import DurableQueue
from backends.ports import StreamQuery
from domain.variants import pick_arm
from tests.conftest import CONTENT_KEY
from tests.e2e.conftest import LiveServer
from tests.e2e.sample_page import all_blocks_page

pytestmark = pytest.mark.browser

AUTH = {"x-api-key": CONTENT_KEY}
VISITORS = 200
VARIANT_HERO = "See which channel brings the pipeline that closes, before next quarter"
# 99.9% two-sided: each tail of Binomial(200, 1/2) outside the bounds holds at most 0.05%.
TAIL = 0.0005


def binomial_bounds(n: int, tail: float) -> tuple[int, int]:
    """The narrowest [low, n - low] whose lower tail P(X < low) is at most `tail` (p = 1/2)."""
    below = 0.0
    for k in range(n + 1):
        below += math.comb(n, k) / 2**n
        if below > tail:
            return k, n - k
    raise AssertionError("unreachable")


def start_experiment(server: LiveServer, slug: str) -> None:
    pages = f"{server.url}/api/public/content/pages"
    variant = all_blocks_page(slug)
    variant["blocks"][0]["title"] = VARIANT_HERO
    with httpx.Client(headers=AUTH, timeout=10) as api:
        assert api.post(pages, json=all_blocks_page(slug)).status_code == 201
        made = api.post(f"{pages}/{slug}/variants", json={"id": "b", "page": variant})
        assert made.status_code == 201, made.text
        split = api.put(f"{pages}/{slug}/allocation", json={"shares": {"control": 50, "b": 50}})
        assert split.status_code == 200, split.text


def arm_shown(page: Page) -> tuple[str | None, str]:
    """The arm the served HTML names to the beacon, and the hero's heading."""
    arm = page.locator("script[data-variant]").get_attribute("data-variant")
    return arm, page.locator("h1").first.inner_text()


def test_two_hundred_fresh_visitors_split_within_binomial_bounds_and_keep_their_arm(
    browser: Browser, live_server: LiveServer, slug: str
) -> None:
    """Variants: each fresh visitor sees one arm, the same on reload; 50/50 within 99.9%."""
    start_experiment(live_server, slug)
    low, high = binomial_bounds(VISITORS, TAIL)
    seen: dict[str, int] = {"control": 0, "b": 0}
    heroes = {"control": all_blocks_page(slug)["blocks"][0]["title"], "b": VARIANT_HERO}

    for _ in range(VISITORS):
        context = browser.new_context()
        page = context.new_page()
        # The arm is in the HTML: no need to wait for the stylesheet, beacon and images.
        page.goto(f"{live_server.url}/p/{slug}", wait_until="domcontentloaded")
        first = arm_shown(page)
        page.reload(wait_until="domcontentloaded")
        again = arm_shown(page)
        context.close()
        assert first == again
        arm, hero = first
        assert arm in seen
        assert hero == heroes[arm]
        seen[arm] += 1

    assert (low, high) == (77, 123)
    assert low <= seen["b"] <= high, seen


def test_a_visitor_with_global_privacy_control_gets_the_control_and_nothing_stored(
    browser: Browser, live_server: LiveServer, slug: str
) -> None:
    """Variants: GPC (the header and navigator.globalPrivacyControl): control, no cookie, no
    localStorage, on every one of 12 fresh visits (at 50/50, all control by chance: 1 in 4096)."""
    start_experiment(live_server, slug)
    arms: list[Any] = []

    for _ in range(12):
        context = browser.new_context(extra_http_headers={"Sec-GPC": "1"})
        context.add_init_script(
            "Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', {get: () => true})"
        )
        page = context.new_page()
        page.goto(f"{live_server.url}/p/{slug}")
        page.wait_for_load_state("load")
        arms.append(arm_shown(page)[0])
        stored = page.evaluate("localStorage.length")
        cookies = context.cookies()
        context.close()
        assert (stored, cookies) == (0, [])

    assert arms == ["control"] * 12


def test_with_javascript_off_the_variant_is_whole_and_its_lead_form_records_it(
    browser: Browser, live_server: LiveServer, slug: str
) -> None:
    """Variants: no JavaScript, assigned the variant: every block shows, and the lead form's
    stored lead_form event names the variant."""
    start_experiment(live_server, slug)
    domain = f"n{uuid.uuid4().hex[:8]}.example"
    # An assignment id whose arm on this page is the variant, as the server would have set it.
    assignment = next(
        aid
        for aid in (f"{n:022d}" for n in range(1000))
        if pick_arm(aid, slug=slug, shares=[("control", 0.5), ("b", 0.5)]) == "b"
    )
    context = browser.new_context(java_script_enabled=False)
    page_url = f"{live_server.url}/p/{slug}"
    context.add_cookies([{"name": "fd_aid", "value": assignment, "url": page_url}])
    page = context.new_page()
    page.goto(f"{live_server.url}/p/{slug}")

    assert arm_shown(page) == ("b", VARIANT_HERO)
    assert page.locator("main section.block").count() == len(all_blocks_page(slug)["blocks"])
    page.get_by_role("textbox", name="Work email").fill(f"ana@{domain}")
    page.get_by_role("textbox", name="Company").fill("Northbook")
    page.locator("form.leadform-card button[type=submit]").click()
    page.wait_for_url(f"**/p/{slug}?submitted=1")
    context.close()

    queue = live_server.backends.signal_queue
    assert isinstance(queue, DurableQueue)
    assert queue.drain(timeout=10)
    timeline = live_server.backends.signals.read_stream(StreamQuery(domain=domain)).events
    assert [(e.type, e.page.path, e.properties.get("variant")) for e in timeline] == [
        ("lead_form", f"/p/{slug}", "b")
    ]
