"""The real served process (`python -m frontdoor.serve`, granian) on a free port, for tests that
run shell commands from the docs and the README against it."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from tests.emulators import REPO, ManagedProcess, free_port, http_ok, start_process

CONTENT_KEY = "docs-content-key-0123456789"
SIGNALS_KEY = "docs-signals-key-0123456789"
INGEST_KEY = "docs-ingest-key-01234567890"
STATUS_MARK = "__http_status="
FENCE = re.compile(r"^```(?:sh|bash|shell|console)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def served_env(data_dir: Path, port: int) -> dict[str, str]:
    """The environment of the served process and of the commands run against it."""
    return {
        "BACKEND": "embedded",
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "DATA_DIR": str(data_dir),
        "PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
        "CONTENT_API_KEY": CONTENT_KEY,
        "SIGNALS_API_KEY": SIGNALS_KEY,
        "INGEST_API_KEY": INGEST_KEY,
        "LOG_LEVEL": "WARNING",
        "WORKERS": "1",
    }


def shell_env(served: dict[str, str]) -> dict[str, str]:
    """What a reader's shell has: PATH, a HOME of its own, and the served app's variables."""
    home = Path(served["DATA_DIR"]).parent
    return {"PATH": os.environ["PATH"], "HOME": str(home), **served}


def start_served(data_dir: Path) -> tuple[ManagedProcess, dict[str, str]]:
    """Start the service as `make run` does; answer once /healthz is up."""
    port = free_port()
    env = served_env(data_dir, port)
    proc = start_process(
        "frontdoor",
        [sys.executable, "-m", "frontdoor.serve"],
        port=port,
        ready=http_ok("/healthz"),
        env=env,
        cwd=REPO,
    )
    return proc, env


def shell_commands(markdown: str) -> list[str]:
    """Every command line of the shell code blocks, with backslash continuations joined."""
    commands: list[str] = []
    for block in FENCE.findall(markdown):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                commands.append(line)
    return commands


def with_status(command: str) -> str:
    """The curl command printing its status last (a later `-w` wins over the doc's own)."""
    return f"{command} -w '\\n{STATUS_MARK}%{{http_code}}\\n'"


def statuses(output: str) -> list[int]:
    """The statuses `with_status` commands printed, in order."""
    return [int(s) for s in re.findall(STATUS_MARK + r"(\d{3})", output)]
