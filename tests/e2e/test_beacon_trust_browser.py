"""signals-api.md "Collect" and "Page views" in chromium: the beacon on a landing page records
the page view, the CTA click and the lead form with their UTM fields, and no query string of
the page makes it send a person (only the form the visitor sends names one)."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import Browser

from backends.embedded.queues import DurableQueue
from backends.ports import StreamQuery
from schemas.signals.events import Event
from tests.e2e.conftest import LiveServer
from tests.e2e.sample_page import store_page
from tests.polling import wait_for

pytestmark = pytest.mark.browser


def events_on(live_server: LiveServer, slug: str) -> list[Event]:
    """The stored events of this page, oldest first."""
    queue = live_server.backends.signal_queue
    assert isinstance(queue, DurableQueue)
    assert queue.drain(timeout=10)
    events = live_server.backends.signals.read_stream(StreamQuery(limit=1000)).events
    return [e for e in reversed(events) if e.page.path == f"/p/{slug}"]


def test_the_beacon_records_view_click_and_lead_form_with_utms_and_never_a_person_from_the_url(
    browser: Browser, live_server: LiveServer, slug: str
) -> None:
    store_page(live_server.backends.pages, slug)
    domain = f"n{uuid.uuid4().hex[:8]}.example"
    forged = "ceo@victim.example"
    query = (
        f"utm_source=li&utm_campaign=q4&email={forged}&person[email]={forged}"
        f"&type=lead_form&occurred_at=2020-01-01&account={domain}"
    )
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{live_server.url}/p/{slug}?{query}")
    page.wait_for_load_state("networkidle")
    wait_for(lambda: events_on(live_server, slug), timeout=10, what="the page view")

    # The form's own button is one of the page's buttons: its click is a CTA click, and the
    # post that follows the lead form (the hero's link would load the page again, without
    # the campaign in its address).
    page.get_by_role("textbox", name="Work email").fill(f"ana@{domain}")
    page.get_by_role("button", name="Book the audit").last.click()
    page.wait_for_url(f"**/p/{slug}?submitted=1")
    wait_for(
        lambda: any(e.type == "lead_form" for e in events_on(live_server, slug)),
        timeout=10,
        what="the lead form",
    )
    context.close()

    events = events_on(live_server, slug)
    view = events[0]
    (click,) = [e for e in events if e.type == "cta_click"]
    (lead,) = [e for e in events if e.type == "lead_form"]
    assert view.type == "page_view"
    assert click.properties["cta_label"] == "Book the audit"
    for event in (view, click, lead):
        assert event.properties["utm_source"] == "li"
        assert event.properties["utm_campaign"] == "q4"
    assert lead.person.email == f"ana@{domain}"
    assert all(e.person.email in (None, f"ana@{domain}") for e in events)
    assert all(e.account.domain in (None, domain) for e in events if e.type != "lead_form")
    assert forged not in "".join(e.model_dump_json() for e in events)
    assert live_server.backends.signals.get_person(forged) is None
    assert view.page.url == f"{live_server.url}/p/{slug}?utm_source=li&utm_campaign=q4"
    assert lead.properties["visitor_id"] == view.properties["visitor_id"]
