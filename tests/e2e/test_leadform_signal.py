"""The no-JavaScript lead form of a /p/ page becomes a lead_form event."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import Browser

from backends.embedded.queues import DurableQueue
from backends.ports import StreamQuery
from tests.e2e.conftest import LiveServer
from tests.e2e.sample_page import store_page

pytestmark = pytest.mark.browser


@pytest.mark.spec("signals.collect")
def test_a_lead_form_submitted_without_javascript_is_a_lead_event_for_the_right_account(
    browser: Browser, live_server: LiveServer, slug: str
) -> None:
    """DESIGN Ingest: chromium, JavaScript off, posts the form; the account is a hand raiser."""
    domain = f"n{uuid.uuid4().hex[:8]}.example"
    store_page(live_server.backends.pages, slug)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/p/{slug}")

    page.get_by_role("textbox", name="Work email").fill(f"ana@{domain}")
    page.get_by_role("textbox", name="Company").fill("Northbook")
    page.get_by_role("button", name="Book the audit").last.click()
    page.wait_for_url(f"**/p/{slug}?submitted=1")
    context.close()

    queue = live_server.backends.signal_queue
    assert isinstance(queue, DurableQueue)
    assert queue.drain(timeout=10)
    account = live_server.backends.signals.get_account(domain)
    timeline = live_server.backends.signals.read_stream(StreamQuery(domain=domain)).events
    assert account is not None
    assert (account.name, account.stage, list(account.people)) == (
        "Northbook",
        "hand_raiser",
        [f"ana@{domain}"],
    )
    assert [(e.type, e.source, e.page.path) for e in timeline] == [
        ("lead_form", "site", f"/p/{slug}")
    ]
