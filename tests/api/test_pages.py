"""GET /p/{slug}: published pages only, on-brand 404s, previews, caching headers and assets."""

from __future__ import annotations

import dataclasses
import functools
import re
from datetime import timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient

import api.app
from api.app import create_app
from api.rest.pages import create_pages_blueprint
from backends.bundle import Backends
from backends.gcp.cdn import CloudCdn
from backends.ports import PageStatus
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from renderers.page_html import build_site
from services.previews import make_preview_token
from tests.backends.test_gcp_edges import ComputeWire
from tests.conftest import CONTENT_KEY
from tests.e2e.sample_page import STORED_AT as NOW
from tests.e2e.sample_page import all_blocks_page, store_page

SECRET = b"preview-secret-for-tests-0123456789"


def preview_client(backends: Backends) -> FlaskClient:
    """An app with only the pages blueprint, holding a preview secret and a fixed clock."""
    app = Flask(__name__)
    site = build_site(backends.catalog, base_url="http://testserver")
    app.register_blueprint(
        create_pages_blueprint(
            site=lambda: site, pages=backends.pages, clock=lambda: NOW, preview_secret=SECRET
        )
    )
    return app.test_client()


@pytest.mark.spec("pages.serve")
def test_published_page_is_served_as_html_with_strict_security_headers(
    client: FlaskClient, backends: Backends
) -> None:
    """SPEC: pages published through the content API are served at GET /p/{slug}."""
    store_page(backends.pages, "audit")

    response = client.get("/p/audit")

    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert "<h1" in response.text
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp
    assert "frame-ancestors 'none'" in csp
    assert "'unsafe-inline'" not in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "strict-origin-when-cross-origin"
    assert "s-maxage" in response.headers["Cache-Control"]
    assert response.headers["Cache-Control"].startswith("public")


@pytest.mark.spec("pages.serve")
def test_repeat_request_with_the_etag_answers_304(client: FlaskClient, backends: Backends) -> None:
    """DESIGN: strong ETag and If-None-Match -> 304."""
    store_page(backends.pages, "audit")
    etag = client.get("/p/audit").headers["ETag"]

    response = client.get("/p/audit", headers={"If-None-Match": etag})

    assert re.fullmatch(r'"[0-9a-f]{32}"', etag)
    assert response.status_code == 304
    assert response.data == b""


@pytest.mark.spec("pages.serve")
def test_a_change_made_by_another_process_shows_within_a_second(backends: Backends) -> None:
    """DESIGN pages: lookups are remembered briefly; a write elsewhere shows once they expire."""
    seconds = [100.0]
    app = Flask(__name__)
    site = build_site(backends.catalog, base_url="http://testserver")
    blueprint = create_pages_blueprint(
        site=lambda: site, pages=backends.pages, clock=lambda: NOW, monotonic=lambda: seconds[0]
    )
    app.register_blueprint(blueprint)
    client = app.test_client()
    store_page(backends.pages, "audit")
    first = client.get("/p/audit")

    store_page(backends.pages, "audit", title="Pipeline audit, second edition")
    within = client.get("/p/audit")
    seconds[0] += 1.01
    after = client.get("/p/audit")

    assert within.headers["ETag"] == first.headers["ETag"]
    assert "second edition" in after.text
    assert after.headers["ETag"] != first.headers["ETag"]


@pytest.mark.spec("pages.serve")
@pytest.mark.parametrize("status", ["draft", "unpublished"])
def test_drafts_and_unpublished_pages_answer_an_on_brand_404(
    client: FlaskClient, backends: Backends, status: PageStatus
) -> None:
    """DESIGN: only published pages are served; others answer 404 with HTML."""
    store_page(backends.pages, "audit", status=status)

    response = client.get("/p/audit")

    assert response.status_code == 404
    assert response.mimetype == "text/html"
    assert "We could not find that page" in response.text
    assert response.headers["X-Robots-Tag"] == "noindex"


@pytest.mark.spec("pages.serve")
@pytest.mark.parametrize(
    "path",
    [
        "/p/never-written",
        "/p/a/b/c",
        "/p/",
        "/p",
        "/p/..",
        "/p/Not_A_Slug",
        "/p/%2e%2e",
        "/p//never-written",
        "/p//",
    ],
)
def test_unknown_page_paths_answer_html_404(client: FlaskClient, path: str) -> None:
    """DESIGN: unknown routes answer JSON 404, except under /p/, which answers HTML."""
    response = client.get(path)

    assert response.status_code == 404
    assert response.mimetype == "text/html"


@pytest.mark.spec("pages.preview")
def test_valid_preview_token_shows_the_draft_with_noindex_and_a_banner(backends: Backends) -> None:
    """DESIGN: a draft's preview_url renders it with noindex and a visible draft banner."""
    stored = store_page(backends.pages, "audit", status="draft")
    token = make_preview_token("audit", stored.version, NOW + timedelta(days=7), SECRET)

    response = preview_client(backends).get(f"/p/audit?preview={token}")

    assert response.status_code == 200
    assert "Draft preview" in response.text
    assert '<meta name="robots" content="noindex, nofollow">' in response.text
    assert response.headers["Cache-Control"] == "private, no-store"


@pytest.mark.spec("pages.preview")
@pytest.mark.parametrize("which", ["forged", "expired", "old version"])
def test_bad_preview_token_answers_404(backends: Backends, which: str) -> None:
    """DESIGN: preview links are signed per version and expire."""
    stored = store_page(backends.pages, "audit", status="draft")
    expires, version = NOW + timedelta(days=1), stored.version
    if which == "expired":
        expires = NOW - timedelta(seconds=1)
    if which == "old version":
        version = stored.version - 1
    token = make_preview_token("audit", version, expires, SECRET)
    if which == "forged":
        token = token[:-4] + "AAAA"

    response = preview_client(backends).get(f"/p/audit?preview={token}")

    assert response.status_code == 404


@pytest.mark.spec("pages.preview")
def test_a_preview_is_rendered_once_per_version_and_kept_as_live_pages_are(
    backends: Backends,
) -> None:
    """content-api.md Page states: anyone with the link reads one rendering of the version."""
    stored = store_page(backends.pages, "audit", status="draft", title="First title")
    token = make_preview_token("audit", stored.version, NOW + timedelta(days=7), SECRET)
    client = preview_client(backends)
    first = client.get(f"/p/audit?preview={token}")
    # The same version with other content (no write path does this): a kept rendering shows
    # the first content, a new one the second.
    backends.pages.save_page(
        dataclasses.replace(stored, page_input={**stored.page_input, "title": "Second title"}),
        expected_version=stored.version,
    )

    again = client.get(f"/p/audit?preview={token}")
    newer = store_page(backends.pages, "audit", status="draft", title="Third title")
    newer_token = make_preview_token("audit", newer.version, NOW + timedelta(days=7), SECRET)
    next_version = client.get(f"/p/audit?preview={newer_token}")

    assert first.status_code == again.status_code == next_version.status_code == 200
    assert "<title>First title" in again.text
    assert again.headers["ETag"] == first.headers["ETag"]
    assert again.headers["Cache-Control"] == "private, no-store"
    assert "<title>Third title" in next_version.text


@pytest.mark.spec("pages.preview")
@pytest.mark.parametrize("status", ["draft", "published"])
@pytest.mark.parametrize("token", ["1999999999.\u00e9t\u00e9", "1999999999.\u2603"])
def test_a_preview_token_that_is_not_ascii_is_a_404_or_the_live_page_never_a_500(
    backends: Backends, status: PageStatus, token: str
) -> None:
    """content-api.md Page states: a link that is not one of ours is an unknown link."""
    store_page(backends.pages, "audit", status=status)

    response = preview_client(backends).get("/p/audit", query_string={"preview": token})

    assert response.status_code == (404 if status == "draft" else 302)


@pytest.mark.spec("pages.serve")
def test_submitted_query_shows_the_thank_you_state(client: FlaskClient, backends: Backends) -> None:
    """DESIGN ingest: the lead form's redirect back to the page shows a thank-you state."""
    store_page(backends.pages, "audit")

    response = client.get("/p/audit?submitted=1")

    assert "Thank you" in response.text
    assert "<form" not in response.text


@pytest.mark.spec("pages.serve")
def test_noindex_page_also_sends_an_x_robots_tag(client: FlaskClient, backends: Backends) -> None:
    """SPEC SitePageInput.noindex: crawlers are told not to index the page."""
    store_page(backends.pages, "audit", noindex=True)

    response = client.get("/p/audit")

    assert response.headers["X-Robots-Tag"] == "noindex"


@pytest.mark.spec("pages.assets")
def test_stylesheet_is_served_at_its_hashed_url_for_a_year(
    client: FlaskClient, backends: Backends
) -> None:
    """The stylesheet has a content hash in its URL and a long cache lifetime."""
    store_page(backends.pages, "audit")
    href = re.search(r'<link rel="stylesheet" href="([^"]+)"', client.get("/p/audit").text)
    assert href is not None

    response = client.get(href.group(1))

    assert response.status_code == 200
    assert response.mimetype == "text/css"
    assert "immutable" in response.headers["Cache-Control"]
    assert b"--c-accent" in response.data
    assert client.get("/static/site.0000.css").status_code == 404


@pytest.mark.spec("pages.sitemap")
def test_sitemaps_list_published_indexable_pages_and_their_images(
    client: FlaskClient, backends: Backends
) -> None:
    """The sitemaps list published pages and their images, never drafts or noindex."""
    store_page(backends.pages, "live", og_image_url="https://img.example/og.png")
    store_page(backends.pages, "hidden", noindex=True)
    store_page(backends.pages, "draft", status="draft")
    store_page(backends.pages, "gone", status="unpublished")

    sitemap = client.get("/sitemap.xml").text
    images = client.get("/sitemap-images.xml").text

    assert "<loc>http://testserver/p/live</loc>" in sitemap
    assert "<lastmod>2026-11-20</lastmod>" in sitemap
    for slug in ("hidden", "draft", "gone"):
        assert f"/p/{slug}<" not in sitemap
    assert "<image:loc>https://img.example/og.png</image:loc>" in images


@pytest.mark.spec("pages.serve")
def test_head_request_answers_the_headers_without_the_body(
    client: FlaskClient, backends: Backends
) -> None:
    """DESIGN pages: HEAD answers like GET with no body (crawlers and CDN checks)."""
    store_page(backends.pages, "audit")
    length = len(client.get("/p/audit").data)

    response = client.head("/p/audit")

    assert response.status_code == 200
    assert response.data == b""
    assert response.headers["Content-Length"] == str(length)


@pytest.mark.spec("pages.serve")
def test_page_published_through_the_content_api_goes_live_changes_and_comes_down(
    client: FlaskClient,
) -> None:
    """SPEC: pages published through the content API are served at /p/{slug}; DELETE hides it."""
    key = {"x-api-key": CONTENT_KEY}
    created = client.post("/api/public/content/pages", json=all_blocks_page("audit"), headers=key)
    live = client.get("/p/audit")

    patch = {"title": "Pipeline audit, second edition"}
    client.patch("/api/public/content/pages/audit", json=patch, headers=key)
    changed = client.get("/p/audit")
    client.delete("/api/public/content/pages/audit", headers=key)
    gone = client.get("/p/audit")

    assert created.status_code == 201
    assert live.status_code == 200
    assert "second edition" in changed.text
    assert gone.status_code == 404


@pytest.mark.spec("pages.serve")
def test_each_content_api_write_changes_the_cached_page_at_once(
    settings: Settings, backends: Backends, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DESIGN pages: publish, patch, unpublish and draft show on this process's next request.

    The lookup memo's clock is stopped, so only the write's own invalidation can show a change.
    """
    stopped = functools.partial(create_pages_blueprint, monotonic=lambda: 100.0)
    monkeypatch.setattr(api.app, "create_pages_blueprint", stopped)
    client = create_app(app_config(settings), backends).test_client()
    key = {"x-api-key": CONTENT_KEY}
    client.post("/api/public/content/pages", json=all_blocks_page("audit"), headers=key)
    live = client.get("/p/audit")
    store_page(backends.pages, "audit", title="Written by another process")
    memoised = client.get("/p/audit")

    client.patch("/api/public/content/pages/audit", json={"title": "Patched"}, headers=key)
    patched = client.get("/p/audit")
    client.delete("/api/public/content/pages/audit", headers=key)
    unpublished = client.get("/p/audit")
    client.patch("/api/public/content/pages/audit", json={"is_published": True}, headers=key)
    republished = client.get("/p/audit", headers={"If-None-Match": patched.headers["ETag"]})
    draft = {**all_blocks_page("audit"), "is_published": False}
    client.post("/api/public/content/pages", json=draft, headers=key)
    drafted = client.get("/p/audit")

    assert live.status_code == 200
    assert memoised.headers["ETag"] == live.headers["ETag"]
    assert "Patched" in patched.text
    assert patched.headers["ETag"] != live.headers["ETag"]
    assert unpublished.status_code == 404
    assert "We could not find that page" in unpublished.text
    assert republished.status_code == 304
    assert drafted.status_code == 404


@pytest.mark.spec("pages.serve")
def test_a_304_and_a_head_carry_the_cached_validators(
    client: FlaskClient, backends: Backends
) -> None:
    """DESIGN: a 304 carries ETag and Cache-Control only; HEAD all of GET's headers, no body."""
    store_page(backends.pages, "audit")
    full = client.get("/p/audit")

    not_modified = client.get("/p/audit", headers={"If-None-Match": f"W/{full.headers['ETag']}"})
    head = client.head("/p/audit")

    assert not_modified.status_code == 304
    assert not_modified.headers["ETag"] == full.headers["ETag"]
    assert not_modified.headers["Cache-Control"] == full.headers["Cache-Control"]
    assert "Content-Security-Policy" not in not_modified.headers
    assert not_modified.data == b""
    assert head.data == b""
    for name in ("ETag", "Cache-Control", "Content-Security-Policy", "Content-Length"):
        assert head.headers[name] == full.headers[name]


@pytest.mark.spec("pages.serve")
def test_a_write_the_cdn_will_not_purge_still_answers_its_success_and_shows_at_once(
    settings: Settings,
    backends: Backends,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """content-api.md: the write is stored before the purge; a purge Cloud CDN refuses (503 from
    urlMaps.invalidateCache) is logged for operators, the write answers 200 (a 500 would invite
    a retry of a write that succeeded), and this process serves the saved version."""
    stopped = functools.partial(create_pages_blueprint, monotonic=lambda: 100.0)
    monkeypatch.setattr(api.app, "create_pages_blueprint", stopped)
    store_page(backends.pages, "audit", page_input=all_blocks_page("audit"))
    refusing = ComputeWire(status=503)
    try:
        cdn = CloudCdn(project="demo-frontdoor", url_map="frontdoor", client=refusing.client())
        client = create_app(
            app_config(settings), dataclasses.replace(backends, cdn=cdn)
        ).test_client()
        live = client.get("/p/audit")

        key = {"x-api-key": CONTENT_KEY}
        patch = client.patch(
            "/api/public/content/pages/audit", json={"title": "Patched"}, headers=key
        )
        after = client.get("/p/audit")
    finally:
        refusing.close()

    assert live.status_code == 200
    assert refusing.requests, "the purge reached the CDN API"
    assert patch.status_code == 200
    assert patch.get_json()["page"]["title"] == "Patched"
    assert "Patched" in after.text
    assert any(
        r.levelname == "ERROR" and "cdn purge of /p/audit failed" in r.getMessage()
        for r in caplog.records
    )
