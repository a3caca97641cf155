"""The real served process (`python -m frontdoor.serve`, granian) on a free port, as `make run`
starts it: one helper for the tests that serve over a socket (serving, docs and README commands,
MCP over OAuth, the hostile storm), and the shell the docs' commands run in."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
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
        # As `make run` and the image start it (README "Configuration"): glibc's malloc keeps
        # an arena per thread otherwise, and the storm grew the process by 150-190 MB.
        "MALLOC_ARENA_MAX": "2",
    }


def shell_env(served: dict[str, str]) -> dict[str, str]:
    """What a reader's shell has: PATH, a HOME of its own, and the served app's variables."""
    home = Path(served["DATA_DIR"]).parent
    return {"PATH": os.environ["PATH"], "HOME": str(home), **served}


@dataclass(frozen=True)
class Served:
    """A running served process and the variables it was started with."""

    proc: ManagedProcess
    env: dict[str, str]

    @property
    def base(self) -> str:
        return f"http://{self.proc.host}"

    @property
    def data_dir(self) -> Path:
        return Path(self.env["DATA_DIR"])

    @property
    def outbox(self) -> Path:
        """Where the embedded mailer writes each message (the sign-in codes)."""
        return self.data_dir / "outbox"

    def stop(self) -> None:
        self.proc.stop()


def start_served(data_dir: Path, **env: str) -> Served:
    """Start the service as `make run` does, on a free port; answer once /healthz is up.

    `env` overrides `served_env` by setting name, upper-cased (`log_level="INFO"`); stdout (the
    JSON log) and stderr (the start banner, new keys) go to files of their own.
    """
    port = free_port()
    full = {**served_env(data_dir, port), **{name.upper(): v for name, v in env.items()}}
    proc = start_process(
        "serve",
        [sys.executable, "-m", "frontdoor.serve"],
        port=port,
        ready=http_ok("/healthz"),
        env=full,
        cwd=REPO,
        separate_stderr=True,
    )
    return Served(proc=proc, env=full)


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
