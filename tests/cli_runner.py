"""The CLI run as an operator runs it, against a DATA_DIR of the test's own."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from frontdoor.cli import cli


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    """A DATA_DIR of its own; the CLI configures logging, so pytest's handlers are restored."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield tmp_path / "data"
    root.handlers[:] = handlers
    root.setLevel(level)


def run(data_dir: Path, *args: str) -> Result:
    """`frontdoor ARGS` on `data_dir`, with no public base URL from the environment."""
    return CliRunner().invoke(
        cli, list(args), obj={}, env={"DATA_DIR": str(data_dir), "PUBLIC_BASE_URL": None}
    )
