"""The four Google Cloud emulators as child processes: Firestore, Pub/Sub, storage and tasks.

Each is launched directly (not through gcloud: a second faster, one process fewer) on the
given or a free loopback port, in a process group of its own (notes/gcp-emulators.md §7).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from devtools.processes import REPO, ManagedProcess, free_port, http_ok, start_process, tcp_open

SDK_ROOT = Path(os.environ.get("CLOUDSDK_ROOT", "/usr/lib/google-cloud-sdk"))
TASKS_EMULATOR = REPO / ".venv-tasks" / "bin" / "gcloud-tasks-emulator"


def start_firestore(*, log_dir: Path, port: int | None = None) -> ManagedProcess:
    """The Firestore emulator; ready when GET / answers."""
    port = port or free_port()
    launcher = SDK_ROOT / "platform" / "cloud-firestore-emulator" / "cloud_firestore_emulator"
    return start_process(
        "firestore",
        [str(launcher), "start", "--host=127.0.0.1", f"--port={port}"],
        port=port,
        ready=http_ok(),
        log_dir=log_dir,
    )


def start_pubsub(*, log_dir: Path, port: int | None = None) -> ManagedProcess:
    """The Pub/Sub emulator (push, dead letters and ordering work; no OIDC tokens)."""
    port = port or free_port()
    launcher = SDK_ROOT / "platform" / "pubsub-emulator" / "bin" / "cloud-pubsub-emulator"
    return start_process(
        "pubsub",
        [str(launcher), "--host=127.0.0.1", f"--port={port}"],
        port=port,
        ready=http_ok(),
        log_dir=log_dir,
    )


def start_storage(*, log_dir: Path, port: int | None = None) -> ManagedProcess:
    """gcp-storage-emulator, in memory."""
    port = port or free_port()
    exe = shutil.which("gcp-storage-emulator") or str(
        REPO / ".venv" / "bin" / "gcp-storage-emulator"
    )
    return start_process(
        "storage",
        [exe, "start", "--host=127.0.0.1", f"--port={port}", "--in-memory"],
        port=port,
        ready=http_ok(),
        log_dir=log_dir,
    )


def start_tasks(*, log_dir: Path, max_retries: int = 3, port: int | None = None) -> ManagedProcess:
    """gcloud-tasks-emulator from its own venv (.venv-tasks: it pins protobuf<5).

    It binds every interface and has no flag to change that. Raises: RuntimeError if missing.
    """
    port = port or free_port()
    if not TASKS_EMULATOR.exists():
        raise RuntimeError(
            "gcloud-tasks-emulator missing: run `make setup` (it creates .venv-tasks)"
        )
    return start_process(
        "tasks",
        [str(TASKS_EMULATOR), "start", "-p", str(port), "-r", str(max_retries)],
        port=port,
        ready=tcp_open,
        log_dir=log_dir,
    )
