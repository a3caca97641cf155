"""terraform/ parsed once with python-hcl2, for the tests that check it against the app.

`terraform init` cannot reach the provider registry here, so `terraform validate` cannot run
(notes/gcp-emulators.md §6); these readers stand in for it. Cloud Run services declared with
`for_each` over a local map are expanded into one body per key, with `each.value.*` filled
in, so the tests see every service by its key ("api", "generation", "ingest", ...).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hcl2
from hcl2 import SerializationOptions

TERRAFORM = Path(__file__).resolve().parents[2] / "terraform"
OPTIONS = SerializationOptions(strip_string_quotes=True, explicit_blocks=False, with_comments=False)
_INTERPOLATED = re.compile(r"\$\{each\.value\.(\w+)\}")
_IN_EXPRESSION = re.compile(r"\beach\.value\.(\w+)")
_SERVICE_URI = re.compile(r'\$\{google_cloud_run_v2_service\.(\w+)(?:\["(\w+)"\])?\.uri\}')


@functools.cache
def load_config() -> dict[str, list[dict[str, Any]]]:
    """Every top-level block kind of terraform/*.tf and *.tf.json, merged by kind."""
    merged: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(TERRAFORM.glob("*.tf")):
        with path.open() as handle:
            for key, value in hcl2.load(handle, serialization_options=OPTIONS).items():
                merged.setdefault(key, []).extend(value)
    for path in sorted(TERRAFORM.glob("*.tf.json")):
        doc = json.loads(path.read_text())
        merged.setdefault("resource", []).append(doc["resource"])
    return merged


def blocks(kind: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(type, name, body) of every block of one kind ("resource", "data", ...)."""
    for group in load_config().get(kind, []):
        for type_name, named in group.items():
            for name, body in named.items():
                yield type_name, name, body


def resources(type_name: str) -> dict[str, dict[str, Any]]:
    """The resources of one type by name, as written (for_each not expanded)."""
    return {name: body for kind, name, body in blocks("resource") if kind == type_name}


def locals_() -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for group in load_config().get("locals", []):
        merged.update(group)
    return merged


def one(value: Any) -> Any:
    """hcl2 gives a nested block as a one-item list."""
    return value[0] if isinstance(value, list) else value


def run_services() -> dict[str, dict[str, Any]]:
    """Every Cloud Run service body by key; a `for_each` resource gives one per map key."""
    services: dict[str, dict[str, Any]] = {}
    for name, body in resources("google_cloud_run_v2_service").items():
        source = body.get("for_each")
        if source is None:
            services[name] = body
            continue
        local = re.fullmatch(r"\$\{local\.(\w+)\}", source)
        assert local, f"for_each of {name} is not a local map: {source}"
        for key, values in locals_()[local.group(1)].items():
            services[key] = _fill(body, values)
    return services


def container(service: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = one(one(service["template"])["containers"])
    return found


def push_service(endpoint: str) -> str | None:
    """The run_services() key a push endpoint `${google_cloud_run_v2_service...uri}` names."""
    match = _SERVICE_URI.fullmatch(endpoint)
    if match is None:
        return None
    return match.group(2) or match.group(1)


def _fill(node: Any, values: dict[str, Any]) -> Any:
    """`node` with `each.value.X` replaced: literal text in a template, the expression in code."""
    if isinstance(node, dict):
        return {key: _fill(value, values) for key, value in node.items()}
    if isinstance(node, list):
        return [_fill(item, values) for item in node]
    if not isinstance(node, str):
        return node
    whole = _INTERPOLATED.fullmatch(node)
    if whole:
        return values[whole.group(1)]
    node = _INTERPOLATED.sub(lambda m: str(values[m.group(1)]), node)
    return _IN_EXPRESSION.sub(lambda m: _as_expression(values[m.group(1)]), node)


def _as_expression(value: Any) -> str:
    if isinstance(value, str) and value.startswith("${") and value.endswith("}"):
        return value[2:-1]
    return json.dumps(value)
