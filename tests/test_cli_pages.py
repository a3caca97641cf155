"""DESIGN "Operator CLI": `frontdoor pages generate BRIEF.json` with progress, same backends."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner, Result

from api.app import create_app
from frontdoor.cli import cli
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from schemas.content.jobs import GenerationBrief, JobError
from schemas.errors import Issue
from tests.workers.generation_ports import queued_job
from workers import steps


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
def test_pages_generate_prints_what_the_page_left_out_of_the_brief(tmp_path: Path) -> None:
    """The job's notes[] on the terminal, one line each."""
    brief = tmp_path / "brief.json"
    brief.write_text(
        json.dumps(
            {"slug": "cli-notes", "topic": "A revolutionary funnel audit", "icp": "RevOps leads"}
        ),
        encoding="utf-8",
    )

    result = CliRunner().invoke(
        cli, ["pages", "generate", str(brief)], obj={}, env={"DATA_DIR": str(tmp_path / "data")}
    )

    assert result.exit_code == 0, result.output
    assert "note: topic: dropped: not printed: off-brand word 'revolutionary'" in result.output


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


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    """A DATA_DIR of its own; the CLI configures logging, so pytest's handlers are restored."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield tmp_path / "data"
    root.handlers[:] = handlers
    root.setLevel(level)


def generate(data_dir: Path, brief: dict[str, object], *options: str) -> Result:
    """Run `frontdoor pages generate BRIEF.json OPTIONS` on embedded backends in `data_dir`."""
    data_dir.mkdir(parents=True, exist_ok=True)
    brief_file = data_dir.parent / "brief.json"
    brief_file.write_text(json.dumps(brief), encoding="utf-8")
    return CliRunner().invoke(
        cli,
        ["pages", "generate", str(brief_file), *options],
        obj={},
        env={"DATA_DIR": str(data_dir)},
    )


BRIEF: dict[str, object] = {
    "slug": "cli-launch",
    "topic": "A pipeline review",
    "icp": "B2B SaaS founders",
}


@pytest.mark.spec("content.generate")
def test_pages_generate_prints_a_draft_preview_link_that_opens_the_draft(data_dir: Path) -> None:
    """SPEC States: a generated draft is reviewable; the CLI ends with its signed preview URL."""
    result = generate(data_dir, BRIEF)

    assert result.exit_code == 0, result.output
    preview = next(line for line in result.stdout.splitlines() if line.startswith("preview: "))
    link = urlsplit(preview.removeprefix("preview: "))
    settings = Settings(data_dir=data_dir)
    backends = build_backends(settings)
    try:
        client = create_app(app_config(settings), backends).test_client()
        assert client.get(f"{link.path}?{link.query}").status_code == 200
        assert client.get(link.path).status_code == 404
    finally:
        backends.close()


@pytest.mark.spec("content.generate")
def test_pages_generate_with_publish_publishes_the_page_and_prints_no_preview(
    data_dir: Path,
) -> None:
    """SPEC States: `publish` true and the gate passed gives a published page."""
    result = generate(data_dir, BRIEF, "--publish")

    assert result.exit_code == 0, result.output
    assert "/p/cli-launch (published)" in result.stdout
    assert "preview: " not in result.stdout


@pytest.mark.spec("content.generate")
def test_pages_generate_no_wait_prints_the_job_and_leaves_it_to_the_workers(
    data_dir: Path,
) -> None:
    """DESIGN Operator CLI: --no-wait records and queues the job exactly as POST generate does."""
    result = generate(data_dir, BRIEF, "--no-wait")

    assert result.exit_code == 0, result.output
    job_id = result.stdout.split()[1]
    assert "writer call" not in result.stdout
    backends = build_backends(Settings(data_dir=data_dir))
    try:
        job = backends.jobs.get_job(job_id)
    finally:
        backends.close()
    assert job is not None
    assert (job.editor.partner, job.brief.slug) == ("cli", "cli-launch")
    assert job.status == "succeeded"  # embedded: this process was the worker, and drained


@pytest.mark.spec("content.jobs")
def test_pages_job_shows_the_steps_and_page_of_a_job_started_without_waiting(
    data_dir: Path,
) -> None:
    """DESIGN Generation: a job is `queued`, `running`, then `succeeded` with the page."""
    job_id = generate(data_dir, BRIEF, "--no-wait", "--publish").stdout.split()[1]

    result = CliRunner().invoke(
        cli, ["pages", "job", job_id], obj={}, env={"DATA_DIR": str(data_dir)}
    )

    assert result.exit_code == 0, result.output
    assert f"job {job_id} for cli-launch (cli): succeeded" in result.stdout
    assert "draft 1: gate passed" in result.stderr
    assert "/p/cli-launch (published)" in result.stdout


@pytest.mark.spec("content.jobs")
def test_pages_job_prints_a_failed_jobs_issues_and_exits_1(data_dir: Path) -> None:
    """DESIGN Generation: `failed` (with the error and issues), as GET jobs/{id} shows it."""
    backends = build_backends(Settings(data_dir=data_dir))
    now = backends.clock()
    brief = GenerationBrief.model_validate(BRIEF)
    error = JobError(code="invalid_payload", message="failed the gate twice")
    issue = Issue(field="blocks.0.sub", code="icp_missing", message="name who it is for")
    try:
        backends.jobs.create_job(queued_job("j-failed", brief, now=now))
        backends.jobs.update_job(
            "j-failed",
            lambda job: steps.fail(job, error=error, issues=[issue], now=now, worker=None),
        )
    finally:
        backends.close()

    result = CliRunner().invoke(
        cli, ["pages", "job", "j-failed"], obj={}, env={"DATA_DIR": str(data_dir)}
    )

    assert result.exit_code == 1
    assert "failed: invalid_payload: failed the gate twice" in result.stderr
    assert "blocks.0.sub: icp_missing" in result.stderr


def test_pages_job_names_an_unknown_job_and_exits_1(data_dir: Path) -> None:
    """An operator typo is named, not a stack trace."""
    result = CliRunner().invoke(
        cli, ["pages", "job", "nope"], obj={}, env={"DATA_DIR": str(data_dir)}
    )

    assert result.exit_code == 1
    assert "no job with id nope" in result.stderr


@pytest.mark.spec("content.generate")
def test_pages_generate_refuses_a_file_that_is_not_json(data_dir: Path) -> None:
    """Bad input is refused before any job with exit code 2, as POST generate's 422 would."""
    data_dir.mkdir(parents=True)
    brief_file = data_dir.parent / "brief.json"
    brief_file.write_text("{not json", encoding="utf-8")

    result = CliRunner().invoke(
        cli, ["pages", "generate", str(brief_file)], obj={}, env={"DATA_DIR": str(data_dir)}
    )

    assert result.exit_code == 2
    assert "(brief): json_invalid" in result.stderr


@pytest.mark.spec("content.ownership")
def test_pages_generate_refuses_a_partner_name_that_differs_from_a_known_one_only_in_case(
    data_dir: Path,
) -> None:
    """A page generated for `ACME` when acme's keys are `acme` would belong to no key
    of acme's; as `keys issue`, nothing is queued and the message names the known spelling."""
    issued = CliRunner().invoke(
        cli,
        ["keys", "issue", "--partner", "acme", "--scope", "content", "--quiet"],
        obj={},
        env={"DATA_DIR": str(data_dir)},
    )
    assert issued.exit_code == 0, issued.output

    result = generate(data_dir, BRIEF, "--partner", "ACME")

    assert result.exit_code == 2
    assert "'acme'" in result.stderr
    backends = build_backends(Settings(data_dir=data_dir))
    try:
        assert backends.pages.get_page("cli-launch") is None
    finally:
        backends.close()


@pytest.mark.spec("content.generate")
def test_pages_generate_refuses_a_brief_bomb_with_one_line_naming_its_field(
    data_dir: Path,
) -> None:
    """content-api.md Size limits: the CLI bounds a brief as POST generate does, exit 2."""
    result = generate(data_dir, {**BRIEF, **{f"x{n}": 1 for n in range(5_000)}})

    assert result.exit_code == 2
    assert result.stderr.splitlines() == ["(brief): too_many: at most 32 fields"]
