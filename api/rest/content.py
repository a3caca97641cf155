"""Content API under /api/public/content/pages: create or replace, read, list, patch, unpublish,
and a page's history (list, read, restore a version).

Every write runs the quality gate (gate.check_page) over the raw body, so all issues come back
together; the store's version check makes concurrent writers safe; each change purges
`/p/{slug}` from the CDN. Who may see and change a page is services/pages.py: a partner sees
only its own pages (another's answers 404, and its slug 409 `slug_taken`). Generation
(`POST .../generate`) lives with the jobs surface.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, Response, g, request

from api.auth import KeyCheck
from api.config import AppConfig
from api.errors import (
    ApiError,
    answer_unavailable,
    bad_request,
    invalid_query,
    not_found,
    page_errors,
)
from api.rest.idempotency import Idempotency
from api.rest.json_body import request_json
from api.rest.signal_query import refuse_parameters
from backends.ports import PAGE_STATUSES, IdempotencyStore, NotFoundError, StoredPage
from domain.etags import etag_listed
from domain.numbers import ascii_whole_number
from schemas.content.pages import (
    PageBody,
    PageListBody,
    VersionBody,
    VersionListBody,
    VersionRecord,
)
from schemas.errors import Issue
from services import page_writes
from services import pages as pages_service
from services.keys import Principal
from services.page_records import etag, page_record, version_record
from services.pages import Pages

logger = logging.getLogger(__name__)

PREFIX = "/api/public/content/pages"
MAX_BODY_BYTES = 1024 * 1024
DEFAULT_LIMIT, MAX_LIMIT = 20, 100
LIST_PARAMS = frozenset({"status", "partner", "cursor", "limit"})
VERSION_LIST_PARAMS = frozenset({"cursor", "limit"})


def create_content_blueprint(
    *, pages: Pages, idempotency: IdempotencyStore, config: AppConfig, keys: KeyCheck
) -> Blueprint:
    """The page operations of SPEC's Content API (generate is the jobs blueprint's) and a
    page's history: list, read and restore its versions, so no write is lost for good.
    `pages`: the page use cases' unit; `idempotency`: where Idempotency-Key answers are kept."""
    bp = Blueprint("content", __name__, url_prefix=PREFIX)
    answer_unavailable(bp, "The page store is unavailable; retry")
    idempotent = Idempotency(idempotency, clock=pages.clock)

    @bp.post("")
    def save_page() -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        payload = request_json(request, max_bytes=MAX_BODY_BYTES, content=True)

        def save() -> Response:
            with page_errors():
                saved = page_writes.put_page(
                    pages, payload=payload, editor=principal.editor, conditions=_conditions()
                )
            response = _page_response(_written(saved), 201, config, pages)
            response.headers["Location"] = f"{PREFIX}/{saved.slug}"
            return response

        return idempotent.run(principal, payload, save)

    @bp.get("")
    def list_pages() -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args, LIST_PARAMS)
        status, cursor, limit = _list_query()
        owner = request.args.get("partner") or None
        if owner not in (None, principal.partner) and not principal.admin:
            # Not an empty list: that would read as "that partner has no pages".
            raise _bad_query("partner", "left out: only a content_admin key picks a partner")
        try:
            found = pages_service.list_visible_pages(
                pages=pages.store,
                editor=principal.editor,
                status=status,
                cursor=cursor,
                limit=limit,
                owner=owner,
            )
        except ValueError as err:
            raise _bad_query("cursor", "the next_cursor of a previous answer") from err
        body = PageListBody(
            pages=[_record(p, config) for p in found.pages],
            next_cursor=found.next_cursor,
            has_more=found.next_cursor is not None,
        )
        return _json(body.model_dump_json(), 200)

    @bp.get("/<slug>")
    def get_page(slug: str) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        page = _visible(slug, principal, pages)
        if etag_listed(request.headers.get("If-None-Match"), etag(page)):
            return Response(status=304, headers={"ETag": etag(page)})
        return _page_response(page, 200, config, pages)

    @bp.patch("/<slug>")
    def patch_page(slug: str) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        patch = request_json(request, max_bytes=MAX_BODY_BYTES, merge_patch=True, content=True)
        with page_errors():
            saved = page_writes.patch_page(
                pages,
                slug=slug,
                patch=patch,
                editor=principal.editor,
                conditions=_conditions(),
            )
        return _page_response(_written(saved), 200, config, pages)

    @bp.delete("/<slug>")
    def unpublish_page(slug: str) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        with page_errors():
            saved = page_writes.unpublish_page(
                pages, slug=slug, editor=principal.editor, conditions=_conditions()
            )
        return _page_response(_written(saved), 200, config, pages)

    register_history_routes(bp, pages=pages, config=config, keys=keys, idempotent=idempotent)
    return bp


def register_history_routes(
    bp: Blueprint,
    *,
    pages: Pages,
    config: AppConfig,
    keys: KeyCheck,
    idempotent: Idempotency,
) -> None:
    """GET .../{slug}/versions, GET .../versions/{n}, POST .../versions/{n}/restore."""

    @bp.get("/<slug>/versions")
    def list_versions(slug: str) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args, VERSION_LIST_PARAMS)
        _status, cursor, limit = _list_query(with_status=False)
        try:
            found = pages_service.list_history(
                pages=pages.store,
                slug=slug,
                editor=principal.editor,
                cursor=cursor,
                limit=limit,
            )
        except NotFoundError as err:
            raise _not_found(slug) from err
        except ValueError as err:
            raise _bad_query("cursor", "the next_cursor of a previous answer") from err
        body = VersionListBody(
            versions=[_version(v, config) for v in found.versions],
            next_cursor=found.next_cursor,
            has_more=found.next_cursor is not None,
        )
        return _json(body.model_dump_json(), 200)

    @bp.get("/<slug>/versions/<int(max=2147483647):number>")
    def get_version(slug: str, number: int) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        try:
            found = pages_service.find_version(
                pages=pages.store, slug=slug, version=number, editor=principal.editor
            )
        except NotFoundError as err:
            raise not_found(f"No version {number} of page {slug!r}") from err
        return _json(VersionBody(version=_version(found, config)).model_dump_json(), 200)

    @bp.post("/<slug>/versions/<int(max=2147483647):number>/restore")
    def restore_version(slug: str, number: int) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        if request.get_data(cache=True).strip():
            raise bad_request(
                "invalid_json",
                "A restore takes no body",
                [Issue(field="", code="not_allowed", message="a restore takes no body")],
            )

        def restore() -> Response:
            with page_errors(missing=f"No version {number} of page {slug!r}"):
                restored = page_writes.restore_version(
                    pages,
                    slug=slug,
                    version=number,
                    editor=principal.editor,
                    conditions=_conditions(),
                )
            return _page_response(_written(restored), 200, config, pages)

        return idempotent.run(principal, {"restore": number}, restore)


def _conditions() -> pages_service.Conditions:
    """The request's If-Match and If-None-Match, for the use case to decide on."""
    return pages_service.Conditions(
        if_match=request.headers.get("If-Match"),
        if_none_match=request.headers.get("If-None-Match"),
    )


def _written(page: StoredPage) -> StoredPage:
    """Log a saved page (or a no-op's page as it stands); the page."""
    logger.info(
        "page %s saved as version %d (%s)",
        page.slug,
        page.version,
        page.status,
        extra={"slug": page.slug, "partner_id": g.principal.key_id},
    )
    return page


def _visible(slug: str, principal: Principal, pages: Pages) -> StoredPage:
    try:
        return pages_service.find_page(pages=pages.store, slug=slug, editor=principal.editor)
    except NotFoundError as err:
        raise _not_found(slug) from err


def _not_found(slug: str) -> ApiError:
    # Another partner's page answers exactly as a slug nobody has.
    return not_found(f"No page {slug!r}")


def _list_query(*, with_status: bool = True) -> tuple[Any, str | None, int]:
    status = request.args.get("status") if with_status else None
    if status is not None and status not in PAGE_STATUSES:
        raise _bad_query("status", f"one of {', '.join(PAGE_STATUSES)}")
    limit = ascii_whole_number(request.args.get("limit", str(DEFAULT_LIMIT)), max_digits=9)
    if limit is None or not 1 <= limit <= MAX_LIMIT:
        raise _bad_query("limit", f"a whole number from 1 to {MAX_LIMIT}")
    return status, request.args.get("cursor") or None, limit


def _bad_query(name: str, expected: str) -> ApiError:
    issue = Issue(field=name, code="invalid_query", message=f"{name} must be {expected}")
    return invalid_query([issue], f"Bad query parameter {name}")


def _record(page: StoredPage, config: AppConfig) -> Any:
    return page_record(page, base_url=config.base_url, preview_secret=config.preview_secret)


def _version(page: StoredPage, config: AppConfig) -> VersionRecord:
    return version_record(page, base_url=config.base_url)


def _page_response(page: StoredPage, status: int, config: AppConfig, pages: Pages) -> Response:
    warnings = pages_service.page_warnings(page=page, brand=pages.brand)
    body = PageBody(page=_record(page, config), warnings=warnings)
    response = _json(body.model_dump_json(), status)
    response.headers["ETag"] = etag(page)
    return response


def _json(body: str, status: int) -> Response:
    return Response(body, status=status, mimetype="application/json")
