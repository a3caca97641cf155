"""README "Quick tour": every command runs against the real served process, as a reader would."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.emulators import REPO
from tests.served import shell_commands, shell_env, statuses, with_status

README_BASE = "http://127.0.0.1:8080"


def quick_tour() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## Quick tour\n(.*?)(?=^## )", readme, re.MULTILINE | re.DOTALL)
    assert section, "README.md has no Quick tour section"
    return shell_commands(section.group(1))


@pytest.mark.spec("readme.quick-tour")
def test_every_quick_tour_command_runs_against_the_served_app(
    served_process: dict[str, str],
) -> None:
    """README Quick tour: the commands exit 0 and every curl gets a non-5xx status."""
    commands = [c.replace(README_BASE, served_process["PUBLIC_BASE_URL"]) for c in quick_tour()]
    script = "set -euo pipefail\n" + "\n".join(
        with_status(c) if c.startswith("curl ") else c for c in commands
    )

    result = subprocess.run(  # noqa: S603  # the README's own commands against our loopback server
        ["bash", "-c", script],  # noqa: S607  # bash from PATH, as a reader's shell
        env=shell_env(served_process),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    codes = statuses(result.stdout)
    assert len(codes) == sum(c.startswith("curl ") for c in commands)
    assert all(code < 500 for code in codes), result.stdout
