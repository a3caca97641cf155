"""DESIGN "Operator CLI": `frontdoor pages generate BRIEF.json` with progress, same backends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from frontdoor.cli import cli


@pytest.mark.spec("content.generate")
def test_pages_generate_writes_the_page_and_shows_each_step(tmp_path: Path) -> None:
    """A brief file in; the job's steps on the terminal; a draft page stored."""
    brief = tmp_path / "brief.json"
    brief.write_text(
        json.dumps({"slug": "cli-audit", "topic": "A funnel audit", "icp": "RevOps leads"}),
        encoding="utf-8",
    )

    result = CliRunner().invoke(
        cli, ["pages", "generate", str(brief)], obj={}, env={"DATA_DIR": str(tmp_path / "data")}
    )

    assert result.exit_code == 0, result.output
    assert "writer call 1" in result.output
    assert "draft 1: gate passed" in result.output
    assert "/p/cli-audit (draft)" in result.output


@pytest.mark.spec("content.generate")
def test_pages_generate_refuses_an_invalid_brief_naming_each_field(tmp_path: Path) -> None:
    """The brief is checked before any job: every failing field is named, exit code 2."""
    brief = tmp_path / "brief.json"
    brief.write_text(json.dumps({"slug": "x" * 90, "icp": "RevOps leads"}), encoding="utf-8")

    result = CliRunner().invoke(
        cli, ["pages", "generate", str(brief)], obj={}, env={"DATA_DIR": str(tmp_path / "data")}
    )

    assert result.exit_code == 2
    assert "slug: too_long" in result.output
    assert "topic: missing" in result.output
