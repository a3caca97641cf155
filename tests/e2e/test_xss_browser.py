"""XSS: each vector of xss_vectors.txt in every text and link field of a page executes nothing.

Pages are written straight into the PageStore, past the quality gate, so the renderer alone
must hold. Each page is loaded in chromium with JavaScript on and the page's own CSP.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Dialog, Page

from tests.e2e.conftest import LiveServer
from tests.e2e.sample_page import store_page

pytestmark = pytest.mark.browser

VECTORS = [
    line
    for line in Path(__file__).with_name("xss_vectors.txt").read_text(encoding="utf-8").splitlines()
    if line.strip()
]

# What the DOM holds once loaded: tag counts outside richtext, and anything that could run.
INSPECT = """() => {
  const outside = [...document.querySelectorAll('*')].filter(e => !e.closest('.prose'));
  const tags = {};
  for (const e of outside) tags[e.localName] = (tags[e.localName] || 0) + 1;
  const handlers = [...document.querySelectorAll('*')].flatMap(e =>
    [...e.attributes].filter(a => a.name.startsWith('on') || a.name === 'style' ||
      a.name === 'srcdoc' || a.name === 'formaction').map(a => e.localName + '@' + a.name));
  const urls = [...document.querySelectorAll('[href],[src],[action],[data],[poster]')].flatMap(e =>
    ['href', 'src', 'action', 'data', 'poster'].map(n => e.getAttribute(n))
      .filter(v => v !== null));
  const scripts = [...document.scripts].map(s => s.src ? new URL(s.src).pathname : s.type);
  return {tags, handlers, urls, scripts, csp: window.__cspViolations};
}"""
CSP_LISTENER = """window.__cspViolations = [];
document.addEventListener('securitypolicyviolation',
  e => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));"""
SAFE_URL_PREFIXES = ("/", "#", "https://", "mailto:")


def everywhere(vector: str, slug: str) -> dict[str, Any]:
    """A page with `vector` (cut to each field's limit) in every text and link field."""

    def v(limit: int = 4000) -> str:
        return vector[:limit]

    items = [{"title": v(80), "body": v(320)}]
    return {
        "slug": slug,
        "title": v(60),
        "description": v(160),
        "og_image_url": v(),
        "cta_label": v(40),
        "cta_href": v(),
        "blocks": [
            {
                "type": "hero",
                "eyebrow": v(120),
                "title": v(90),
                "sub": v(220),
                "bullets": [v(100)],
                "ctaLabel": v(40),
                "ctaHref": v(),
                "imageUrl": v(),
                "imageAlt": v(),
            },
            {"type": "logos", "title": v()},
            {"type": "stats", "items": [{"value": v(24), "label": v(80)}]},
            {"type": "features", "title": v(), "lede": v(), "items": items},
            {"type": "steps", "title": v(), "lede": v(), "items": items},
            {"type": "quote", "quote": v(500), "who": v(), "company": v()},
            {"type": "richtext", "title": v(), "markdown": v()},
            {"type": "faq", "title": v(), "items": [{"q": v(), "a": v()}]},
            {"type": "leadform", "title": v(), "sub": v()},
            {"type": "cta", "title": v(120), "sub": v(), "ctaLabel": v(40), "ctaHref": v()},
        ],
    }


def inspect(page: Page, url: str) -> dict[str, Any]:
    response = page.goto(url)
    assert response is not None
    assert response.status == 200
    result: dict[str, Any] = page.evaluate(INSPECT)
    return result


@pytest.mark.spec("pages.security")
def test_xss_vectors_in_every_field_execute_nothing(
    browser: Browser, live_server: LiveServer, slug: str
) -> None:
    """DESIGN: 50+ XSS vectors in every text field run no script and add no markup."""
    context = browser.new_context()
    context.add_init_script(CSP_LISTENER)
    # 66 pages a minute from one visitor is past collect's page-view limit (its 429s would show
    # as console errors): the browser signals Global Privacy Control, so the beacon stays quiet.
    context.add_init_script(
        "Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', {get: () => true});"
    )
    page = context.new_page()
    dialogs: list[str] = []
    console: list[str] = []
    requests: list[str] = []
    page.on("dialog", lambda d: _record_and_dismiss(d, dialogs))
    page.on("console", lambda m: console.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: console.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    store_page(live_server.backends.pages, f"{slug}-plain", page_input=everywhere("Plain", slug))
    baseline = inspect(page, f"{live_server.url}/p/{slug}-plain")
    failures: dict[str, Any] = {}
    safe_urls = (*SAFE_URL_PREFIXES, f"{live_server.url}/")

    for n, vector in enumerate(VECTORS):
        target = f"{slug}-{n}"
        store_page(live_server.backends.pages, target, page_input=everywhere(vector, target))
        for seen in (dialogs, console, requests):
            seen.clear()
        found = inspect(page, f"{live_server.url}/p/{target}")
        own = ("/p/", "/static/", "/api/public/v1/collect")  # the beacon's page view
        foreign = [u for u in requests if not u.startswith(tuple(live_server.url + p for p in own))]
        problems = {
            "dialogs": dialogs[:],
            "console": console[:],
            "foreign_requests": foreign,
            "handlers": found["handlers"],
            "unsafe_urls": [u for u in found["urls"] if not u.startswith(safe_urls)],
            "scripts": [
                s
                for s in found["scripts"]
                if s != "application/ld+json" and not s.startswith("/static/beacon.")
            ],
            "extra_tags": dict(Counter(found["tags"]) - Counter(baseline["tags"])),
            "csp": found["csp"],
        }
        if any(problems.values()):
            failures[vector] = {k: p for k, p in problems.items() if p}

    assert len(VECTORS) >= 50
    assert failures == {}
    context.close()


def _record_and_dismiss(dialog: Dialog, dialogs: list[str]) -> None:
    dialogs.append(dialog.message)
    dialog.dismiss()
