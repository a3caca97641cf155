"""configure_logging(): one JSON object per record on stdout, in Cloud Logging's field names."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

from api.request_context import request_id, trace_id

_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None)).keys()) | {
    "message",
    "asctime",
}


class CloudJsonFormatter(logging.Formatter):
    """Cloud Logging's structured format: severity, message, time, trace, request id, extras."""

    def __init__(self, project: str | None) -> None:
        super().__init__()
        self._project = project

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "severity": record.levelname,
            "message": record.getMessage(),
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "logger": record.name,
        }
        rid = request_id.get()
        if rid:
            entry["request_id"] = rid
        trace = trace_id.get()
        if trace and self._project:
            entry["logging.googleapis.com/trace"] = f"projects/{self._project}/traces/{trace}"
        entry.update(
            {k: v for k, v in vars(record).items() if k not in _STANDARD and not k.startswith("_")}
        )
        if record.exc_info:
            entry["stack_trace"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def configure_logging(*, level: str = "INFO", project: str | None = None) -> None:
    """Install the JSON handler on the root logger (once per entry point)."""
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(CloudJsonFormatter(project))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # granian and werkzeug log access lines of their own; ours carry the request id.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)


def granian_log_config(project: str | None) -> dict[str, Any]:
    """granian's `log_dictconfig`: its own lines in the same JSON format as ours."""
    json_formatter = {"()": CloudJsonFormatter, "project": project}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"generic": json_formatter, "access": json_formatter},
    }
