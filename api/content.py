"""Content API under /api/public/content/pages: create or replace, read, list, patch, unpublish.

Every write runs the quality gate (gate.check_page) over the raw body, so all issues come back
together; the store's version check makes concurrent writers safe; each change purges
`/p/{slug}` from the CDN. Generation (`POST .../generate`) lives with the jobs surface.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, current_app, g, request

from api.auth import require_key
from api.config import AppConfig
from api.errors import ApiError, invalid_payload
from api.idempotency import run_idempotent
from api.json_body import parse_json
from api.page_records import etag, page_record
from backends.bundle import Backends
from backends.ports import PAGE_STATUSES, ConflictError, StoredPage
from gate.check import check_page, parse_page, ruleset
from schemas.characters import character_issues
from schemas.content import PageBody, PageListBody, SitePageInput
from schemas.errors import Issue
from schemas.page_changes import merge_patch, patched, replaced, unpublished

logger = logging.getLogger(__name__)

PREFIX = "/api/public/content/pages"
MAX_BODY_BYTES = 1024 * 1024
DEFAULT_LIMIT, MAX_LIMIT = 20, 100
_ATTEMPTS = 5  # re-read and retry when another writer got there first (no If-Match given)


def create_content_blueprint() -> Blueprint:
    """The five page operations of SPEC's Content API (generate is the jobs blueprint's)."""
    bp = Blueprint("content", __name__, url_prefix=PREFIX)

    @bp.post("")
    def save_page() -> Response:
        principal = require_key("content")
        payload = _json_body()
        return run_idempotent(principal, payload, lambda: _replace(payload))

    @bp.get("")
    def list_pages() -> Response:
        require_key("content")
        status, cursor, limit = _list_query()
        try:
            found = _backends().pages.list_pages(status=status, cursor=cursor, limit=limit)
        except ValueError as err:
            raise _bad_query("cursor", "not a cursor from a previous answer") from err
        body = PageListBody(pages=[_record(p) for p in found.pages], next_cursor=found.next_cursor)
        return _json(body.model_dump_json(), 200)

    @bp.get("/<slug>")
    def get_page(slug: str) -> Response:
        require_key("content")
        page = _existing(slug)
        if _tag_listed(request.headers.get("If-None-Match"), etag(page)):
            return Response(status=304, headers={"ETag": etag(page)})
        return _page_response(page, 200)

    @bp.patch("/<slug>")
    def patch_page(slug: str) -> Response:
        require_key("content")
        patch = _json_body(merge_patch_allowed=True)
        if not isinstance(patch, dict):
            raise invalid_payload(
                [Issue(field="", code="invalid_type", message="a merge patch is a JSON object")]
            )

        def change(current: StoredPage) -> StoredPage:
            merged = merge_patch(current.page_input, patch)
            if isinstance(merged, dict) and merged.get("slug") != slug:
                raise invalid_payload(
                    [Issue(field="slug", code="slug_mismatch", message=f"the slug stays {slug!r}")]
                )
            page = _gated(merged)
            return patched(
                current, page, ruleset=ruleset(_backends().catalog.brand), now=_backends().clock()
            )

        return _page_response(_write(slug, change), 200)

    @bp.delete("/<slug>")
    def unpublish_page(slug: str) -> Response:
        require_key("content")

        def change(current: StoredPage) -> StoredPage | None:
            return (
                None
                if current.status == "unpublished"
                else unpublished(current, now=_backends().clock())
            )

        return _page_response(_write(slug, change), 200)

    return bp


def _replace(payload: object) -> Response:
    page = _gated(payload)
    backends = _backends()
    conditional = "If-Match" in request.headers or "If-None-Match" in request.headers
    for _ in range(_ATTEMPTS):
        current = backends.pages.get_page(page.slug)
        _check_post_preconditions(current)
        new = replaced(
            current,
            page,
            source="api",
            ruleset=ruleset(backends.catalog.brand),
            now=backends.clock(),
        )
        try:
            saved = backends.pages.save_page(
                new, expected_version=current.version if current else 0
            )
        except ConflictError:
            if conditional:
                raise _precondition_failed(None) from None
            continue
        _after_write(saved)
        response = _page_response(saved, 201)
        response.headers["Location"] = f"{PREFIX}/{saved.slug}"
        return response
    raise ApiError(409, "conflict", "The page kept changing under this write; retry")


def _write(slug: str, change: Callable[[StoredPage], StoredPage | None]) -> StoredPage:
    """Read, check If-Match, change, save at the version read; retry races if unconditional."""
    backends = _backends()
    if_match = request.headers.get("If-Match")
    for _ in range(_ATTEMPTS):
        current = _existing(slug)
        if if_match is not None and not _tag_listed(if_match, etag(current), weak=False):
            raise _precondition_failed(current)
        new = change(current)
        if new is None:
            return current
        try:
            saved = backends.pages.save_page(new, expected_version=current.version)
        except ConflictError:
            if if_match is not None:
                raise _precondition_failed(None) from None
            continue
        _after_write(saved)
        return saved
    raise ApiError(409, "conflict", "The page kept changing under this write; retry")


def _gated(payload: object) -> SitePageInput:
    issues = character_issues(payload) + check_page(payload, brand=_backends().catalog.brand)
    if issues:
        raise invalid_payload(issues, "The page failed the schema or the quality gate")
    return parse_page(payload)


def _after_write(page: StoredPage) -> None:
    logger.info(
        "page %s saved as version %d (%s)",
        page.slug,
        page.version,
        page.status,
        extra={"slug": page.slug, "partner_id": g.principal.key_id},
    )
    _backends().cdn.purge(f"/p/{page.slug}")


def _check_post_preconditions(current: StoredPage | None) -> None:
    if_match = request.headers.get("If-Match")
    if if_match is not None and (
        current is None or not _tag_listed(if_match, etag(current), weak=False)
    ):
        raise _precondition_failed(current)
    if_none = request.headers.get("If-None-Match")
    if if_none is not None and current is not None and _tag_listed(if_none, etag(current)):
        raise _precondition_failed(current)


def _tag_listed(header: str | None, tag: str, *, weak: bool = True) -> bool:
    """If-Match uses strong comparison (a W/ tag never matches); If-None-Match weak."""
    if not header:
        return False
    if header.strip() == "*":
        return True
    for candidate in (part.strip() for part in header.split(",")):
        if candidate == tag or (weak and candidate.removeprefix("W/") == tag):
            return True
    return False


def _precondition_failed(current: StoredPage | None) -> ApiError:
    headers = {"ETag": etag(current)} if current else {}
    return ApiError(
        412,
        "precondition_failed",
        "The page changed since you read it; GET it again",
        headers=headers,
    )


def _existing(slug: str) -> StoredPage:
    page = _backends().pages.get_page(slug)
    if page is None:
        raise ApiError(404, "not_found", f"No page {slug!r}")
    return page


def _json_body(*, merge_patch_allowed: bool = False) -> object:
    allowed = {"application/json"} | (
        {"application/merge-patch+json"} if merge_patch_allowed else set()
    )
    if request.mimetype not in allowed:
        raise ApiError(
            415, "unsupported_media_type", f"Send the body as {' or '.join(sorted(allowed))}"
        )
    request.max_content_length = MAX_BODY_BYTES
    return parse_json(request.get_data(cache=True))


def _list_query() -> tuple[Any, str | None, int]:
    status = request.args.get("status")
    if status is not None and status not in PAGE_STATUSES:
        raise _bad_query("status", f"one of {', '.join(PAGE_STATUSES)}")
    raw_limit = request.args.get("limit", str(DEFAULT_LIMIT))
    if not (raw_limit.isascii() and raw_limit.isdigit() and len(raw_limit) <= 9) or not (
        1 <= int(raw_limit) <= MAX_LIMIT
    ):
        raise _bad_query("limit", f"a whole number from 1 to {MAX_LIMIT}")
    return status, request.args.get("cursor") or None, int(raw_limit)


def _bad_query(name: str, expected: str) -> ApiError:
    issue = Issue(field=name, code="invalid_query", message=f"{name} must be {expected}")
    return ApiError(400, "invalid_query", f"Bad query parameter {name}", issues=[issue])


def _record(page: StoredPage) -> Any:
    config: AppConfig = current_app.extensions["frontdoor.config"]
    return page_record(page, base_url=config.base_url, preview_secret=config.preview_secret)


def _page_response(page: StoredPage, status: int) -> Response:
    response = _json(PageBody(page=_record(page)).model_dump_json(), status)
    response.headers["ETag"] = etag(page)
    return response


def _json(body: str, status: int) -> Response:
    return Response(body, status=status, mimetype="application/json")


def _backends() -> Backends:
    backends: Backends = current_app.extensions["frontdoor"]
    return backends
