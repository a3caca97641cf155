"""The lead form with JavaScript switched off: it posts to collect and lands on the thank-you."""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest
from playwright.sync_api import Browser

from tests.e2e.conftest import LiveServer
from tests.e2e.sample_page import store_page

pytestmark = pytest.mark.browser


@pytest.mark.spec("pages.leadform")
def test_lead_form_submits_without_javascript_and_shows_the_thank_you(
    browser: Browser, live_server: LiveServer, slug: str
) -> None:
    """DESIGN ingest: the leadform posts to /collect without JavaScript; a 303 shows thanks."""
    store_page(live_server.backends.pages, slug)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/p/{slug}")

    page.get_by_role("textbox", name="Work email").fill("ana@northbook.example")
    page.get_by_role("textbox", name="Name").fill("Ana Costa")
    page.get_by_role("textbox", name="Company").fill("Northbook")
    with page.expect_request(lambda r: r.method == "POST") as posted:
        page.get_by_role("button", name="Book the audit").last.click()
    page.wait_for_url(f"**/p/{slug}?submitted=1")

    request = posted.value
    fields = parse_qs(request.post_data or "")
    assert request.url == f"{live_server.url}/api/public/v1/collect"
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert fields == {
        "type": ["lead_form"],
        "page": [slug],
        "email": ["ana@northbook.example"],
        "name": ["Ana Costa"],
        "company": ["Northbook"],
    }
    assert page.get_by_role("status").first.is_visible()
    assert "Thank you" in page.get_by_role("status").first.inner_text()
    assert page.locator("form").count() == 0
    context.close()


@pytest.mark.spec("pages.leadform")
def test_browser_refuses_to_send_the_form_without_an_email(
    browser: Browser, live_server: LiveServer, slug: str
) -> None:
    """The email field is required, so the browser itself keeps an empty form back."""
    store_page(live_server.backends.pages, slug)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/p/{slug}")
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)

    page.get_by_role("button", name="Book the audit").last.click()

    assert page.locator("input[name=email]:invalid").count() == 1
    assert posts == []
    assert page.url == f"{live_server.url}/p/{slug}"
    context.close()


@pytest.mark.spec("pages.leadform")
@pytest.mark.parametrize(("field", "label"), [("name", "Name"), ("company", "Company")])
def test_a_refused_name_or_company_shows_its_message_on_that_field_on_a_390_px_phone(
    browser: Browser, live_server: LiveServer, slug: str, field: str, label: str
) -> None:
    """collect's `?error=invalid_<field>` redirect: the message is visible and is the field's
    accessible description; the email field is not marked."""
    store_page(live_server.backends.pages, slug)
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(f"{live_server.url}/p/{slug}?error=invalid_{field}#leadform")

    box = page.get_by_role("textbox", name=label, exact=True)
    message = page.locator(f"#{box.get_attribute('aria-describedby')}")
    assert box.get_attribute("aria-invalid") == "true"
    assert message.is_visible()
    assert "at most 120 characters" in message.inner_text()
    assert page.get_by_role("textbox", name="Work email").get_attribute("aria-invalid") is None
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    context.close()


@pytest.mark.spec("pages.leadform")
@pytest.mark.parametrize("width", [1280, 390])
def test_a_rate_limited_form_shows_the_page_with_a_wait_message_above_the_button(
    browser: Browser, live_server: LiveServer, slug: str, width: int
) -> None:
    """collect's `?error=rate_limited` redirect: the form is there to send again, with a
    message that says to wait a minute, announced to screen readers; no field is marked."""
    store_page(live_server.backends.pages, slug)
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": width, "height": 844}
    )
    page = context.new_page()
    page.goto(f"{live_server.url}/p/{slug}?error=rate_limited#leadform")

    message = page.get_by_role("alert")
    assert message.is_visible()
    assert "wait a minute" in message.inner_text().lower()
    assert page.get_by_role("button", name="Book the audit").count() == 1
    assert page.locator("[aria-invalid]").count() == 0
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    context.close()


@pytest.mark.spec("pages.leadform")
@pytest.mark.parametrize("width", [1280, 390])
def test_a_form_the_queue_could_not_take_shows_the_page_saying_nothing_was_sent_above_the_button(
    browser: Browser, live_server: LiveServer, slug: str, width: int
) -> None:
    """collect's `?error=unavailable` redirect (the ingest queue was down): the form is there
    to send again, with a message, announced to screen readers, that nothing was sent and to
    try again in a minute; no field is marked."""
    store_page(live_server.backends.pages, slug)
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": width, "height": 844}
    )
    page = context.new_page()
    page.goto(f"{live_server.url}/p/{slug}?error=unavailable#leadform")

    message = page.get_by_role("alert")
    button = page.get_by_role("button", name="Book the audit").last
    assert message.is_visible()
    assert "nothing was sent" in message.inner_text().lower()
    assert "try again in a minute" in message.inner_text().lower()
    assert message.bounding_box()["y"] < button.bounding_box()["y"]  # type: ignore[index]
    assert page.locator("form [aria-invalid]").count() == 0
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    context.close()
