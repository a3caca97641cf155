"""Content API under /api/public/content/pages/{slug}: a page's variants (create, list, read,
merge-patch, delete) and its traffic allocation (read, set).

Views parse, call services/variants.py and render; its errors become answers in api/errors.py
(`variant_errors`). A partner sees only its own pages' variants (another's answers 404); every
write runs the page's quality gate over the variant and tells the page's caches.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import Blueprint, Response, request

from api.auth import KeyCheck
from api.errors import (
    answer_unavailable,
    invalid_payload,
    variant_errors,
)
from api.rest.content import PREFIX
from api.rest.idempotency import Idempotency
from api.rest.json_body import request_json
from api.rest.signal_query import refuse_parameters
from backends.ports import IdempotencyStore, StoredAllocation, StoredVariant, VariantStore
from domain.etags import etag_listed
from schemas.content.pages import GateResult
from schemas.content.variants import (
    AllocationBody,
    AllocationInput,
    AllocationRecord,
    VariantBody,
    VariantInput,
    VariantListBody,
    VariantPatch,
    VariantRecord,
)
from schemas.errors import Issue
from services import variants as variants_service
from services.page_records import version_etag
from services.pages import Pages

MAX_BODY_BYTES = 1024 * 1024
_Versioned = TypeVar("_Versioned", StoredVariant, StoredAllocation)


def create_variants_blueprint(
    *, pages: Pages, variants: VariantStore, idempotency: IdempotencyStore, keys: KeyCheck
) -> Blueprint:
    """The variant and allocation routes of a page, over the page use cases' unit."""
    bp = Blueprint("variants", __name__, url_prefix=PREFIX)
    answer_unavailable(bp, "The page store is unavailable; retry")
    idempotent = Idempotency(idempotency, clock=pages.clock)

    @bp.post("/<slug>/variants")
    def create_variant(slug: str) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        payload = request_json(request, max_bytes=MAX_BODY_BYTES, content=True)

        def create() -> Response:
            body = VariantInput.model_validate(payload)
            with variant_errors(slug):
                saved = variants_service.create_variant(
                    pages,
                    variants=variants,
                    slug=slug,
                    payload=body.page,
                    variant_id=body.id,
                    start_at=body.start_at,
                    editor=principal.editor,
                )
            response = _variant_response(saved, 201, pages)
            response.headers["Location"] = f"{PREFIX}/{slug}/variants/{saved.variant_id}"
            return response

        return idempotent.run(principal, {"variant_of": slug, "body": payload}, create)

    @bp.get("/<slug>/variants")
    def list_variants(slug: str) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        with variant_errors(slug):
            found = variants_service.list_variants(
                pages=pages.store,
                variants=variants,
                slug=slug,
                editor=principal.editor,
            )
        body = VariantListBody(variants=[_record(v) for v in found])
        return _json(body.model_dump_json(), 200)

    @bp.get("/<slug>/variants/<variant_id>")
    def get_variant(slug: str, variant_id: str) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        with variant_errors(slug):
            found = variants_service.find_variant(
                pages=pages.store,
                variants=variants,
                slug=slug,
                variant_id=variant_id,
                editor=principal.editor,
            )
        if etag_listed(request.headers.get("If-None-Match"), _etag(found)):
            return Response(status=304, headers={"ETag": _etag(found)})
        return _variant_response(found, 200, pages)

    @bp.patch("/<slug>/variants/<variant_id>")
    def patch_variant(slug: str, variant_id: str) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        patch = request_json(request, max_bytes=MAX_BODY_BYTES, merge_patch=True, content=True)
        if not isinstance(patch, dict):
            raise invalid_payload(
                [Issue(field="", code="invalid_type", message="a merge patch is a JSON object")]
            )
        if patch.get("id", variant_id) != variant_id:
            raise invalid_payload(
                [Issue(field="id", code="not_allowed", message="a variant's id does not change")]
            )
        parsed = VariantPatch.model_validate(patch)

        def change() -> Response:
            with variant_errors(slug):
                saved = variants_service.change_variant(
                    pages,
                    variants=variants,
                    slug=slug,
                    variant_id=variant_id,
                    patch=parsed.page,
                    start_at=parsed.start_at,
                    set_start="start_at" in patch,
                    editor=principal.editor,
                    precondition=_if_match(),
                )
            return _variant_response(saved, 200, pages)

        return idempotent.run(
            principal, {"variant_patch": [slug, variant_id], "body": patch}, change
        )

    @bp.delete("/<slug>/variants/<variant_id>")
    def delete_variant(slug: str, variant_id: str) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)

        def delete() -> Response:
            with variant_errors(slug):
                variants_service.delete_variant(
                    pages=pages.store,
                    variants=variants,
                    slug=slug,
                    variant_id=variant_id,
                    editor=principal.editor,
                    changed=pages.changed,
                    precondition=_if_match(),
                )
            deleted = Response(status=204)
            del deleted.headers["Content-Type"]  # no body, so no media type (RFC 9110 15.3.5)
            return deleted

        return idempotent.run(principal, {"variant_delete": [slug, variant_id]}, delete)

    @bp.get("/<slug>/allocation")
    def get_allocation(slug: str) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        with variant_errors(slug):
            found = variants_service.find_allocation(
                pages=pages.store,
                variants=variants,
                slug=slug,
                editor=principal.editor,
            )
        return _allocation_response(slug, found)

    @bp.put("/<slug>/allocation")
    def put_allocation(slug: str) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        payload = request_json(request, max_bytes=MAX_BODY_BYTES, content=True)

        def put() -> Response:
            body = AllocationInput.model_validate(payload)
            with variant_errors(slug):
                saved = variants_service.set_allocation(
                    pages=pages.store,
                    variants=variants,
                    slug=slug,
                    mode=body.mode,
                    shares=body.shares,
                    editor=principal.editor,
                    now=pages.clock(),
                    changed=pages.changed,
                    precondition=_if_match(),
                )
            return _allocation_response(slug, saved)

        return idempotent.run(principal, {"allocation_of": slug, "body": payload}, put)

    return bp


def _if_match() -> Callable[[Any], bool] | None:
    """The request's If-Match as a precondition on the record read (absent: no record)."""
    if_match = request.headers.get("If-Match")
    if if_match is None:
        return None
    return lambda current: current is not None and etag_listed(if_match, _etag(current), weak=False)


def _etag(record: StoredVariant | StoredAllocation) -> str:
    return version_etag(record.version)


def _record(variant: StoredVariant) -> VariantRecord:
    return VariantRecord(
        id=variant.variant_id,
        slug=variant.slug,
        version=variant.version,
        page=dict(variant.page_input),
        created_at=variant.created_at,
        updated_at=variant.updated_at,
        start_at=variant.start_at,
        gate=GateResult(passed=True, ruleset=variant.gate_ruleset),
    )


def _variant_response(variant: StoredVariant, status: int, pages: Pages) -> Response:
    warnings = variants_service.variant_warnings(variant=variant, brand=pages.brand)
    body = VariantBody(variant=_record(variant), warnings=warnings)
    response = _json(body.model_dump_json(), status)
    response.headers["ETag"] = _etag(variant)
    return response


def _allocation_response(slug: str, allocation: StoredAllocation | None) -> Response:
    record = (
        AllocationRecord(
            slug=slug,
            mode=allocation.mode,
            shares=dict(allocation.shares),
            version=allocation.version,
            updated_at=allocation.updated_at,
        )
        if allocation is not None
        else AllocationRecord(slug=slug, mode="fixed", shares={"control": 100.0}, version=0)
    )
    response = _json(AllocationBody(allocation=record).model_dump_json(), 200)
    if allocation is not None:
        response.headers["ETag"] = _etag(allocation)
    return response


def _json(body: str, status: int) -> Response:
    return Response(body, status=status, mimetype="application/json")
