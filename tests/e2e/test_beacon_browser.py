"""In chromium: the page-view beacon of /p/{slug} pages, Global Privacy
Control, and the no-JavaScript lead form's campaign fields."""

from __future__ import annotations

import threading
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext
from werkzeug.serving import make_server

from api.app import create_app
from backends.embedded.queues import DurableQueue
from backends.ports import StreamQuery
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from schemas.signals.events import Event
from tests.e2e.conftest import LiveServer
from tests.e2e.sample_page import store_page
from tests.polling import wait_for

pytestmark = pytest.mark.browser

GPC_ON = "Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', {get: () => true});"


def page_views(live_server: LiveServer, slug: str) -> list[Event]:
    queue = live_server.backends.signal_queue
    assert isinstance(queue, DurableQueue)
    assert queue.drain(timeout=10)
    events = live_server.backends.signals.read_stream(
        StreamQuery(types=("page_view",), limit=1000)
    ).events
    return [e for e in events if e.page.path == f"/p/{slug}"]


def open_page(context: BrowserContext, url: str) -> list[str]:
    """Open a page until its network is idle; the browser console's errors."""
    errors: list[str] = []
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(url)
    page.wait_for_load_state("networkidle")
    return errors


def test_opening_a_page_with_utm_parameters_stores_one_page_view_with_them(
    browser: Browser, live_server: LiveServer, slug: str
) -> None:
    """Page views: the beacon sends path, title, UTM fields and a visitor id."""
    store_page(live_server.backends.pages, slug)
    context = browser.new_context()

    errors = open_page(context, f"{live_server.url}/p/{slug}?utm_source=li&utm_campaign=q4")
    wait_for(lambda: page_views(live_server, slug), timeout=10, what="a page view")
    visitor = context.pages[0].evaluate("localStorage.getItem('frontdoor_vid')")
    cookies = context.cookies()
    context.close()

    (view,) = page_views(live_server, slug)
    assert errors == []
    assert cookies == []
    assert (view.source, view.person.email, view.account.domain) == ("site", None, None)
    assert view.page.title is not None
    assert view.properties == {"utm_source": "li", "utm_campaign": "q4", "visitor_id": visitor}


def test_with_global_privacy_control_on_the_beacon_sends_nothing(
    browser: Browser, live_server: LiveServer, slug: str
) -> None:
    """A browser that signals GPC is not counted; one without it, on the same page,
    is (so the first wait was long enough to see a beacon)."""
    store_page(live_server.backends.pages, slug)
    private = browser.new_context()
    private.add_init_script(GPC_ON)

    open_page(private, f"{live_server.url}/p/{slug}?utm_source=li")
    private.close()
    counted = browser.new_context()
    open_page(counted, f"{live_server.url}/p/{slug}?utm_source=li")
    wait_for(lambda: page_views(live_server, slug), timeout=10, what="the second page view")
    counted.close()

    assert len(page_views(live_server, slug)) == 1


def test_without_javascript_the_page_is_whole_and_the_lead_form_carries_the_utm_fields(
    browser: Browser, live_server: LiveServer, slug: str
) -> None:
    """Campaign attribution: the no-JavaScript form's event takes the UTM fields of
    the page URL (its post's Referer); no page view is sent without JavaScript."""
    domain = f"n{uuid.uuid4().hex[:8]}.example"
    store_page(live_server.backends.pages, slug)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/p/{slug}?utm_source=li&utm_campaign=q4")

    assert page.locator("main h1").count() == 1
    assert page.locator("form[method=post] button[type=submit]").count() >= 1
    page.get_by_role("textbox", name="Work email").fill(f"ana@{domain}")
    page.get_by_role("button", name="Book the audit").last.click()
    page.wait_for_url(f"**/p/{slug}?submitted=1")
    context.close()

    timeline = live_server.backends.signals.read_stream(StreamQuery(domain=domain)).events
    assert page_views(live_server, slug) == []
    (lead,) = timeline
    assert lead.type == "lead_form"
    assert lead.properties == {"utm_source": "li", "utm_campaign": "q4"}


def test_with_javascript_the_lead_form_links_the_visitors_page_views_to_the_person(
    browser: Browser, live_server: LiveServer, slug: str
) -> None:
    """Anonymous to known: the beacon adds the visitor id to the form, so the earlier
    page view joins the person's timeline."""
    domain = f"n{uuid.uuid4().hex[:8]}.example"
    store_page(live_server.backends.pages, slug)
    context = browser.new_context()
    open_page(context, f"{live_server.url}/p/{slug}?utm_campaign=q4")
    wait_for(lambda: page_views(live_server, slug), timeout=10, what="a page view")
    page = context.pages[0]

    page.get_by_role("textbox", name="Work email").fill(f"ana@{domain}")
    page.get_by_role("button", name="Book the audit").last.click()
    page.wait_for_url(f"**/p/{slug}?submitted=1")
    page.wait_for_load_state("networkidle")
    # The thank-you page is a page view of the now known visitor.
    wait_for(lambda: len(page_views(live_server, slug)) == 2, timeout=10, what="2 page views")
    context.close()

    timeline = live_server.backends.signals.read_stream(StreamQuery(email=f"ana@{domain}")).events
    # The form's button is one of the page's buttons: its click is a CTA click of the visitor.
    # Its beacon and the form's post leave at once, so either may be stored first.
    types = [e.type for e in timeline]
    assert types[0] == types[-1] == "page_view"
    assert sorted(types[1:-1]) == ["cta_click", "lead_form"]
    assert timeline[1].properties["utm_campaign"] == "q4"


def test_with_consent_required_nothing_is_sent_until_the_visitor_says_yes(
    browser: Browser, tmp_path: Path, slug: str
) -> None:
    """BEACON_CONSENT=required shows our own small notice; No sends nothing and is
    remembered; Yes sends the page view."""
    with consent_server(tmp_path) as live:
        store_page(live.backends.pages, slug)
        declined = browser.new_context()
        page = declined.new_page()
        page.goto(f"{live.url}/p/{slug}")
        page.get_by_role("button", name="No").click()
        page.reload()
        page.wait_for_load_state("networkidle")
        notice_after_no = page.get_by_role("region", name="Analytics consent").count()
        declined.close()
        before = len(page_views(live, slug))
        agreed = browser.new_context()
        page = agreed.new_page()
        page.goto(f"{live.url}/p/{slug}?utm_source=li")

        page.get_by_role("button", name="Yes").click()
        wait_for(lambda: page_views(live, slug), timeout=10, what="a page view")
        agreed.close()

        assert (before, notice_after_no) == (0, 0)
        (view,) = page_views(live, slug)
        assert view.properties["utm_source"] == "li"


@contextmanager
def consent_server(tmp_path: Path) -> Iterator[LiveServer]:
    """The app with BEACON_CONSENT=required on a loopback port of its own."""
    holder: dict[str, Any] = {}
    server = make_server("127.0.0.1", 0, lambda e, s: holder["app"](e, s), threaded=True)
    url = f"http://127.0.0.1:{server.server_port}"
    settings = Settings(data_dir=tmp_path / "data", public_base_url=url, beacon_consent="required")
    backends = build_backends(settings)
    holder["app"] = create_app(app_config(settings), backends).wsgi_app
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield LiveServer(url=url, backends=backends)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
        backends.close()


def test_other_sites_load_the_beacon_from_its_stable_address(live_server: LiveServer) -> None:
    """/beacon.js, for the company's other sites (cached an hour)."""
    with urllib.request.urlopen(f"{live_server.url}/beacon.js", timeout=5) as response:  # noqa: S310  # loopback
        body = response.read()
        headers = response.headers

    assert headers["Content-Type"].startswith("text/javascript")
    assert headers["Cache-Control"] == "public, max-age=3600"
    assert b"sendBeacon" in body
