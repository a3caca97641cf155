"""Schemathesis over every operation of /openapi.json, on the whole served
WSGI app (Flask and the bridged MCP side), each surface called with its own key: no 5xx, and no
status, content type, header or body the document does not describe.

Cases come from schemathesis's public API (`from_wsgi`, `as_strategy` in positive and negative
mode, `call_and_validate`). FUZZ_EXAMPLES sets the examples per operation and mode: the default
keeps this to a couple of minutes here; `make fuzz` runs it with many more.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.core.result import Ok
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from werkzeug.test import Client

from api.app import create_app
from api.tools.mcp_paths import asgi_paths
from frontdoor.composition import BuiltOnFirstUse, PathDispatcher, WsgiApp
from frontdoor.serve import served_asgi_side
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends

if TYPE_CHECKING:
    from schemathesis.specs.openapi.schemas import OpenApiCase

logger = logging.getLogger(__name__)
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "320"))
KEYS = {
    "contentKey": "fuzz-content-key-0123456789",
    "signalsKey": "fuzz-signals-key-0123456789",
    "ingestKey": "fuzz-ingest-key-01234567890",
}
BASE_URL = "http://localhost"
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@dataclass
class Tally:
    """Cases run and the distinct failures seen, per operation and mode."""

    cases: int = 0
    failures: dict[str, str] = field(default_factory=dict)


@pytest.fixture(scope="module")
def served_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WsgiApp]:
    """The app `python -m frontdoor.serve` serves (frontdoor.serve.create_served_app)."""
    config = Settings(
        data_dir=tmp_path_factory.mktemp("fuzz"),
        public_base_url=BASE_URL,
        content_api_key=KEYS["contentKey"],
        signals_api_key=KEYS["signalsKey"],
        ingest_api_key=KEYS["ingestKey"],
        generate_wait_seconds=0,
    )
    backends = build_backends(config)
    flask_app = create_app(app_config(config), backends)
    asgi_side = BuiltOnFirstUse(lambda: served_asgi_side(config, backends))
    paths = asgi_paths(builtin_authorization_server=True)
    yield PathDispatcher(flask_app.wsgi_app, asgi_side, exact=paths, prefixes=())
    backends.close()


def served_client_document(app: WsgiApp) -> dict[str, Any]:
    """/openapi.json as the served app answers it."""
    response = Client(app).get("/openapi.json")
    document: dict[str, Any] = json.loads(response.get_data())
    return document


def _headers(operation: Any) -> dict[str, str]:
    """The key of the operation's surface; collect's Origin is this site's."""
    schemes = {name for option in operation.definition.raw["security"] for name in option}
    key = next((KEYS[name] for name in sorted(schemes) if name in KEYS), None)
    if "signalsBearer" in schemes:
        key = KEYS["signalsKey"]
    headers = {"Origin": BASE_URL}
    if key is not None:
        headers["x-api-key"] = key
    return headers


def _modes(operation: Any) -> list[GenerationMode]:
    """Negative cases need something to break: a body, or a parameter with a constraint."""
    raw = operation.definition.raw
    constrained = any(
        set(p.get("schema", {})) - {"type"} or p.get("schema", {}).get("type") != "string"
        for p in raw.get("parameters", [])
    )
    if constrained or raw.get("requestBody"):
        return [GenerationMode.POSITIVE, GenerationMode.NEGATIVE]
    return [GenerationMode.POSITIVE]


def _run(operation: Any, mode: GenerationMode, tally: Tally) -> None:
    headers = _headers(operation)

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def conforms(case: OpenApiCase) -> None:
        tally.cases += 1
        try:
            case.call_and_validate(headers=headers, checks=CHECKS)
        except (Failure, FailureGroup) as err:  # keep the first case of each failure
            label = f"{operation.label} [{mode.value}]: {str(err).splitlines()[0]}"
            tally.failures.setdefault(label, str(err)[:2000])

    try:
        conforms()
    except Unsatisfiable:
        # Only unconstrained strings to break (a slug, an ETag): no negative case exists.
        assert mode is GenerationMode.NEGATIVE, operation.label


@pytest.mark.spec("openapi.conformance")
def test_every_operation_answers_only_what_the_openapi_document_describes(
    served_app: WsgiApp,
) -> None:
    """SPEC Errors, Versioning: no 5xx; every status, content type, header and body documented."""
    schema = schemathesis.openapi.from_wsgi("/openapi.json", served_app)
    operations = [r.ok() for r in schema.get_all_operations() if isinstance(r, Ok)]
    tally = Tally()

    for operation in operations:
        for mode in _modes(operation):
            _run(operation, mode, tally)

    logger.info("%d cases over %d operations", tally.cases, len(operations))
    documented = {
        f"{method.upper()} {path}"
        for path, ops in served_client_document(served_app)["paths"].items()
        for method in ops
    }
    # schemathesis leaves out the document it loaded; /api/openapi.json serves the same bytes.
    assert documented - {op.label for op in operations} == {"GET /openapi.json"}
    assert tally.cases >= 40 * EXAMPLES
    assert list(tally.failures.values()) == []
