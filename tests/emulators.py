"""Start and stop the Google Cloud emulators (and other local servers) for a test session.

The helpers live in devtools/processes.py and devtools/emulators.py (`make run-emulated`
uses them too); here they write their logs to tests/artifacts/logs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from devtools import emulators
from devtools.emulators import SDK_ROOT
from devtools.processes import REPO, ManagedProcess, free_port, http_ok, tcp_open
from devtools.processes import start_process as _start_process

LOG_DIR = REPO / "tests" / "artifacts" / "logs"

__all__ = [
    "LOG_DIR",
    "REPO",
    "SDK_ROOT",
    "ManagedProcess",
    "free_port",
    "http_ok",
    "start_firestore",
    "start_process",
    "start_pubsub",
    "start_storage",
    "start_tasks",
    "tcp_open",
]


def start_process(
    name: str,
    cmd: list[str],
    *,
    port: int,
    ready: Callable[[str], bool],
    env: dict[str, str] | None = None,
    timeout: float = 60.0,
    cwd: Path | None = None,
    separate_stderr: bool = False,
) -> ManagedProcess:
    """Start `cmd`, wait until `ready(host)`, or fail fast with the log if it exits."""
    return _start_process(
        name,
        cmd,
        port=port,
        ready=ready,
        log_dir=LOG_DIR,
        env=env,
        timeout=timeout,
        cwd=cwd,
        separate_stderr=separate_stderr,
    )


def start_firestore() -> ManagedProcess:
    return emulators.start_firestore(log_dir=LOG_DIR)


def start_pubsub() -> ManagedProcess:
    return emulators.start_pubsub(log_dir=LOG_DIR)


def start_storage() -> ManagedProcess:
    return emulators.start_storage(log_dir=LOG_DIR)


def start_tasks(max_retries: int = 3) -> ManagedProcess:
    """gcloud-tasks-emulator lives in its own venv (.venv-tasks): it pins protobuf<5."""
    return emulators.start_tasks(log_dir=LOG_DIR, max_retries=max_retries)
