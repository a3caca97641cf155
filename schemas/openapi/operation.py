"""The OpenAPI operation table's types and the document assembly from pydantic models.

An `Operation` names its request, query and reply models by import; `assemble_document` turns
a list of them into an OpenAPI 3.1 document whose schemas all come from `model_json_schema`
(never hand-written JSON schemas). The table itself lives in `schemas.openapi.document`.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from schemas.errors import Problem

__all__ = [
    "ERROR_MEANINGS",
    "Auth",
    "Operation",
    "Param",
    "Reply",
    "assemble_document",
]

REF_TEMPLATE = "#/components/schemas/{model}"
PROBLEM_JSON = "application/problem+json"

Auth = Literal["none", "content", "signals", "ingest", "oauth"]
Location = Literal["path", "query", "header"]

# Which security schemes satisfy each auth mode (alternatives, any one of them).
SECURITY: dict[Auth, list[dict[str, list[str]]]] = {
    "none": [],
    "content": [{"contentKey": []}],
    "signals": [{"signalsKey": []}, {"signalsBearer": []}],
    "ingest": [{"ingestKey": []}, {"ingestBearer": []}],
    "oauth": [{"oauth2": ["openid", "email", "profile"]}],
}

ERROR_MEANINGS: dict[int, str] = {
    400: (
        "`invalid_json` (not JSON, nested deeper than 32 levels, a number out of range), "
        "`invalid_query` naming the parameter, `invalid_domain`, `invalid_email` or "
        "`invalid_idempotency_key`"
    ),
    401: "`unauthorized`: missing or wrong key",
    403: "`forbidden`: the request's origin is not this site (collect), or a limited signals"
    " key asked for roll-ups or webhooks (issue `key` / `limited_key`: it reads the stream)",
    404: "`not_found`",
    405: "`method_not_allowed`; the `Allow` header lists the methods",
    408: "`request_timeout`: the body did not arrive within 10 seconds; the connection closes",
    409: "`idempotency_in_flight`: the first request with this Idempotency-Key still runs; "
    "`slug_taken`: another partner's page has this slug; "
    "`endpoint_disabled`: the webhook endpoint was disabled by a 410 Gone; "
    "`conflict`: the record kept changing under this write; retry; "
    "`experiment_ended`: the page's experiment already ended with another winner",
    412: "`precondition_failed`: If-Match does not name the current ETag, or"
    " `If-None-Match: *` met a page that exists",
    413: "`payload_too_large`",
    415: "`unsupported_media_type`: send `content-type: application/json`",
    422: "`invalid_payload` with `issues[]` (at most 50; `issues_omitted` counts the rest), or"
    " `idempotency_key_reused`",
    429: "`rate_limited`; wait for `Retry-After` seconds (`RateLimit` fields say what is left);"
    " on a page write, `storage_quota_exceeded`: the partner's pages hold their storage quota"
    " (no `Retry-After`: waiting frees nothing)",
    502: "`model_failed` with `retryable: true`; safe to retry once",
    500: "`internal`: logged on our side with the request id",
    503: "`unavailable`: a backend is down; retry with back-off",
}

HEADERS: dict[str, dict[str, Any]] = {
    "ETag": {"description": "Strong validator of this body", "schema": {"type": "string"}},
    "Location": {
        "description": "Where the result is: the job to poll, the page, or the live page",
        "schema": {"type": "string"},
    },
    "Retry-After": {"description": "Seconds to wait", "schema": {"type": "integer"}},
    "RateLimit-Policy": {
        "description": 'This key\'s quota per window, e.g. `"content";q=3000;w=60`'
        " (draft-ietf-httpapi-ratelimit-headers)",
        "schema": {"type": "string"},
    },
    "RateLimit": {
        "description": "What is left and the seconds until the window resets,"
        ' e.g. `"content";r=2999;t=42`',
        "schema": {"type": "string"},
    },
}


@dataclass(frozen=True)
class Param:
    """A path, query or header parameter that no model describes (query models do the rest)."""

    name: str
    location: Location
    description: str
    schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "string"})
    required: bool = False
    example: str | None = None


@dataclass(frozen=True)
class Reply:
    """One documented response: a model for JSON bodies, or a media type and raw schema."""

    status: int
    description: str
    model: type[BaseModel] | None = None
    media_type: str = "application/json"
    schema: Mapping[str, Any] | None = None
    headers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Operation:
    """One row of the operation table; swap a placeholder model for the real one in one line."""

    method: Literal["get", "post", "put", "patch", "delete"]
    path: str
    operation_id: str
    tag: str
    summary: str
    auth: Auth
    replies: tuple[Reply, ...]
    description: str = ""
    request: type[BaseModel] | None = None
    request_media: tuple[str, ...] = ("application/json",)
    request_example: Mapping[str, Any] | None = None
    # Further media types whose body has a model of its own (a form post beside JSON).
    other_requests: tuple[tuple[str, type[BaseModel]], ...] = ()
    query: type[BaseModel] | None = None
    params: tuple[Param, ...] = ()
    errors: tuple[int, ...] = ()


# Parameters and replies that several surfaces share.
SLUG = Param("slug", "path", "The record's slug", example="growth-audit")
DOMAIN = Param(
    "domain",
    "path",
    "Company domain, e.g. acme.com; an internationalized one in either form (bücher.de or"
    " xn--bcher-kva.de), answered in its ASCII form",
    example="acme.com",
)
EMAIL = Param("email", "path", "Person's email address", example="ada@acme.com")
JOB_ID = Param("id", "path", "Job id from the 202 or 201 answer", example="job_0123456789ab")
HOOK_ID = Param("id", "path", "Webhook endpoint id", example="wh_0123456789ab")
DELIVERY_ID = Param(
    "delivery_id",
    "path",
    "Delivery id (the `webhook-id`)",
    example="msg_5f2b6a0c9d8e7f6a5b4c3d2e1f0a9b8c",
)
IF_NONE_MATCH = Param("If-None-Match", "header", "An ETag you hold; 304 when unchanged")
IF_MATCH = Param("If-Match", "header", "The ETag you read; 412 when the page changed since")
IDEMPOTENCY = Param(
    "Idempotency-Key",
    "header",
    "Repeat-safe key, kept 24 hours per partner key: 1 to 255 visible ASCII characters",
    schema={
        "type": "string",
        "pattern": "^[\\x21-\\x7e]{1,255}$",
        "minLength": 1,
        "maxLength": 255,
    },
    example="7f0c9e1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b",
)
PREFER = Param("Prefer", "header", "`respond-async` answers 202 at once with the job")
ETAG = ("ETag",)
NOT_MODIFIED = Reply(304, "Not modified: the ETag you sent is current", headers=ETAG)
KEYED = (401, 429)


def assemble_document(
    operations: Sequence[Operation],
    *,
    info: Mapping[str, Any],
    servers: Sequence[Mapping[str, str]],
    tags: Sequence[Mapping[str, str]],
    security_schemes: Mapping[str, Any],
) -> dict[str, Any]:
    """The OpenAPI 3.1 document for these operations; every schema generated from the models."""
    schemas = _component_schemas(operations)
    paths: dict[str, dict[str, Any]] = {}
    for op in operations:
        paths.setdefault(op.path, {})[op.method] = _operation(op, schemas)
    for op in operations:
        if op.query is not None:
            schemas.pop(op.query.__name__, None)
    return {
        "openapi": "3.1.0",
        "info": dict(info),
        "servers": [dict(s) for s in servers],
        "tags": [dict(t) for t in tags],
        "paths": paths,
        "components": {
            "schemas": dict(sorted(schemas.items())),
            "securitySchemes": dict(security_schemes),
            "headers": HEADERS,
        },
    }


def _component_schemas(operations: Sequence[Operation]) -> dict[str, Any]:
    wanted: dict[tuple[type[BaseModel], JsonSchemaMode], None] = {
        (Problem, "serialization"): None,
    }
    for op in operations:
        for model in (op.request, op.query, *(m for _, m in op.other_requests)):
            if model is not None:
                wanted[(model, "validation")] = None
        for reply in op.replies:
            if reply.model is not None:
                wanted[(reply.model, "serialization")] = None
    _, defs = models_json_schema(list(wanted), ref_template=REF_TEMPLATE)
    return dict(defs.get("$defs", {}))


def _ref(model: type[BaseModel], schemas: Mapping[str, Any]) -> dict[str, str]:
    # A model used both ways with different shapes is split by pydantic into -Input/-Output.
    name = model.__name__
    if name not in schemas and f"{name}-Output" in schemas:
        name = f"{name}-Output"
    return {"$ref": REF_TEMPLATE.format(model=name)}


def _input_ref(model: type[BaseModel], schemas: Mapping[str, Any]) -> dict[str, str]:
    name = model.__name__
    if name not in schemas and f"{name}-Input" in schemas:
        name = f"{name}-Input"
    return {"$ref": REF_TEMPLATE.format(model=name)}


def _operation(op: Operation, schemas: Mapping[str, Any]) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "operationId": op.operation_id,
        "tags": [op.tag],
        "summary": op.summary,
        "security": SECURITY[op.auth],
    }
    if op.description:
        doc["description"] = op.description
    params = [_param(p) for p in op.params]
    if op.query is not None:
        params.extend(_query_params(op.query, schemas))
    if params:
        doc["parameters"] = params
    if op.request is not None:
        doc["requestBody"] = _request_body(op, schemas)
    responses: dict[str, Any] = {}
    for reply in op.replies:
        responses[str(reply.status)] = _response(reply, schemas)
    for status in op.errors:
        responses[str(status)] = _problem(status)
    doc["responses"] = responses
    return doc


def _request_body(op: Operation, schemas: Mapping[str, Any]) -> dict[str, Any]:
    assert op.request is not None  # noqa: S101  # checked by the caller
    content: dict[str, Any] = {}
    for media in op.request_media:
        entry: dict[str, Any] = {"schema": _input_ref(op.request, schemas)}
        if op.request_example is not None:
            entry["example"] = dict(op.request_example)
        content[media] = entry
    for media, model in op.other_requests:
        content[media] = {"schema": _input_ref(model, schemas)}
    return {"required": True, "content": content}


def _param(param: Param) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "name": param.name,
        "in": param.location,
        "description": param.description,
        "required": param.required or param.location == "path",
        "schema": dict(param.schema),
    }
    if param.example is not None:
        doc["example"] = param.example
    return doc


def _query_params(model: type[BaseModel], schemas: Mapping[str, Any]) -> list[dict[str, Any]]:
    schema = schemas[model.__name__]
    required = set(schema.get("required", ()))
    params = []
    for name, prop in schema.get("properties", {}).items():
        prop = {k: v for k, v in prop.items() if k != "title"}
        description = prop.pop("description", "")
        params.append(
            {
                "name": name,
                "in": "query",
                "description": description,
                "required": name in required,
                "schema": _drop_null(prop),
            }
        )
    return params


def _drop_null(schema: dict[str, Any]) -> dict[str, Any]:
    # An optional query value is absent, never null: `X | None` documents as plain X.
    options = schema.get("anyOf")
    if options and len(options) == 2 and {"type": "null"} in options:
        rest = {k: v for k, v in schema.items() if k != "anyOf"}
        schema = {**next(o for o in options if o != {"type": "null"}), **rest}
    if "default" in schema and schema["default"] is None:
        schema = {k: v for k, v in schema.items() if k != "default"}
    return schema


def _response(reply: Reply, schemas: Mapping[str, Any]) -> dict[str, Any]:
    doc: dict[str, Any] = {"description": reply.description}
    if reply.model is not None:
        doc["content"] = {reply.media_type: {"schema": _ref(reply.model, schemas)}}
    elif reply.schema is not None:
        doc["content"] = {reply.media_type: {"schema": dict(reply.schema)}}
    if reply.headers:
        doc["headers"] = {h: {"$ref": f"#/components/headers/{h}"} for h in reply.headers}
    return doc


def _problem(status: int) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "description": ERROR_MEANINGS.get(status, "Error"),
        "content": {PROBLEM_JSON: {"schema": {"$ref": REF_TEMPLATE.format(model="Problem")}}},
    }
    if status == 429:
        doc["headers"] = {
            name: {"$ref": f"#/components/headers/{name}"}
            for name in ("Retry-After", "RateLimit-Policy", "RateLimit")
        }
    elif status == 503:
        doc["headers"] = {"Retry-After": {"$ref": "#/components/headers/Retry-After"}}
    return doc
