"""The one place that turns errors into response bodies.

Every body is `{ok: false, error, message, issues}` plus the RFC 9457 members; `issues` lists
at most MAX_ISSUES, and `issues_omitted` says how many more there were.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from flask import Blueprint, Flask, Response, current_app, json, request
from pydantic import ValidationError
from werkzeug.exceptions import HTTPException

from api.request_context import request_id
from backends.ports import NotFoundError, QuotaExceededError, UnavailableError, VariantLimitError
from schemas.errors import Issue, issues_from_errors
from services import experiments as experiments_service
from services import pages as pages_service
from services import variants as variants_service
from services.page_records import version_etag
from services.page_stats import StatsQueryError

logger = logging.getLogger(__name__)
RETRY_AFTER_SECONDS = "5"  # what a 503 of ours asks a client to wait
MAX_ISSUES = 50  # issues listed in one error answer; `issues_omitted` counts the rest

TITLES = {
    "invalid_query": "Invalid query parameter",
    "invalid_domain": "Invalid domain",
    "invalid_email": "Invalid email address",
    "invalid_json": "Body is not valid JSON",
    "invalid_idempotency_key": "Invalid Idempotency-Key",
    "request_timeout": "Request body timed out",
    "unauthorized": "Missing or wrong key",
    "forbidden": "Forbidden",
    "not_found": "Not found",
    "method_not_allowed": "Method not allowed",
    "precondition_failed": "Precondition failed",
    "idempotency_in_flight": "Request with this Idempotency-Key is still running",
    "idempotency_key_reused": "Idempotency-Key reused with a different body",
    "payload_too_large": "Payload too large",
    "unsupported_media_type": "Unsupported media type",
    "invalid_payload": "Invalid payload",
    "rate_limited": "Too many requests",
    "slug_taken": "The slug belongs to another partner's page",
    "endpoint_disabled": "The webhook endpoint is disabled",
    "conflict": "The record changed meanwhile",
    "experiment_ended": "The page's experiment already ended with another winner",
    "model_failed": "The authoring model failed",
    "internal": "Internal error",
    "unavailable": "Service unavailable",
    "storage_quota_exceeded": "The partner's pages are at their storage quota",
    "variant_exists": "The page already has a variant with this id",
}

_HTTP_CODES = {
    400: "invalid_json",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    412: "precondition_failed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
}


class ApiError(Exception):
    """An error a view raises to answer with a problem body."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        issues: Sequence[Issue] | None = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.issues = list(issues) if issues is not None else None
        self.headers = headers or {}
        self.extra = extra or {}


def invalid_payload(
    issues: Sequence[Issue],
    message: str = "The payload failed validation",
    *,
    extra: dict[str, Any] | None = None,
) -> ApiError:
    """422 invalid_payload naming each field."""
    return ApiError(422, "invalid_payload", message, issues=issues, extra=extra)


# The answers every view gives, built here so each status keeps its one code and shape.


def bad_request(code: str, message: str, issues: Sequence[Issue]) -> ApiError:
    """400 with a code of TITLES (`invalid_json`, `invalid_domain`, ...), naming each field."""
    return ApiError(400, code, message, issues=issues)


def invalid_query(
    issues: Sequence[Issue], message: str = "A query parameter is invalid"
) -> ApiError:
    """400 `invalid_query`, naming each parameter."""
    return ApiError(400, "invalid_query", message, issues=issues)


def unauthorized(message: str, *, headers: dict[str, str] | None = None) -> ApiError:
    """401 `unauthorized`: no key, or not a valid one."""
    return ApiError(401, "unauthorized", message, headers=headers)


def forbidden(message: str, *, issues: Sequence[Issue] | None = None) -> ApiError:
    """403 `forbidden`: a valid key that may not do this."""
    return ApiError(403, "forbidden", message, issues=issues)


def not_found(message: str) -> ApiError:
    """404 `not_found` (another partner's record answers as one nobody has)."""
    return ApiError(404, "not_found", message)


def conflict(
    message: str, code: str = "conflict", *, headers: dict[str, str] | None = None
) -> ApiError:
    """409: `conflict` (it changed meanwhile: retry), or another 409 code of TITLES."""
    return ApiError(409, code, message, headers=headers)


def too_large(message: str, issues: Sequence[Issue]) -> ApiError:
    """413 `payload_too_large`, naming what is over."""
    return ApiError(413, "payload_too_large", message, issues=issues)


def refused_reuse(code: str, message: str, issues: Sequence[Issue]) -> ApiError:
    """422 with a code of its own (`idempotency_key_reused`)."""
    return ApiError(422, code, message, issues=issues)


def rate_limited(message: str, *, headers: dict[str, str]) -> ApiError:
    """429 `rate_limited`, with when to retry in `headers`."""
    return ApiError(429, "rate_limited", message, headers=headers)


def model_failed(message: str, *, extra: dict[str, Any]) -> ApiError:
    """502 `model_failed`: the authoring model did not answer."""
    return ApiError(502, "model_failed", message, extra=extra)


def unavailable(message: str, *, extra: dict[str, Any] | None = None) -> ApiError:
    """503 `unavailable` with Retry-After: the client backs off and retries."""
    return ApiError(
        503, "unavailable", message, headers={"Retry-After": RETRY_AFTER_SECONDS}, extra=extra
    )


def request_timeout(message: str) -> ApiError:
    """408 `request_timeout`: the body did not arrive in time."""
    return ApiError(408, "request_timeout", message)


def storage_quota_exceeded(err: QuotaExceededError) -> ApiError:
    """429 `storage_quota_exceeded`: the write would take the partner's pages past its quota.

    A 4xx, not 507: nothing on our side failed, and a 5xx would page the operator (the 5xx
    alert) and log an ERROR for every refused write. No Retry-After: waiting frees nothing."""
    mib = 1024 * 1024
    message = (
        f"Your pages and their kept versions hold {err.used / mib:.1f} of your"
        f" {err.quota / mib:.0f} MiB; this write would pass it, so nothing was changed"
    )
    issue = Issue(field="", code="storage_quota_exceeded", message=message)
    return ApiError(429, "storage_quota_exceeded", message, issues=[issue])


def slug_taken(message: str, *, extra: dict[str, Any] | None = None) -> ApiError:
    """409 `slug_taken`: another partner's page holds the slug (its issue names `slug`)."""
    issue = Issue(field="slug", code="slug_taken", message="used by another partner")
    return ApiError(409, "slug_taken", message, issues=[issue], extra=extra)


def unsupported_media_type(message: str) -> ApiError:
    """415 `unsupported_media_type`, its issue naming the Content-Type header."""
    issue = Issue(field="Content-Type", code="unsupported_media_type", message=message)
    return ApiError(415, "unsupported_media_type", message, issues=[issue])


def problem_response(err: ApiError) -> Response:
    """The problem+json response for an ApiError."""
    body = problem_body(
        err,
        base_url=current_app.config.get("PUBLIC_BASE_URL", ""),
        instance=request_id.get() or "",
    )
    response = current_app.response_class(
        json.dumps(body), status=err.status, mimetype="application/problem+json"
    )
    for name, value in err.headers.items():
        response.headers[name] = value
    return response


def problem_body(err: ApiError, *, base_url: str, instance: str) -> dict[str, Any]:
    """An ApiError's problem+json body (also built outside Flask, by frontdoor/rsgi_front.py)."""
    body: dict[str, Any] = {
        "ok": False,
        "error": err.code,
        "message": err.message,
    }
    if err.issues is not None:
        # Every error answer stays small, however many issues a request has: the first
        # MAX_ISSUES, and how many more there were.
        body["issues"] = [issue.model_dump() for issue in err.issues[:MAX_ISSUES]]
        if len(err.issues) > MAX_ISSUES:
            body["issues_omitted"] = len(err.issues) - MAX_ISSUES
    body.update(err.extra)
    body.update(
        {
            "type": f"{base_url}/errors/{err.code}",
            "title": TITLES.get(err.code, err.code.replace("_", " ").capitalize()),
            "status": err.status,
            "detail": err.message,
            "instance": instance,
        }
    )
    return body


def register_error_handlers(app: Flask) -> None:
    """Install the handlers every surface shares."""

    @app.errorhandler(ApiError)
    def _api_error(err: ApiError) -> Response:
        return problem_response(err)

    @app.errorhandler(ValidationError)
    def _validation_error(err: ValidationError) -> Response:
        return problem_response(invalid_payload(issues_from_errors(err.errors())))

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException) -> Response:
        status = err.code or 500
        code = _HTTP_CODES.get(status, "internal" if status >= 500 else "bad_request")
        message = _http_message(status, err)
        headers: dict[str, str] = {}
        valid_methods = getattr(err, "valid_methods", None)
        if status == 405 and valid_methods:
            headers["Allow"] = ", ".join(valid_methods)
        issues = None
        if status == 413:
            issues = [Issue(field="", code="too_long", message="the body is too large")]
        return problem_response(ApiError(status, code, message, headers=headers, issues=issues))

    @app.errorhandler(StatsQueryError)
    def _stats_query(err: StatsQueryError) -> Response:
        return problem_response(
            ApiError(400, "invalid_query", "A query parameter is invalid", issues=err.issues)
        )

    @app.errorhandler(QuotaExceededError)
    def _quota_exceeded(err: QuotaExceededError) -> Response:
        logger.warning("partner %s at its page storage quota", err.owner)
        return problem_response(storage_quota_exceeded(err))

    @app.errorhandler(Exception)
    def _unexpected(err: Exception) -> Response:
        logger.exception("unhandled error on %s %s", request.method, request.path)
        return problem_response(
            ApiError(500, "internal", "Something went wrong on our side; it is logged.")
        )


def answer_unavailable(bp: Blueprint, message: str) -> None:
    """A port's UnavailableError in any of `bp`'s views answers 503 `unavailable` with
    Retry-After (the client backs off and retries) instead of the 500 of an unknown error."""

    @bp.errorhandler(UnavailableError)
    def _unavailable(err: UnavailableError) -> Response:
        logger.warning("backend unavailable on %s %s: %s", request.method, request.path, err)
        return problem_response(
            ApiError(503, "unavailable", message, headers={"Retry-After": RETRY_AFTER_SECONDS})
        )


def _http_message(status: int, err: HTTPException) -> str:
    if status == 404:
        return f"No route {request.path}"
    if status == 405:
        return f"{request.method} is not allowed on {request.path}"
    if status == 413:
        return "The request body is too large"
    if status == 400:
        return "The request body is not valid JSON"
    return err.description or "HTTP error"


@contextmanager
def page_errors(missing: str | None = None) -> Iterator[None]:
    """The page use cases' errors (services/pages.py) as answers; `missing` says what a 404
    did not find (else the page its error names)."""
    try:
        yield
    except NotFoundError as err:
        # Another partner's page answers exactly as a page nobody has.
        raise ApiError(404, "not_found", missing or f"No page {err.args[0]!r}") from err
    except pages_service.SlugTakenError as err:
        raise slug_taken(
            f"The slug {err.args[0]!r} belongs to another partner's page; choose another"
        ) from err
    except pages_service.PreconditionFailedError as err:
        current = err.current
        raise ApiError(
            412,
            "precondition_failed",
            "The page changed since you read it; GET it again",
            headers={"ETag": version_etag(current.version)} if current is not None else {},
        ) from err
    except pages_service.GateRefusedError as err:
        raise invalid_payload(err.issues, err.message) from err
    except pages_service.BusyError as err:
        raise ApiError(409, "conflict", "The page kept changing under this write; retry") from err


@contextmanager
def variant_errors(slug: str) -> Iterator[None]:
    """The variant and allocation use cases' errors (services/variants.py) as answers."""
    try:
        yield
    except NotFoundError as err:
        # Another partner's page answers exactly as a page (or variant) nobody has.
        raise ApiError(404, "not_found", f"No page or variant {err.args[0]!r}") from err
    except variants_service.VariantExistsError as err:
        issue = Issue(field="id", code="variant_exists", message="taken on this page")
        raise ApiError(
            409,
            "variant_exists",
            f"The page {slug!r} has a variant {err.args[0]!r}",
            issues=[issue],
        ) from err
    except VariantLimitError as err:
        issue = Issue(
            field="", code="too_many_variants", message=f"a page holds at most {err.limit} variants"
        )
        raise invalid_payload([issue], f"The page {slug!r} has {err.limit} variants") from err
    except pages_service.GateRefusedError as err:
        raise invalid_payload(
            err.issues, "The variant failed the schema or the quality gate"
        ) from err
    except variants_service.AllocationRefusedError as err:
        raise invalid_payload(err.issues, "The allocation is not a split of this page") from err
    except variants_service.VariantPreconditionFailedError as err:
        current = err.current
        headers = {"ETag": version_etag(current.version)} if current is not None else {}
        raise ApiError(
            412,
            "precondition_failed",
            "It changed since you read it; GET it again",
            headers=headers,
        ) from err
    except pages_service.BusyError as err:
        raise ApiError(409, "conflict", "It kept changing under this write; retry") from err


@contextmanager
def experiment_errors(slug: str) -> Iterator[None]:
    """The experiment use cases' errors (services/experiments.py) as answers."""
    try:
        yield
    except NotFoundError as err:
        # Another partner's page answers exactly as a page nobody has.
        raise ApiError(404, "not_found", f"No page {slug!r}") from err
    except experiments_service.UnknownArmError as err:
        arms = ", ".join(err.arms)
        issue = Issue(field="winner", code="unknown_arm", message=f"one of: {arms}")
        raise invalid_payload([issue], f"The page {slug!r} has no arm {err.arm!r}") from err
    except experiments_service.ExperimentEndedError as err:
        won = err.experiment.winner
        issue = Issue(field="winner", code="experiment_ended", message=f"it ended with {won!r}")
        raise ApiError(
            409,
            "experiment_ended",
            f"The experiment on {slug!r} ended with {won!r}; set the allocation to start another",
            issues=[issue],
        ) from err
    except pages_service.GateRefusedError as err:
        raise invalid_payload(
            err.issues, "The winner's content failed today's schema or quality gate"
        ) from err
    except pages_service.BusyError as err:
        raise ApiError(409, "conflict", "The page kept changing under this write; retry") from err
