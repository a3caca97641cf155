"""What `python -m frontdoor.serve` (`make run`) does before it serves: its arguments, and the
Google Cloud credentials a gcp start needs. Each test runs the real process with a clean
environment, as a person at a terminal would.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def run_serve(
    *args: str, env: dict[str, str], cwd: Path = REPO
) -> subprocess.CompletedProcess[str]:
    """`python -m frontdoor.serve ARGS` expected to stop before serving."""
    return subprocess.run(  # noqa: S603  # our own module; the arguments are the tests' own
        [sys.executable, "-m", "frontdoor.serve", *args],
        env={"PATH": "/usr/bin:/bin", **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_prints_a_short_usage_and_exits_0_without_starting_or_touching_keys(
    tmp_path: Path, flag: str
) -> None:
    """`--help` says what the module does, that settings come from the environment and where
    to read more; it starts no server and issues or revokes no bootstrap key."""
    result = run_serve(flag, env={"DATA_DIR": str(tmp_path)})

    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Usage: python -m frontdoor.serve")
    for words in ("environment", "frontdoor --help", "README"):
        assert words in result.stdout
    assert "frontdoor serving on" not in result.stderr
    assert "_API_KEY=" not in result.stdout + result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [["--port", "9000"], ["serve"]])
def test_an_unknown_argument_exits_2_with_a_message_without_starting_or_touching_keys(
    tmp_path: Path, args: list[str]
) -> None:
    """Settings come from the environment only: any argument is refused with exit code 2 and
    a message pointing to `--help`, before a key or a file is made."""
    result = run_serve(*args, env={"DATA_DIR": str(tmp_path)})

    assert result.returncode == 2
    assert "--help" in result.stderr
    assert "Traceback" not in result.stderr
    assert "frontdoor serving on" not in result.stderr
    assert "_API_KEY=" not in result.stdout + result.stderr
    assert list(tmp_path.iterdir()) == []
