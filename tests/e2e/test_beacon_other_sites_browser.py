"""The beacon on the company's other sites, in chromium: a page of another origin that loads
`{base_url}/beacon.js` as signals-api.md shows, with none of our stylesheets and a stylesheet
of its own."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from werkzeug.serving import make_server

from api.app import create_app
from backends.embedded.queues import DurableQueue
from backends.ports import StreamQuery
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from schemas.signals.events import Event
from tests.e2e.conftest import LiveServer
from tests.polling import wait_for

pytestmark = pytest.mark.browser

# The other site's own styles: a cookie banner class of its own, hidden once dismissed (a name
# a consent tool may well use), and a footer at the very end of a long page.
SITE_CSS = (
    "body { margin: 0; font: 18px/1.6 Georgia, serif; }"
    " .consent, .frontdoor-consent { display: none; }"
    " article { padding: 1rem; } p { margin: 0 0 1rem; }"
    " footer { padding: 1rem; background: #eee; }"
)


@dataclass(frozen=True)
class OtherSite:
    """The service, and another origin whose pages load its /beacon.js."""

    service: LiveServer
    origin: str


def other_site_app(service_url: dict[str, str]) -> Callable[..., list[bytes]]:
    """A long article at /pricing; under /eu/ its script tag waits for consent."""

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        wait = " data-consent='required'" if environ["PATH_INFO"].startswith("/eu/") else ""
        script = f"<script src='{service_url['url']}/beacon.js' defer{wait}></script>"
        paragraphs = "".join(f"<p>Paragraph {n} of the pricing page.</p>" for n in range(40))
        html = (
            "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>Pricing</title><style>{SITE_CSS}</style>{script}</head>"
            f"<body><article><h1>Pricing</h1>{paragraphs}</article>"
            "<footer id='end'>The end of the other site's page</footer></body></html>"
        )
        start_response("200 OK", [("Content-Type", "text/html; charset=utf-8")])
        return [html.encode()]

    return app


@contextmanager
def serving(host: str, app: Callable[..., Any]) -> Iterator[int]:
    """`app` on a free port of `host`, in a thread."""
    server = make_server(host, 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="module")
def other(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OtherSite]:
    """The app on 127.0.0.1; the other site on localhost (another origin), listed in
    COLLECT_ALLOWED_ORIGINS."""
    service_url: dict[str, str] = {}
    holder: dict[str, Any] = {}
    with (
        serving("localhost", other_site_app(service_url)) as site_port,
        serving("127.0.0.1", lambda e, s: holder["app"](e, s)) as port,
    ):
        origin = f"http://localhost:{site_port}"
        service_url["url"] = f"http://127.0.0.1:{port}"
        settings = Settings(
            data_dir=tmp_path_factory.mktemp("other-site") / "data",
            public_base_url=service_url["url"],
            collect_allowed_origins=[origin],
        )
        backends = build_backends(settings)
        holder["app"] = create_app(app_config(settings), backends).wsgi_app
        yield OtherSite(
            service=LiveServer(url=service_url["url"], backends=backends), origin=origin
        )
        backends.close()


def site_events(other: OtherSite, **query: Any) -> list[Event]:
    queue = other.service.backends.signal_queue
    assert isinstance(queue, DurableQueue)
    assert queue.drain(timeout=10)
    return other.service.backends.signals.read_stream(StreamQuery(limit=1000, **query)).events


def views_of(other: OtherSite, visitor: str) -> list[Event]:
    return [
        e
        for e in site_events(other, types=("page_view",))
        if e.properties.get("visitor_id") == visitor
    ]


def opened(browser: Browser, url: str, *, width: int = 1280) -> tuple[Page, list[str]]:
    """A new browser context on `url`, its network idle; the console's errors."""
    errors: list[str] = []
    page = browser.new_context(viewport={"width": width, "height": 800}).new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(url)
    page.wait_for_load_state("networkidle")
    return page, errors


def test_a_page_of_another_site_is_counted_with_its_campaign(
    browser: Browser, other: OtherSite
) -> None:
    """signals-api.md Page views: the other site's page view names its own URL, path and title."""
    page, errors = opened(browser, f"{other.origin}/pricing?utm_source=li&utm_campaign=q4")
    visitor = page.evaluate("localStorage.getItem('frontdoor_vid')")
    wait_for(lambda: views_of(other, visitor), timeout=10, what="a page view")
    page.context.close()

    (view,) = views_of(other, visitor)
    assert errors == []
    assert (view.page.path, view.page.title) == ("/pricing", "Pricing")
    assert view.page.url == f"{other.origin}/pricing?utm_source=li&utm_campaign=q4"
    assert view.properties == {"utm_source": "li", "utm_campaign": "q4", "visitor_id": visitor}


def test_identify_on_another_site_links_the_visitors_page_views_to_the_person(
    browser: Browser, other: OtherSite
) -> None:
    """signals-api.md: after sign-up, window.frontdoor.identify(email) sends an identify event
    and the page view before it joins the person's timeline."""
    email = f"ana@n{uuid.uuid4().hex[:8]}.example"
    page, _ = opened(browser, f"{other.origin}/pricing")
    visitor = page.evaluate("localStorage.getItem('frontdoor_vid')")
    wait_for(lambda: views_of(other, visitor), timeout=10, what="a page view")

    page.evaluate("email => window.frontdoor.identify(email)", email)
    wait_for(lambda: len(site_events(other, email=email)) == 2, timeout=10, what="the link")
    page.context.close()

    timeline = site_events(other, email=email)
    assert [e.type for e in timeline] == ["identify", "page_view"]  # newest first
    assert {e.properties["visitor_id"] for e in timeline} == {visitor}


@pytest.mark.parametrize("width", [390, 1280])
def test_on_another_site_the_consent_notice_shows_at_the_foot_without_our_stylesheet(
    browser: Browser, other: OtherSite, width: int, screenshots: Path
) -> None:
    """data-consent="required" on another site: the notice styles itself (that site's own
    rules for a "consent" class do not hide it), sits at the foot of the window, and the page's
    end scrolls into view above it; nothing is sent before Yes."""
    page, errors = opened(browser, f"{other.origin}/eu/pricing", width=width)
    visitor = page.evaluate("localStorage.getItem('frontdoor_vid')")
    notice = page.get_by_role("region", name="Analytics consent")
    notice.wait_for()
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    bar = notice.bounding_box()
    end = page.locator("#end").bounding_box()
    yes = page.get_by_role("button", name="Yes").bounding_box()
    background = notice.evaluate("e => getComputedStyle(e).backgroundColor")
    wide = page.evaluate("document.documentElement.scrollWidth")
    page.screenshot(path=str(screenshots / f"beacon-other-site-consent-{width}.png"))
    sent_before = views_of(other, visitor) if visitor else []

    page.get_by_role("button", name="Yes").click()
    visitor = page.evaluate("localStorage.getItem('frontdoor_vid')")
    wait_for(lambda: views_of(other, visitor), timeout=10, what="a page view after Yes")
    page.reload()
    page.wait_for_load_state("networkidle")
    shown_again = notice.count()
    page.context.close()

    assert errors == []
    assert sent_before == []
    assert bar is not None
    assert end is not None
    assert yes is not None
    assert abs(bar["y"] + bar["height"] - 800) < 1  # at the foot of the window
    assert end["y"] + end["height"] <= bar["y"]  # the page's end is above it
    assert yes["width"] >= 44  # a target a thumb can hit
    assert yes["height"] >= 40
    assert background == "rgb(255, 255, 255)"
    assert wide <= width
    assert shown_again == 0
