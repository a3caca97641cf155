"""Child processes for local runs: start one in its own process group, wait until it is ready,
stop it with its children. Used by `make run-emulated` (devtools/emulated.py) and the tests.

Each child gets its own session (`start_new_session`), so a stop or a crash-test SIGKILL
reaches the whole group: gcloud's launchers run bash, which runs java.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


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
        """SIGTERM the group, then SIGKILL it if it is still there after 10 s."""
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
    log_dir: Path,
    env: dict[str, str] | None = None,
    timeout: float = 60.0,
    cwd: Path | None = None,
    separate_stderr: bool = False,
) -> ManagedProcess:
    """Start `cmd`, wait until `ready(host)`, or fail fast with the log if it exits.

    Output goes to `log_dir/{name}-{port}.log`; with `separate_stderr`, stderr goes to a log
    file of its own (`stderr_path`). Raises: RuntimeError (exited, or not ready in time).
    """
    managed = spawn_process(
        name, cmd, port=port, log_dir=log_dir, env=env, cwd=cwd, separate_stderr=separate_stderr
    )
    wait_ready(managed, ready=ready, timeout=timeout)
    return managed


def spawn_process(
    name: str,
    cmd: list[str],
    *,
    port: int,
    log_dir: Path,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    separate_stderr: bool = False,
) -> ManagedProcess:
    """Start `cmd` in a process group of its own, without waiting for it."""
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"{name}-{port}.log"
    stderr_path = log_dir / f"{name}-{port}.stderr.log" if separate_stderr else None
    # The child keeps its own descriptors once started.
    with log_path.open("wb") as log, (stderr_path or Path(os.devnull)).open("wb") as err:
        proc = subprocess.Popen(  # noqa: S603  # our own fixed commands
            cmd,
            stdout=log,
            stderr=err if separate_stderr else subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env={**os.environ, **(env or {})},
            cwd=cwd,
        )
    return ManagedProcess(
        name=name,
        proc=proc,
        host=f"127.0.0.1:{port}",
        log_path=log_path,
        stderr_path=stderr_path,
    )


def wait_ready(managed: ManagedProcess, *, ready: Callable[[str], bool], timeout: float) -> None:
    """Poll `ready(host)` until it holds. Raises: RuntimeError (exited, or not ready in time)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if managed.proc.poll() is not None:
            raise RuntimeError(
                f"{managed.name} exited with {managed.proc.returncode}: {_tail(managed)}"
            )
        if ready(managed.host):
            return
        time.sleep(0.1)
    managed.stop()
    raise RuntimeError(f"{managed.name} not ready after {timeout}s: {_tail(managed)}")


def _tail(managed: ManagedProcess) -> str:
    return managed.log_path.read_text(errors="replace")[-2000:]


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
