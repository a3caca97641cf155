"""Schemathesis over the public read routes and the files, driven by the
app's own OpenAPI document, finds no 5xx and no response that breaks the schema; and the same
for the keyed read routes, called with their keys.

Schemathesis runs programmatically (one hypothesis run per operation) rather than through its
pytest plugin, whose lazy loader does not run on pytest 9.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, given, settings
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import positive_data_acceptance

from api.app import create_app
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends

if TYPE_CHECKING:
    from schemathesis.specs.openapi.schemas import OpenApiCase

TAGS = ["Public", "Files", "Errors"]
CONTENT_KEY = "schemathesis-content-key-0123"
SIGNALS_KEY = "schemathesis-signals-key-0123"
EXAMPLES = 6


@pytest.fixture(scope="module")
def served_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    config = Settings(
        data_dir=tmp_path_factory.mktemp("schemathesis"),
        public_base_url="http://localhost",
        content_api_key=CONTENT_KEY,
        signals_api_key=SIGNALS_KEY,
    )
    backends = build_backends(config)
    yield create_app(app_config(config), backends)
    backends.close()


def check_operation(operation: Any, **call: Any) -> None:
    """Generate cases for one operation and validate every response against the document."""

    @given(case=operation.as_strategy())
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    def conforms(case: OpenApiCase) -> None:
        case.call_and_validate(**call)

    conforms()


def operation_ids(app: Flask) -> list[str]:
    document = app.test_client().get("/openapi.json").get_json()
    return [
        op["operationId"]
        for ops in document["paths"].values()
        for op in ops.values()
        if set(op["tags"]) & set(TAGS)
    ]


@pytest.mark.spec("public.schemathesis")
def test_public_reads_and_files_conform_to_the_openapi_document(served_app: Flask) -> None:
    """SPEC Public read and files: no 5xx; every status, header and body as documented."""
    schema = schemathesis.openapi.from_wsgi("/openapi.json", served_app).include(tag=TAGS)
    operations = [r.ok() for r in schema.get_all_operations() if isinstance(r, Ok)]

    for operation in operations:
        check_operation(operation)

    assert sorted(op.definition.raw["operationId"] for op in operations) == sorted(
        operation_ids(served_app)
    )


@pytest.mark.spec("signals.schemathesis")
def test_keyed_reads_conform_to_the_openapi_document(served_app: Flask) -> None:
    """SPEC Content API and Signal API reads: no 5xx; statuses and bodies as documented."""
    schema = schemathesis.openapi.from_wsgi("/openapi.json", served_app).include(
        tag=["Content", "Signals", "Webhooks"], method="GET"
    )
    operations = [r.ok() for r in schema.get_all_operations() if isinstance(r, Ok)]

    for operation in operations:
        content = "contentKey" in str(operation.definition.raw["security"])
        # Opaque cursors and ids are schema-valid strings that the service may refuse (400).
        check_operation(
            operation,
            headers={"x-api-key": CONTENT_KEY if content else SIGNALS_KEY},
            excluded_checks=[positive_data_acceptance],
        )

    assert len(operations) >= 9
