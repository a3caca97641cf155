"""`frontdoor pages list|history|restore|publish|unpublish`: the operator's view of every
partner's pages, as the Content API shows a partner its own.

The CLI writes as the operator, an admin editor: it sees every partner's pages and a page keeps
its owner whoever changes it. Writes go through services/pages.py, the same use cases and the
same quality gate as the Content API, so a version that fails today's gate is refused with the
same issues. Each change purges /p/{slug} from the CDN.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import click
from rich.console import Console
from rich.table import Table

from api.app import page_unit
from backends.bundle import Backends
from backends.ports import PAGE_STATUSES, NotFoundError, PageStatus, StoredPage
from frontdoor.cli_options import partner_name
from frontdoor.cli_pages import backends_for
from frontdoor.settings import Settings
from services import page_writes
from services import pages as pages_service

OPERATOR = pages_service.Editor(partner="operator", key_id="cli", admin=True)

__all__ = ["OPERATOR", "history", "list_pages", "publish", "restore", "unpublish", "write_page"]


@click.command("list")
@click.option("--partner", default=None, callback=partner_name, help="Only this partner's pages")
@click.option("--status", type=click.Choice(PAGE_STATUSES), default=None)
@click.option("--limit", default=100, show_default=True, type=click.IntRange(1, 1000))
@click.pass_context
def list_pages(ctx: click.Context, partner: str | None, status: str | None, limit: int) -> None:
    """List pages of every partner, newest change first."""
    backends = backends_for(ctx, Settings(), workers=False)
    found = pages_service.list_visible_pages(
        pages=backends.pages,
        editor=OPERATOR,
        status=_status(status),
        limit=limit,
        owner=partner,
    )
    table = Table("slug", "partner", "status", "version", "updated (UTC)")
    for page in found.pages:
        table.add_row(
            page.slug, page.owner, page.status, str(page.version), _minute(page.updated_at)
        )
    Console(width=120).print(table)
    if found.next_cursor:
        click.echo(f"more than {limit}; raise --limit to see them", err=True)


@click.command("history")
@click.argument("slug")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 1000))
@click.pass_context
def history(ctx: click.Context, slug: str, limit: int) -> None:
    """List the kept versions of SLUG, newest first, with who wrote each and how."""
    backends = backends_for(ctx, Settings(), workers=False)
    try:
        found = pages_service.list_history(
            pages=backends.pages, slug=slug, editor=OPERATOR, limit=limit
        )
    except NotFoundError:
        click.echo(f"no page {slug}", err=True)
        ctx.exit(1)
    table = Table("version", "status", "source", "partner", "key id", "saved (UTC)", "title")
    for page in found.versions:
        table.add_row(
            str(page.version),
            page.status,
            page.edit_source,
            page.editor,
            page.editor_key_id,
            _minute(page.updated_at),
            str(page.page_input.get("title", "")),
        )
    Console(width=140).print(table)


@click.command("restore")
@click.argument("slug")
@click.argument("version", type=click.IntRange(1))
@click.pass_context
def restore(ctx: click.Context, slug: str, version: int) -> None:
    """Make VERSION of SLUG the current version again, through today's quality gate."""
    settings = Settings()
    backends = backends_for(ctx, settings, workers=False)
    write_page(
        ctx,
        backends,
        slug,
        lambda: page_writes.restore_version(
            page_unit(backends), slug=slug, version=version, editor=OPERATOR
        ),
        done=f"restored version {version} of",
        missing=f"no version {version} of page {slug}",
    )


@click.command("publish")
@click.argument("slug")
@click.pass_context
def publish(ctx: click.Context, slug: str) -> None:
    """Publish SLUG (a draft, or an unpublished page) through the quality gate."""
    backends = backends_for(ctx, Settings(), workers=False)
    write_page(
        ctx,
        backends,
        slug,
        lambda: page_writes.publish_page(page_unit(backends), slug=slug, editor=OPERATOR),
        done="published",
    )


@click.command("unpublish")
@click.argument("slug")
@click.pass_context
def unpublish(ctx: click.Context, slug: str) -> None:
    """Take SLUG off /p/{slug}; its record and history stay."""
    backends = backends_for(ctx, Settings(), workers=False)
    write_page(
        ctx,
        backends,
        slug,
        lambda: page_writes.unpublish_page(page_unit(backends), slug=slug, editor=OPERATOR),
        done="unpublished",
    )


def write_page(
    ctx: click.Context,
    backends: Backends,
    slug: str,
    write: Callable[[], StoredPage],
    *,
    done: str,
    missing: str = "",
) -> None:
    """Run one write; the gate's issues (exit 1) as the API gives them, or the new version."""
    try:
        page = write()
    except NotFoundError:
        click.echo(missing or f"no page {slug}", err=True)
        ctx.exit(1)
    except pages_service.GateRefusedError as err:
        click.echo(f"invalid_payload: {slug} fails today's quality gate; nothing changed", err=True)
        for issue in err.issues:
            click.echo(f"  {issue.field or '(page)'}: {issue.code}: {issue.message}", err=True)
        ctx.exit(1)
    except pages_service.BusyError:
        click.echo(f"{slug} kept changing under this write; run it again", err=True)
        ctx.exit(1)
    click.echo(f"{done} {slug}: version {page.version}, {page.status}, partner {page.owner}")


def _status(name: str | None) -> PageStatus | None:
    """click.Choice(PAGE_STATUSES) already checked the name; this gives it its type."""
    return next((status for status in PAGE_STATUSES if status == name), None)


def _minute(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
