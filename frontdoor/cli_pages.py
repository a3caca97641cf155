"""`frontdoor pages generate BRIEF.json`: a brief in, progress on the terminal, the page out.

It records and publishes a job exactly as POST generate does, on the configured backends
(embedded: this process's worker threads run it; gcp: the Pub/Sub workers do), then follows
the job record step by step until it finishes. `pages job JOB_ID` follows one later.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import click
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

from backends.bundle import Backends
from backends.ports import UnavailableError
from frontdoor.cli_options import partner_name, refuse_partner_spelled_otherwise
from frontdoor.logs import configure_logging
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from schemas.content.jobs import GenerationBrief, JobRecord
from schemas.errors import Issue, issues_from_errors
from services.jobs import start_generation
from services.page_records import page_record
from services.pages import Editor
from services.payload_bounds import BRIEF_BOUNDS, bound_payload

# How long `generate` and `job` follow a job (both commands take it).
follow_timeout = click.option(
    "--timeout",
    type=click.FloatRange(min=0),
    default=300.0,
    show_default=True,
    help="Seconds to follow the job",
)


@click.group()
def pages() -> None:
    """Landing pages of every partner: generate, follow a job, list, history, restore,
    publish, unpublish, schedule."""


@pages.command("generate")
@click.argument("brief_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--publish", is_flag=True, help="Publish the page (as `publish: true` in the brief)")
@click.option(
    "--wait/--no-wait",
    default=True,
    show_default=True,
    help="Follow the job to its end; --no-wait prints the job id and leaves it to the workers",
)
@follow_timeout
@click.option(
    "--partner",
    default="cli",
    show_default=True,
    callback=partner_name,
    help="The partner a new page belongs to (the operator may write over any partner's page)",
)
@click.pass_context
def generate(
    ctx: click.Context, brief_file: Path, publish: bool, wait: bool, timeout: float, partner: str
) -> None:
    """Generate a page from BRIEF_FILE (a generation brief as JSON) and show its progress.

    Embedded mode runs the job in this process, so even with --no-wait it finishes before
    the command exits.
    """
    settings = Settings()
    raw = brief_file.read_bytes()
    issues: list[Issue] = []
    brief: GenerationBrief | None = None
    try:
        # The size bounds first, as POST generate checks them: this walk is cheap, the
        # schema's is not on an array or object bomb.
        bounded = bound_payload(json.loads(raw), BRIEF_BOUNDS)
        issues += bounded.issues
        raw = b"" if bounded.whole else json.dumps(bounded.payload).encode()
    except (ValueError, RecursionError):
        pass  # not JSON: the schema says so
    try:
        if raw:
            brief = GenerationBrief.model_validate_json(
                raw,
                context={
                    "allow_loopback_http": settings.webhook_allow_loopback
                    and settings.listens_on_loopback
                },
            )
    except ValidationError as err:
        issues += issues_from_errors(err.errors())
    if brief is None or issues:
        for issue in issues:
            click.echo(f"{issue.field or '(brief)'}: {issue.code}: {issue.message}", err=True)
        ctx.exit(2)
        return
    if publish:
        brief = brief.model_copy(update={"publish": True})
    backends = backends_for(ctx, settings)
    refuse_partner_spelled_otherwise(backends.keys, partner)
    try:
        job = start_generation(
            pages=backends.pages,
            jobs=backends.jobs,
            job_queue=backends.job_queue,
            brief=brief,
            editor=Editor(partner=partner, key_id="cli", admin=True),
            now=backends.clock(),
        )
    except UnavailableError:
        click.echo("the job queue is unavailable; the job is recorded but not queued", err=True)
        ctx.exit(1)
    click.echo(f"job {job.id} queued for {brief.slug}")
    if not wait:
        click.echo(f"follow it with: frontdoor pages job {job.id}", err=True)
        return
    _report(ctx, backends, settings, _follow(backends, job, timeout=timeout), timeout=timeout)


@pages.command("job")
@click.argument("job_id")
@click.option("--wait/--no-wait", default=True, show_default=True, help="Follow it to its end")
@follow_timeout
@click.pass_context
def job_status(ctx: click.Context, job_id: str, wait: bool, timeout: float) -> None:
    """Show a generation job's steps and outcome (one started with --no-wait, or by a partner)."""
    settings = Settings()
    backends = backends_for(ctx, settings)
    job = backends.jobs.get_job(job_id)
    if job is None:
        click.echo(f"no job with id {job_id}", err=True)
        ctx.exit(1)
    click.echo(f"job {job.id} for {job.brief.slug} ({job.editor.partner}): {job.status}")
    job = _follow(backends, job, timeout=timeout if wait else 0.0)
    if wait or job.finished:
        _report(ctx, backends, settings, job, timeout=timeout)


def _report(
    ctx: click.Context, backends: Backends, settings: Settings, job: JobRecord, *, timeout: float
) -> None:
    """The outcome: page URLs (exit 0), the failure and its issues (exit 1), or still going (3)."""
    if job.status == "succeeded":
        _print_page(backends, settings, job)
        return
    if job.status == "failed" and job.error is not None:
        click.echo(f"failed: {job.error.code}: {job.error.message}", err=True)
        for issue in job.issues:
            click.echo(f"  {issue.field or '(page)'}: {issue.code}: {issue.message}", err=True)
        ctx.exit(1)
    click.echo(f"still {job.status} after {timeout:.0f} s; the job goes on", err=True)
    ctx.exit(3)


def _follow(backends: Backends, job: JobRecord, *, timeout: float) -> JobRecord:
    """Print each step the job record shows, until it finishes or `timeout` passes."""
    seen: set[str] = set()
    deadline = time.monotonic() + timeout
    # Progress goes to stderr, the outcome to stdout; the spinner shows on a terminal only.
    console = Console(stderr=True, highlight=False, soft_wrap=True)

    def show(job: JobRecord) -> None:
        for line in _progress(job):
            if line not in seen:
                seen.add(line)
                console.print(f"  [green]>[/green] {escape(line)}")

    show(job)
    with console.status(f"job {job.id}: {job.status}") as status:
        while not job.finished and time.monotonic() < deadline:
            backends.job_queue.wait(0.25)
            job = backends.jobs.get_job(job.id) or job
            status.update(f"job {job.id}: {job.status}")
            show(job)
    return job


def _print_page(backends: Backends, settings: Settings, job: JobRecord) -> None:
    """The page's public URL and state, and the draft's signed preview link."""
    stored = backends.pages.get_page(job.page_slug or job.brief.slug)
    if stored is None:  # deleted since; the job still succeeded
        click.echo(f"succeeded: {settings.base_url}/p/{job.brief.slug}")
        return
    config = app_config(settings)
    record = page_record(stored, base_url=settings.base_url, preview_secret=config.preview_secret)
    click.echo(f"succeeded: {record.url} ({record.status})")
    if record.preview_url:
        click.echo(f"preview: {record.preview_url}")
    for note in job.notes:  # what of the brief the page left out, and why
        click.echo(f"note: {note.field}: {note.code}: {note.message}")


def _progress(job: JobRecord) -> list[str]:
    lines = ["running"] if job.status != "queued" else []
    lines += [f"writer call {n}" for n in range(1, job.writer_calls + 1)]
    for index, draft in enumerate(job.drafts, start=1):
        if draft.issues is not None:
            verdict = "passed" if draft.passed else f"failed ({len(draft.issues)} issues)"
            lines.append(f"draft {index}: gate {verdict}")
    if job.hero_image_url:
        lines.append(f"hero image {job.hero_image_url}")  # a site path on this service
    if job.page_stored:
        lines.append("page stored")
    return lines


def backends_for(ctx: click.Context, settings: Settings, *, workers: bool = True) -> Backends:
    """The configured backends, built once per command run and closed with it.

    `workers=False` for commands that only read or edit records: no queue worker starts here.
    """
    ctx.ensure_object(dict)
    if "backends" not in ctx.obj:
        configure_logging(level="WARNING", project=settings.google_cloud_project)
        ctx.obj["backends"] = build_backends(settings, start_workers=workers)
        ctx.call_on_close(ctx.obj["backends"].close)
    backends: Backends = ctx.obj["backends"]
    return backends
