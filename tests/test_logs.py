"""STYLE Logging: one JSON record per line in Cloud Logging's fields; no key or token is logged."""

from __future__ import annotations

import io
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask, Response

from api.auth import KeyCheck
from api.rate_limits import RateLimits
from backends.bundle import Backends
from frontdoor.cli import cli
from frontdoor.logs import CloudJsonFormatter, configure_logging
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from services.keys import KeyRing
from tests.conftest import CONTENT_KEY, INGEST_KEY, SIGNALS_KEY

TRACE = "0123456789abcdef0123456789abcdef"


class JsonLines:
    """Every record the root logger handles, formatted as the service formats it."""

    def __init__(self, stream: io.StringIO) -> None:
        self._stream = stream

    @property
    def text(self) -> str:
        return self._stream.getvalue()

    def records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.text.splitlines()]


@pytest.fixture
def restore_root_logger() -> Iterator[logging.Logger]:
    """configure_logging replaces the root handlers; put pytest's back afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield root
    root.handlers[:] = handlers
    root.setLevel(level)


def capture_json(root: logging.Logger, *, project: str | None) -> JsonLines:
    """Add a DEBUG handler with the service's formatter to the root logger."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(CloudJsonFormatter(project))
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    return JsonLines(stream)


@pytest.fixture
def keyed_app(app: Flask, settings: Settings, backends: Backends) -> Flask:
    """The test app plus a keyed route (checked as the app factory checks its keyed
    blueprints) and a failing route, as later surfaces will have."""
    config = app_config(settings)
    limits = RateLimits(
        config.rate_limits, window_seconds=config.rate_limit_window_seconds, clock=time.monotonic
    )
    keys = KeyCheck(KeyRing(backends.keys, config.bootstrap_keys), limits)

    def keyed() -> Response:
        principal = keys.require("content", allow_bearer=True)
        return Response(principal.partner, mimetype="text/plain")

    def broken() -> Response:
        raise RuntimeError("boom")

    app.add_url_rule("/api/public/content/probe", "keyed_probe", keyed)
    app.add_url_rule("/broken", "broken", broken)
    return app


def test_configure_logging_writes_one_json_object_per_record_on_stdout(
    restore_root_logger: logging.Logger, capsys: pytest.CaptureFixture[str]
) -> None:
    """STYLE Logging: severity, message (%-style arguments applied) and extra= fields."""
    configure_logging(level="INFO", project=None)

    logging.getLogger("frontdoor.test").info(
        "job %s passed gate on attempt %d", "j1", 2, extra={"job_id": "j1", "slug": "launch"}
    )
    logging.getLogger("frontdoor.test").debug("not at INFO")

    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert record["severity"] == "INFO"
    assert record["message"] == "job j1 passed gate on attempt 2"
    assert record["logger"] == "frontdoor.test"
    assert (record["job_id"], record["slug"]) == ("j1", "launch")
    assert "request_id" not in record


def test_a_record_logged_during_a_request_carries_its_request_id_and_trace(
    restore_root_logger: logging.Logger, keyed_app: Flask
) -> None:
    """Cloud Logging correlation: `logging.googleapis.com/trace` from X-Cloud-Trace-Context."""
    logs = capture_json(restore_root_logger, project="demo-frontdoor")

    response = keyed_app.test_client().get(
        "/broken",
        headers={"X-Request-Id": "req-123", "X-Cloud-Trace-Context": f"{TRACE}/42;o=1"},
    )

    errors = [r for r in logs.records() if r["severity"] == "ERROR"]
    assert response.status_code == 500
    assert errors
    for record in errors:
        assert record["request_id"] == "req-123"
        assert record["logging.googleapis.com/trace"] == f"projects/demo-frontdoor/traces/{TRACE}"
    assert any("RuntimeError: boom" in r.get("stack_trace", "") for r in errors)
    assert all("boom" not in r["message"] for r in errors)


def test_without_a_project_records_carry_no_trace_field(
    restore_root_logger: logging.Logger, keyed_app: Flask
) -> None:
    """A trace field needs the project id, so none is written without GOOGLE_CLOUD_PROJECT."""
    logs = capture_json(restore_root_logger, project=None)

    keyed_app.test_client().get("/broken", headers={"X-Cloud-Trace-Context": f"{TRACE}/1"})

    assert logs.records()
    assert all("logging.googleapis.com/trace" not in r for r in logs.records())


def test_a_record_logged_after_a_request_carries_no_stale_request_id(
    restore_root_logger: logging.Logger, keyed_app: Flask
) -> None:
    """Server threads are reused: a record between requests names no earlier request."""
    logs = capture_json(restore_root_logger, project="demo-frontdoor")
    keyed_app.test_client().get("/broken", headers={"X-Request-Id": "req-old"})

    logging.getLogger("frontdoor.test").warning("between requests")

    last = logs.records()[-1]
    assert last["message"] == "between requests"
    assert "request_id" not in last
    assert "logging.googleapis.com/trace" not in last


def test_at_debug_every_request_logs_one_line_with_its_status_latency_and_request_id(
    restore_root_logger: logging.Logger, keyed_app: Flask
) -> None:
    """README Logs: LOG_LEVEL=DEBUG gives the access line; the query string is never in it."""
    logs = capture_json(restore_root_logger, project=None)

    keyed_app.test_client().get("/healthz?token=abc", headers={"X-Request-Id": "req-7"})

    (line,) = [r for r in logs.records() if r["logger"] == "api.app"]
    assert line["message"] == "GET /healthz 200"
    assert line["request_id"] == "req-7"
    assert isinstance(line["latency_ms"], float)
    assert "abc" not in logs.text


def test_at_info_a_request_that_succeeds_logs_nothing_and_one_that_fails_logs_an_error(
    restore_root_logger: logging.Logger, keyed_app: Flask
) -> None:
    """README Logs: at INFO the log holds what happened, not every request; a 5xx always."""
    logs = capture_json(restore_root_logger, project=None)
    restore_root_logger.setLevel(logging.INFO)
    client = keyed_app.test_client()

    client.get("/healthz")
    client.get("/nowhere")
    client.get("/broken")

    lines = [r for r in logs.records() if r["logger"] == "api.app"]
    assert [(r["severity"], r["message"]) for r in lines][-1] == (
        "ERROR",
        "GET /broken answered 500",
    )
    assert not [r for r in lines if r["message"].startswith(("GET /healthz", "GET /nowhere"))]


@pytest.mark.parametrize(
    "headers",
    [
        {"x-api-key": CONTENT_KEY},
        {"Authorization": f"Bearer {CONTENT_KEY}"},
        {"x-api-key": SIGNALS_KEY},
        {"x-api-key": "fdk_content_0123456789ab_wrong-secret-wrong-secret-wrong"},
        {"Authorization": "Bearer not-a-key-but-a-token-0123456789"},
    ],
)
def test_keys_sent_in_headers_never_appear_in_the_logs(
    restore_root_logger: logging.Logger, keyed_app: Flask, headers: dict[str, str]
) -> None:
    """No key or token is ever logged, valid or not, at any level."""
    logs = capture_json(restore_root_logger, project="demo-frontdoor")
    client = keyed_app.test_client()

    for path in ("/api/public/content/probe", "/api/public/v1/company", "/nowhere", "/broken"):
        client.get(path, headers=headers)

    secret = next(iter(headers.values())).removeprefix("Bearer ")
    assert logs.records()
    assert secret not in logs.text


def test_keys_issued_by_the_cli_appear_once_in_its_output_and_never_in_its_logs(
    restore_root_logger: logging.Logger, tmp_path: Path
) -> None:
    """DESIGN Operator CLI: an issued key is shown once, in the output, never in a log."""
    runner = CliRunner()
    env = {"DATA_DIR": str(tmp_path), "LOG_LEVEL": "DEBUG", "INGEST_API_KEY": INGEST_KEY}

    issued = runner.invoke(
        cli, ["keys", "issue", "--partner", "acme", "--scope", "signals"], env=env
    )
    listed = runner.invoke(cli, ["keys", "list"], env=env)

    raw = issued.output.strip().splitlines()[-1]
    assert issued.exit_code == 0
    assert raw.startswith("fdk_signals_")
    assert issued.output.count(raw) == 1
    assert raw not in listed.output
    assert INGEST_KEY not in issued.output + listed.output
