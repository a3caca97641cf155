"""The OpenAPI document flattened into rows that the portal's HTML and Markdown both render.

Pure: an OpenAPI dict in, plain dataclasses out (operations with their auth, parameters,
body fields, responses and a curl example; every component schema with its fields).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from renderers.schema_text import example_value, field_rows, type_text

__all__ = [
    "AUTH_LABELS",
    "FieldRow",
    "OperationView",
    "Reference",
    "ResponseRow",
    "SchemaView",
    "build_reference",
    "curl_example",
]

FieldRow = tuple[str, str, bool, str]  # name, type, required, notes

AUTH_LABELS = {
    "contentKey": "Content key in `x-api-key`",
    "signalsKey": "Signals key in `x-api-key`",
    "signalsBearer": "Signals key as `Authorization: Bearer`",
    "ingestKey": "Ingest key in `x-api-key`",
    "oauth2": "OAuth 2.1 bearer token (scopes openid email profile)",
}
_AUTH_HEADERS = {
    "contentKey": "x-api-key: $CONTENT_API_KEY",
    "signalsKey": "x-api-key: $SIGNALS_API_KEY",
    "ingestKey": "x-api-key: $INGEST_API_KEY",
    "oauth2": "Authorization: Bearer $MCP_ACCESS_TOKEN",
}


@dataclass(frozen=True)
class ResponseRow:
    status: str
    description: str
    media_type: str
    type: str


@dataclass(frozen=True)
class OperationView:
    method: str
    path: str
    operation_id: str
    tag: str
    summary: str
    description: str
    auth: tuple[str, ...]
    params: tuple[FieldRow, ...]
    request_type: str
    request_fields: tuple[FieldRow, ...]
    success_status: str
    success_fields: tuple[FieldRow, ...]
    responses: tuple[ResponseRow, ...]
    curl: str

    @property
    def anchor(self) -> str:
        return f"op-{self.operation_id}"


@dataclass(frozen=True)
class SchemaView:
    name: str
    description: str
    type: str
    fields: tuple[FieldRow, ...]

    @property
    def anchor(self) -> str:
        return f"schema-{self.name}"


@dataclass(frozen=True)
class Reference:
    title: str
    version: str
    description: str
    base_url: str
    tags: tuple[tuple[str, str, tuple[OperationView, ...]], ...]
    schemas: tuple[SchemaView, ...]

    @property
    def operations(self) -> tuple[OperationView, ...]:
        return tuple(op for _, _, ops in self.tags for op in ops)


def build_reference(openapi: Mapping[str, Any]) -> Reference:
    """Every operation grouped by tag (in the document's tag order) and every schema."""
    components: Mapping[str, Any] = openapi.get("components", {}).get("schemas", {})
    base_url = openapi["servers"][0]["url"]
    by_tag: dict[str, list[OperationView]] = {t["name"]: [] for t in openapi.get("tags", [])}
    for path, methods in openapi["paths"].items():
        for method, op in methods.items():
            view = _operation(path, method, op, components, base_url)
            by_tag.setdefault(view.tag, []).append(view)
    descriptions = {t["name"]: t.get("description", "") for t in openapi.get("tags", [])}
    schemas = tuple(
        SchemaView(
            name=name,
            description=schema.get("description", ""),
            type=type_text(schema, top=True),
            fields=tuple(field_rows(schema)),
        )
        for name, schema in components.items()
    )
    info = openapi["info"]
    return Reference(
        title=info["title"],
        version=info["version"],
        description=info.get("description", ""),
        base_url=base_url,
        tags=tuple((tag, descriptions.get(tag, ""), tuple(ops)) for tag, ops in by_tag.items()),
        schemas=schemas,
    )


def _operation(
    path: str, method: str, op: Mapping[str, Any], components: Mapping[str, Any], base_url: str
) -> OperationView:
    security = op.get("security", [])
    auth = tuple(AUTH_LABELS.get(name, name) for req in security for name in req) or ("None",)
    params = tuple(
        (
            p["name"],
            f"{p['in']}: {type_text(p.get('schema', {}))}",
            bool(p.get("required")),
            p.get("description", ""),
        )
        for p in op.get("parameters", [])
    )
    request_type = ""
    request_fields: tuple[FieldRow, ...] = ()
    body = op.get("requestBody", {}).get("content", {})
    if body:
        media, entry = next(iter(body.items()))
        schema = _resolve(entry.get("schema", {}), components)
        request_type = f"{media}: {type_text(entry.get('schema', {}))}"
        request_fields = tuple(field_rows(schema))
    success = _success_fields(op, components)
    responses = tuple(
        ResponseRow(
            status=status,
            description=reply.get("description", ""),
            media_type=", ".join(reply.get("content", {})) or "(no body)",
            type=", ".join(
                type_text(c.get("schema", {})) for c in reply.get("content", {}).values()
            ),
        )
        for status, reply in op.get("responses", {}).items()
    )
    return OperationView(
        method=method.upper(),
        path=path,
        operation_id=op["operationId"],
        tag=(op.get("tags") or ["Other"])[0],
        summary=op.get("summary", ""),
        description=op.get("description", ""),
        auth=auth,
        params=params,
        request_type=request_type,
        request_fields=request_fields,
        success_status=success[0],
        success_fields=success[1],
        responses=responses,
        curl=curl_example(path, method, op, components, base_url),
    )


def _success_fields(
    op: Mapping[str, Any], components: Mapping[str, Any]
) -> tuple[str, tuple[FieldRow, ...]]:
    """The first 2xx JSON response's status and top-level fields."""
    for status, reply in op.get("responses", {}).items():
        schema = reply.get("content", {}).get("application/json", {}).get("schema")
        if status.startswith("2") and schema:
            return status, tuple(field_rows(_resolve(schema, components)))
    return "", ()


def _resolve(schema: Mapping[str, Any], components: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = schema.get("$ref", "")
    if ref.startswith("#/components/schemas/"):
        resolved: Mapping[str, Any] = components.get(ref.rsplit("/", 1)[1], {})
        return resolved
    return schema


def curl_example(
    path: str, method: str, op: Mapping[str, Any], components: Mapping[str, Any], base_url: str
) -> str:
    """A runnable curl line: example path values, the auth header from $ENV, an example body."""
    for param in op.get("parameters", []):
        if param["in"] == "path":
            path = path.replace("{" + param["name"] + "}", str(param.get("example", "example")))
    parts = ["curl -s"]
    if method != "get":
        parts.append(f"-X {method.upper()}")
    security = op.get("security", [])
    if security:
        scheme = next(iter(security[0]))
        parts.append(f'-H "{_AUTH_HEADERS.get(scheme, "x-api-key: $API_KEY")}"')
    body = op.get("requestBody", {}).get("content", {})
    if body:
        media = "application/json" if "application/json" in body else next(iter(body))
        entry = body[media]
        value = entry.get("example")
        if value is None:
            value = example_value(entry.get("schema", {}), components)
        data = json.dumps(value, separators=(",", ":")).replace("'", "'\\''")
        parts.append(f"-H 'content-type: {media}' -d '{data}'")
    parts.append(f"{base_url}{path}")
    return " ".join(parts)
