"""A probe: a short script run by our interpreter in a fresh process (so its imports are its
own), on a data folder of its own with the tests' fixed keys; it prints what it saw as JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import CONTENT_KEY, INGEST_KEY, SIGNALS_KEY
from tests.emulators import REPO, free_port

FIXED_KEYS = {
    "CONTENT_API_KEY": CONTENT_KEY,
    "SIGNALS_API_KEY": SIGNALS_KEY,
    "INGEST_API_KEY": INGEST_KEY,
}


def run_probe(script: str, data_dir: Path) -> Any:
    """The JSON of the script's last line of output; fails the test if the script failed.

    The probe gets a free port of its own, so it runs while `make run` serves on 8080."""
    result = subprocess.run(  # noqa: S603  # our own interpreter on a fixed script
        [sys.executable, "-c", script],
        env={
            **FIXED_KEYS,
            "PATH": "/usr/bin:/bin",
            "DATA_DIR": str(data_dir),
            "PORT": str(free_port()),
        },
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])
