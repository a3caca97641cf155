"""The machine-readable files: OpenAPI, llms.txt, AGENTS.md, API docs, sitemaps, robots, portal.

Every body is rendered once, on the first request for any of them (content and models are
fixed at start; rendering the OpenAPI document and the portal takes about a quarter of a
second, which a cold start does not pay, bench/bench_startup.py), and served with open CORS,
Cache-Control and a strong ETag (304 on a match), like the public read API. Only the sitemaps
may change at run time: pass `page_entries` to list published landing pages, and they are
rendered per request (the ETag still follows the bytes).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from flask import Blueprint, Response, request

from api.built_once import BuiltOnce
from api.errors import TITLES, answer_unavailable, not_found
from api.rest.http_cache import (
    CORS_SIMPLE_HEADERS,
    PUBLIC_CACHE_CONTROL,
    CachedBody,
    cached_response,
)
from renderers.text_files import DOC_FILES
from schemas.catalog import Catalog

if TYPE_CHECKING:
    from renderers.sitemap import SitemapEntry

__all__ = ["FILE_PATHS", "SITEMAP_PATHS", "create_files_blueprint", "render_files"]

MARKDOWN = "text/markdown"
TEXT = "text/plain"
XML = "application/xml"
# Public pages listed in the sitemaps before any landing page.
SITEMAP_PATHS = (
    "/developers",
    "/developers.md",
    "/llms.txt",
    "/llms-full.txt",
    "/AGENTS.md",
    "/content-api.md",
    "/signals-api.md",
    "/signals-agent.md",
    "/mcp.md",
)

# Every fixed file render_files gives, known before it runs (a test keeps the two equal).
FILE_PATHS = (
    "/openapi.json",
    "/api/openapi.json",
    "/llms.txt",
    "/llms-full.txt",
    "/robots.txt",
    "/developers",
    "/developers.md",
    "/developers.json",
    *DOC_FILES,
)

PageEntries = Callable[[], Iterable["SitemapEntry"]]


def create_files_blueprint(
    catalog: Catalog,
    base_url: str,
    *,
    auth_url: str | None = None,
    page_entries: PageEntries | None = None,
) -> Blueprint:
    """Every file of SPEC's machine-readable table, rendered from content/ and the models."""
    bp = Blueprint("files", __name__)
    answer_unavailable(bp, "The page store is unavailable; retry")  # the sitemaps read it
    for source in DOC_FILES.values():
        if source not in catalog.docs:
            raise ValueError(f"content/docs/{source} is missing: it is one of the served docs")
    rendered = BuiltOnce(lambda: render_files(catalog, base_url, auth_url=auth_url))
    # One rule for the files at the root: a start compiles a URL builder for every rule.
    at_root = ", ".join(f'"{path[1:]}"' for path in FILE_PATHS if path.count("/") == 1)

    @bp.get(f"/<any({at_root}):name>")
    def get_file(name: str) -> Response:
        return cached_response(rendered.get()["/" + name])

    @bp.get("/")
    def root() -> Response:
        return portal_redirect()

    for path in FILE_PATHS:
        if path.count("/") > 1:
            bp.add_url_rule(path, _endpoint(path), _file_view(rendered, path))
    error_pages = BuiltOnce(lambda: render_error_pages(base_url))

    @bp.get("/errors/<code>")
    def get_error_page(code: str) -> Response:
        body = error_pages.get().get(code)
        if body is None:
            raise not_found(f"No error code {code}")
        return cached_response(body)

    def sitemap(*, images: bool) -> CachedBody:
        pages = page_entries() if page_entries else ()
        return _sitemap_body(base_url, pages, images=images)

    # With pages, each request reads them; without, the first renders the fixed entries once.
    # Neither reads a page at start.
    sitemaps = BuiltOnce(lambda: {"sitemap": sitemap(images=False), "images": sitemap(images=True)})

    @bp.get("/sitemap.xml")
    def get_sitemap() -> Response:
        if page_entries is None:
            return cached_response(sitemaps.get()["sitemap"])
        return cached_response(sitemap(images=False))

    @bp.get("/sitemap-images.xml")
    def get_image_sitemap() -> Response:
        if page_entries is None:
            return cached_response(sitemaps.get()["images"])
        return cached_response(sitemap(images=True))

    return bp


def _sitemap_body(base_url: str, pages: Iterable[SitemapEntry], *, images: bool) -> CachedBody:
    """sitemap.xml (or, with `images`, sitemap-images.xml): the fixed pages, then `pages`."""
    # The sitemap renderer (and xml.etree) loads with the first sitemap asked for (bench_startup).
    from renderers.sitemap import SitemapEntry, render_image_sitemap, render_sitemap

    entries = [*(SitemapEntry(loc=base_url + path) for path in SITEMAP_PATHS), *pages]
    render = render_image_sitemap if images else render_sitemap
    return CachedBody.of(render(entries).encode(), XML)


def render_files(catalog: Catalog, base_url: str, *, auth_url: str | None) -> dict[str, CachedBody]:
    """Path -> prepared body for every fixed file."""
    # The renderers load with the first file asked for, not with the app (bench_startup).
    from renderers.api_reference import build_reference
    from renderers.developers import render_manifest, render_portal_html, render_portal_markdown
    from renderers.text_files import (
        error_rows,
        expand_doc,
        render_llms_full,
        render_llms_txt,
        render_robots,
    )
    from schemas.openapi.document import build_openapi
    from schemas.openapi.operation import ERROR_MEANINGS

    openapi = build_openapi(base_url=base_url, auth_url=auth_url, catalog=catalog)
    reference = build_reference(openapi)
    errors = error_rows(ERROR_MEANINGS, TITLES)
    docs: dict[str, str] = {}
    for path, source in DOC_FILES.items():
        if source not in catalog.docs:
            raise ValueError(f"content/docs/{source} is missing: it is the source of {path}")
        docs[path] = expand_doc(
            catalog.docs[source], base_url=base_url, reference=reference, errors=errors
        )
    api_docs = [
        docs[path]
        for path in ("/content-api.md", "/signals-api.md", "/signals-agent.md", "/mcp.md")
    ]
    openapi_json = CachedBody.of(
        json.dumps(openapi, ensure_ascii=False).encode(), "application/json"
    )
    texts = {
        "/llms.txt": (render_llms_txt(catalog, reference, base_url=base_url), TEXT),
        "/llms-full.txt": (
            render_llms_full(catalog, reference, api_docs, base_url=base_url),
            TEXT,
        ),
        "/robots.txt": (render_robots(base_url), TEXT),
        "/developers": (
            render_portal_html(
                reference, company=catalog.company, brand=catalog.brand, errors=errors
            ),
            "text/html",
        ),
        "/developers.md": (
            render_portal_markdown(reference, company=catalog.company, errors=errors),
            MARKDOWN,
        ),
        "/developers.json": (
            render_manifest(reference, company=catalog.company, auth_url=auth_url or base_url),
            "application/json",
        ),
        **{path: (text, MARKDOWN) for path, text in docs.items()},
    }
    bodies = {path: CachedBody.of(text.encode(), media) for path, (text, media) in texts.items()}
    return {"/openapi.json": openapi_json, "/api/openapi.json": openapi_json, **bodies}


def render_error_pages(base_url: str) -> dict[str, CachedBody]:
    """The page each problem body's `type` names, for every code the service answers."""
    from renderers.error_pages import render_error_page
    from renderers.text_files import error_rows
    from schemas.openapi.operation import ERROR_MEANINGS

    statuses = {code.strip("`"): status for status, code, _ in error_rows(ERROR_MEANINGS, TITLES)}
    return {
        code: CachedBody.of(
            render_error_page(
                code, status=statuses.get(code, "Error"), title=title, base_url=base_url
            ).encode(),
            "text/html",
        )
        for code, title in TITLES.items()
    }


def portal_redirect() -> Response:
    """The base URL: 302 to the developer portal, the HTML one for a browser and its JSON
    manifest for every other client (`*/*` and no Accept included: the API speaks JSON)."""
    wanted = request.accept_mimetypes.best_match(("application/json", "text/html"))
    location = "/developers" if wanted == "text/html" else "/developers.json"
    headers = {
        "Location": location,
        "Vary": "Accept",
        "Cache-Control": PUBLIC_CACHE_CONTROL,
        **CORS_SIMPLE_HEADERS,
    }
    return Response(status=302, headers=headers)


def _endpoint(path: str) -> str:
    return "file_" + path.strip("/").replace("/", "_").replace(".", "_").replace("-", "_")


def _file_view(rendered: BuiltOnce[dict[str, CachedBody]], path: str) -> Callable[[], Response]:
    def view() -> Response:
        return cached_response(rendered.get()[path])

    return view
