"""Webhook endpoints on the Signal API (signals key) and the internal delivery-attempt route.

Partners register, list, rotate and delete endpoints and list and replay deliveries; each
partner sees only its own endpoints. Registering and rotating take an Idempotency-Key as POST
pages does, so a retried one answers the first endpoint or secret instead of making another.
POST /internal/deliveries/{id}/attempt is what the task queue calls; it is authenticated by
the shared internal token (DESIGN "Deliveries").
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from flask import Blueprint, Response, jsonify, request
from pydantic import BaseModel, ValidationError

from api.auth import KeyCheck
from api.errors import (
    ApiError,
    answer_unavailable,
    conflict,
    invalid_payload,
    not_found,
    unauthorized,
)
from api.rest.idempotency import Idempotency
from api.rest.json_body import request_json
from api.rest.signal_access import require_unlimited_signals_key
from api.rest.signal_query import parse_deliveries_query, refuse_parameters
from backends.ports import (
    ConflictError,
    Delivery,
    DeliveryOptions,
    IdempotencyStore,
    JobStore,
    NotFoundError,
    TaskQueue,
    WebhookEndpoint,
    WebhookStore,
)
from schemas.errors import Issue, issues_from_errors
from schemas.signals.webhooks import (
    AttemptInput,
    DeliveryBody,
    DeliveryListBody,
    DeliveryView,
    WebhookDeletedBody,
    WebhookEndpointView,
    WebhookInput,
    WebhookListBody,
    WebhookSecretBody,
    WebhookTestBody,
)
from services import webhooks as webhooks_service
from services.deliveries import INTERNAL_TOKEN_HEADER, attempt_delivery
from services.target_guard import UnsafeTargetError
from services.webhook_checks import send_test_delivery

HOOKS = "/api/public/v1/signals/webhooks"
ModelT = TypeVar("ModelT", bound=BaseModel)


def create_webhooks_blueprint(
    *,
    webhooks: WebhookStore,
    idempotency: IdempotencyStore,
    jobs: JobStore,
    tasks: TaskQueue,
    options: DeliveryOptions,
    clock: Callable[[], datetime],
    keys: KeyCheck,
) -> Blueprint:
    """The six webhook operations of DESIGN "Deliveries", the test send, and the internal
    attempt route.

    The attempt route runs signal webhook deliveries and job callbacks alike (`jobs` holds a
    callback's target and secret).
    """
    bp = Blueprint("webhooks", __name__)
    answer_unavailable(bp, "The webhook store is unavailable; retry")
    # A registration whose answer was lost must not make a second endpoint on retry.
    idempotent = Idempotency(idempotency, clock=clock)

    def own_endpoint(endpoint_id: str) -> WebhookEndpoint:
        partner = require_unlimited_signals_key(
            keys, "webhook deliveries carry every event"
        ).partner
        try:
            return webhooks_service.own_endpoint(
                webhooks=webhooks, partner=partner, endpoint_id=endpoint_id
            )
        except NotFoundError as err:
            raise not_found(f"No webhook endpoint {endpoint_id}") from err

    @bp.post(HOOKS)
    def create_webhook() -> Response:
        principal = require_unlimited_signals_key(keys, "webhook deliveries carry every event")
        body = request_json(request)
        return idempotent.run(principal, body, lambda: register(principal.partner, body))

    def register(partner: str, body: object) -> Response:
        data = _registration(body, options=options)
        try:
            made = webhooks_service.register_endpoint(
                webhooks=webhooks,
                options=options,
                partner=partner,
                url=data.url,
                types=tuple(data.types or ()),
                description=data.description or "",
                kind=data.kind,
                stages=tuple(data.stages or ()),
                now=clock(),
            )
        except UnsafeTargetError as err:
            raise _unsafe_url(err) from err
        made_body = WebhookSecretBody(endpoint=_endpoint_view(made.endpoint), secret=made.secret)
        response = _json(made_body)
        response.status_code = 201
        return response

    @bp.get(HOOKS)
    def list_webhooks() -> Response:
        partner = require_unlimited_signals_key(
            keys, "webhook deliveries carry every event"
        ).partner
        refuse_parameters(request.args)
        found = webhooks.list_endpoints(partner=partner)
        return _json(WebhookListBody(endpoints=[_endpoint_view(e) for e in found]))

    @bp.delete(f"{HOOKS}/<endpoint_id>")
    def delete_webhook(endpoint_id: str) -> Response:
        partner = require_unlimited_signals_key(
            keys, "webhook deliveries carry every event"
        ).partner
        try:
            webhooks_service.delete_endpoint(
                webhooks=webhooks, partner=partner, endpoint_id=endpoint_id
            )
        except NotFoundError as err:
            raise not_found(f"No webhook endpoint {endpoint_id}") from err
        return _json(WebhookDeletedBody(deleted=endpoint_id))

    @bp.post(f"{HOOKS}/<endpoint_id>/rotate")
    def rotate_webhook_secret(endpoint_id: str) -> Response:
        principal = require_unlimited_signals_key(keys, "webhook deliveries carry every event")
        return idempotent.run(principal, {}, lambda: rotate(principal.partner, endpoint_id))

    def rotate(partner: str, endpoint_id: str) -> Response:
        try:
            made = webhooks_service.rotate_secret(
                webhooks=webhooks,
                options=options,
                partner=partner,
                endpoint_id=endpoint_id,
                now=clock(),
            )
        except NotFoundError as err:  # absent, another's, or deleted meanwhile
            raise not_found(f"No webhook endpoint {endpoint_id}") from err
        except ConflictError as err:
            raise conflict("The endpoint kept being rotated; retry") from err
        body = WebhookSecretBody(
            endpoint=_endpoint_view(made.endpoint),
            secret=made.secret,
            previous_secret_expires_at=made.previous_secret_expires_at,
        )
        return _json(body)

    @bp.post(f"{HOOKS}/<endpoint_id>/test")
    def test_webhook(endpoint_id: str) -> Response:
        partner = keys.require("signals", allow_bearer=True).partner
        refuse_parameters(request.args)
        try:
            sent = send_test_delivery(
                webhooks=webhooks,
                options=options,
                partner=partner,
                endpoint_id=endpoint_id,
                now=clock(),
            )
        except NotFoundError as err:
            raise not_found(f"No webhook endpoint {endpoint_id}") from err
        except webhooks_service.EndpointDisabledError as err:
            raise conflict(
                "The endpoint is disabled (410 Gone); register it again", "endpoint_disabled"
            ) from err
        code = sent.status_code
        body = WebhookTestBody(
            webhook_id=sent.webhook_id,
            delivered=code is not None and 200 <= code < 300,
            status=code,
            error=sent.error,
        )
        return _json(body)

    @bp.get(f"{HOOKS}/<endpoint_id>/deliveries")
    def list_deliveries(endpoint_id: str) -> Response:
        own_endpoint(endpoint_id)
        status, limit = parse_deliveries_query(request.args)
        found = webhooks.list_deliveries(endpoint_id, status=status, limit=limit)
        return _json(DeliveryListBody(deliveries=[_delivery_view(d) for d in found]))

    @bp.post(f"{HOOKS}/deliveries/<delivery_id>/replay")
    def replay(delivery_id: str) -> tuple[Response, int]:
        partner = require_unlimited_signals_key(
            keys, "webhook deliveries carry every event"
        ).partner
        try:
            again = webhooks_service.replay(
                webhooks=webhooks,
                tasks=tasks,
                options=options,
                partner=partner,
                delivery_id=delivery_id,
                now=clock(),
            )
        except webhooks_service.EndpointDisabledError as err:
            raise conflict(
                "The endpoint is disabled (410 Gone); register it again", "endpoint_disabled"
            ) from err
        except ConflictError as err:
            raise conflict("The delivery changed meanwhile; try again") from err
        except NotFoundError as err:  # absent, another's, or erased (a person's erasure)
            raise not_found(f"No delivery {delivery_id}") from err
        return _json(DeliveryBody(delivery=_delivery_view(again))), 202

    @bp.post("/internal/deliveries/<delivery_id>/attempt")
    def attempt(delivery_id: str) -> Response:
        presented = request.headers.get(INTERNAL_TOKEN_HEADER, "")
        # Bytes: compare_digest raises on a str that is not ASCII (any header a caller sends).
        if not options.internal_token or not hmac.compare_digest(
            presented.encode(), options.internal_token.encode()
        ):
            raise unauthorized("Internal route")
        task = _parse(AttemptInput, request_json(request))
        if task.delivery_id != delivery_id:
            raise invalid_payload(
                [Issue(field="delivery_id", code="mismatch", message="not the path's id")]
            )
        done = attempt_delivery(
            delivery_id,
            attempt=task.attempt,
            replays=task.replays,
            webhooks=webhooks,
            jobs=jobs,
            tasks=tasks,
            options=options,
            now=clock(),
        )
        return jsonify({"ok": True, "status": done.status if done else "skipped"})

    return bp


def _parse(model: type[ModelT], data: Any) -> ModelT:
    return model.model_validate(data)


def _registration(body: object, *, options: DeliveryOptions) -> WebhookInput:
    """The registration body. Raises: ApiError 422 naming every field at fault, the url's
    target check included when another field failed first (so one answer lists them all)."""
    try:
        return WebhookInput.model_validate(body)
    except ValidationError as err:
        issues = issues_from_errors(err.errors())
        url = body.get("url") if isinstance(body, dict) else None
        if isinstance(url, str) and not any(i.field == "url" for i in issues):
            try:
                webhooks_service.check_url(url, options=options)
            except UnsafeTargetError as unsafe:
                issues.append(_unsafe_url_issue(unsafe))
        raise invalid_payload(issues) from err


def _unsafe_url(err: UnsafeTargetError) -> ApiError:
    return invalid_payload([_unsafe_url_issue(err)])


def _unsafe_url_issue(err: UnsafeTargetError) -> Issue:
    return Issue(field="url", code="unsafe_url", message=err.reason)


def _json(body: BaseModel, status: int = 200) -> Response:
    return Response(body.model_dump_json(), status=status, mimetype="application/json")


def _endpoint_view(e: WebhookEndpoint) -> WebhookEndpointView:
    return WebhookEndpointView(
        id=e.endpoint_id,
        url=e.url,
        types=list(e.types) or None,
        description=e.description or None,
        kind="slack" if e.kind == "slack" else "standard",
        stages=list(e.stages) or None,
        enabled=e.active,
        disabled_at=e.disabled_at,
        disabled_reason=e.disabled_reason,
        created_at=e.created_at,
    )


def _delivery_view(d: Delivery) -> DeliveryView:
    return DeliveryView(
        id=d.delivery_id,
        endpoint_id=d.endpoint_id,
        event_id=d.event_id,
        event_type=d.event_type,
        status=d.status,
        attempts=d.attempts,
        replays=d.replays,
        last_status=d.last_status_code,
        last_error=d.last_error,
        last_attempt_at=d.last_attempt_at,
        next_attempt_at=d.next_attempt_at,
        created_at=d.created_at,
    )
