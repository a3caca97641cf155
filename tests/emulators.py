"""Start and stop the Google Cloud emulators (and other local servers) for a test session.

Each is launched directly (not through gcloud) on a free port in its own process group, polled
until ready, and killed by group on teardown (notes/gcp-emulators.md).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

SDK_ROOT = Path(os.environ.get("CLOUDSDK_ROOT", "/usr/lib/google-cloud-sdk"))
REPO = Path(__file__).resolve().parent.parent
LOG_DIR = REPO / "tests" / "artifacts" / "logs"


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class ManagedProcess:
    """A child process in its own group, stopped with its children."""

    name: str
    proc: subprocess.Popen[bytes]
    host: str
    log_path: Path
    extra: dict[str, str] = field(default_factory=dict)
    stderr_path: Path | None = None

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(10)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                if self.proc.poll() is None:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                    self.proc.wait(10)

    def kill(self) -> None:
        """SIGKILL the whole group (a crash, for tests)."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)


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
    """Start `cmd`, wait until `ready(host)`, or fail fast with the log if it exits.

    With `separate_stderr`, stderr goes to a log file of its own (`stderr_path`).
    """
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    log_path = LOG_DIR / f"{name}-{port}.log"
    stderr_path = LOG_DIR / f"{name}-{port}.stderr.log" if separate_stderr else None
    # The child keeps its own descriptors once started.
    with log_path.open("wb") as log, (stderr_path or Path(os.devnull)).open("wb") as err:
        proc = subprocess.Popen(  # noqa: S603  # our own fixed commands
            cmd,
            stdout=log,
            stderr=err if separate_stderr else subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, **(env or {})},
            cwd=cwd,
        )
    host = f"127.0.0.1:{port}"
    managed = ManagedProcess(
        name=name, proc=proc, host=host, log_path=log_path, stderr_path=stderr_path
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"{name} exited with {proc.returncode}: {log_path.read_text()[-2000:]}"
            )
        if ready(host):
            return managed
        time.sleep(0.1)
    managed.stop()
    raise RuntimeError(f"{name} not ready after {timeout}s: {log_path.read_text()[-2000:]}")


def http_ok(path: str = "/") -> Callable[[str], bool]:
    """Ready when GET http://host{path} answers 2xx."""

    def check(host: str) -> bool:
        try:
            with urllib.request.urlopen(f"http://{host}{path}", timeout=1) as resp:  # loopback only
                return bool(200 <= resp.status < 300)
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            return False

    return check


def tcp_open(host: str) -> bool:
    """Ready when the port accepts a connection."""
    address, port = host.rsplit(":", 1)
    try:
        with socket.create_connection((address, int(port)), timeout=0.5):
            return True
    except OSError:
        return False


def start_firestore() -> ManagedProcess:
    port = free_port()
    launcher = SDK_ROOT / "platform" / "cloud-firestore-emulator" / "cloud_firestore_emulator"
    return start_process(
        "firestore",
        [str(launcher), "start", "--host=127.0.0.1", f"--port={port}"],
        port=port,
        ready=http_ok(),
    )


def start_pubsub() -> ManagedProcess:
    port = free_port()
    launcher = SDK_ROOT / "platform" / "pubsub-emulator" / "bin" / "cloud-pubsub-emulator"
    return start_process(
        "pubsub", [str(launcher), "--host=127.0.0.1", f"--port={port}"], port=port, ready=http_ok()
    )


def start_storage() -> ManagedProcess:
    port = free_port()
    exe = shutil.which("gcp-storage-emulator") or str(
        REPO / ".venv" / "bin" / "gcp-storage-emulator"
    )
    return start_process(
        "storage",
        [exe, "start", "--host=127.0.0.1", f"--port={port}", "--in-memory"],
        port=port,
        ready=http_ok(),
    )


def start_tasks(max_retries: int = 3) -> ManagedProcess:
    """gcloud-tasks-emulator lives in its own venv (.venv-tasks): it pins protobuf<5."""
    port = free_port()
    exe = REPO / ".venv-tasks" / "bin" / "gcloud-tasks-emulator"
    if not exe.exists():
        raise RuntimeError(
            "gcloud-tasks-emulator missing: run `make setup` (it creates .venv-tasks)"
        )
    return start_process(
        "tasks",
        [str(exe), "start", "-p", str(port), "-r", str(max_retries)],
        port=port,
        ready=tcp_open,
    )
