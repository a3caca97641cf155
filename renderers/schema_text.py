"""JSON Schema (as pydantic generates it) described in words: types, field rows and examples.

Pure helpers for the API reference: `type_text` names a schema's type, `field_rows` lists an
object's properties with their constraints, `example_value` builds a minimal valid instance.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["constraints_text", "example_value", "field_rows", "type_text"]

_REF = "#/components/schemas/"
_CONSTRAINTS = (
    ("minLength", "min length {}"),
    ("maxLength", "max length {}"),
    ("minItems", "min {} items"),
    ("maxItems", "max {} items"),
    ("minimum", "minimum {}"),
    ("maximum", "maximum {}"),
    ("exclusiveMinimum", "greater than {}"),
    ("pattern", "pattern `{}`"),
)


def type_text(schema: Mapping[str, Any], *, top: bool = False) -> str:
    """A short type name: `string (uri)`, `array of HeroBlock`, `one of A, B`, `\"draft\" | ...`."""
    if "$ref" in schema:
        return str(schema["$ref"]).removeprefix(_REF)
    if "const" in schema:
        return json_text(schema["const"])
    if "enum" in schema:
        return " | ".join(json_text(v) for v in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = [type_text(o) for o in schema[key] if o.get("type") != "null"]
            nullable = any(o.get("type") == "null" for o in schema[key])
            text = " | ".join(options) if len(options) < 4 else "one of " + ", ".join(options)
            return text + (" or null" if nullable else "")
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array":
        return "array of " + type_text(schema.get("items", {}))
    if kind == "object" and not top and isinstance(schema.get("additionalProperties"), dict):
        return "map of " + type_text(schema["additionalProperties"])
    if "format" in schema:
        return f"{kind} ({schema['format']})"
    return str(kind)


def json_text(value: Any) -> str:
    """A JSON literal as text."""
    if isinstance(value, str):
        return f'"{value}"'
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def constraints_text(schema: Mapping[str, Any]) -> str:
    """Limits, default and description of one property, nullable wrappers included."""
    notes: list[str] = []
    parts = [schema, *(o for o in schema.get("anyOf", ()) if o.get("type") != "null")]
    for part in parts:
        notes.extend(fmt.format(part[key]) for key, fmt in _CONSTRAINTS if key in part)
        items = part.get("items", {})
        if "maxLength" in items:
            notes.append(f"each max length {items['maxLength']}")
    if "default" in schema and schema["default"] not in (None, [], {}):
        notes.append(f"default {json_text(schema['default'])}")
    if schema.get("description"):
        notes.append(str(schema["description"]))
    return "; ".join(notes)


def field_rows(schema: Mapping[str, Any]) -> list[tuple[str, str, bool, str]]:
    """One row per property: name, type, required, notes (empty for a non-object schema)."""
    required = set(schema.get("required", ()))
    return [
        (name, type_text(prop), name in required, constraints_text(prop))
        for name, prop in schema.get("properties", {}).items()
    ]


def example_value(schema: Mapping[str, Any], components: Mapping[str, Any], depth: int = 0) -> Any:
    """A small instance of the schema: examples first, then defaults, then required fields only."""
    if depth > 8:
        return None
    if "$ref" in schema:
        name = str(schema["$ref"]).removeprefix(_REF)
        return example_value(components.get(name, {}), components, depth + 1)
    for key in ("example", "const"):
        if key in schema:
            return schema[key]
    if schema.get("examples"):
        return schema["examples"][0]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        options = [o for o in schema.get(key, ()) if o.get("type") != "null"]
        if options:
            return example_value(options[0], components, depth + 1)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        required = schema.get("required", ())
        props = schema.get("properties", {})
        return {k: example_value(props[k], components, depth + 1) for k in required if k in props}
    if kind == "array":
        count = max(int(schema.get("minItems", 1)), 1)
        return [example_value(schema.get("items", {}), components, depth + 1)] * count
    if "default" in schema:
        return schema["default"]
    return _scalar(schema)


def _scalar(schema: Mapping[str, Any]) -> Any:
    kind = schema.get("type")
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return float(schema.get("minimum", 1))
    if kind == "boolean":
        return True
    formats = {
        "date-time": "2026-01-01T00:00:00Z",
        "uri": "https://example.com/",
        "email": "ada@acme.com",
    }
    return formats.get(schema.get("format", ""), "example")
