"""The `frontdoor` console script (click + rich): serve, keys, openapi, pages, signals, demo."""

from __future__ import annotations

import errno
import json
import logging
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import click
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from backends.bundle import Backends
from backends.content_files import load_catalog
from backends.ports import SCOPES, KeyLimits, NotFoundError, Scope, UnavailableError
from domain.indexes import FIRESTORE_INDEXES, FIRESTORE_TTL_POLICIES
from frontdoor.cli_options import (
    event_sources,
    event_types,
    partner_name,
    refuse_partner_spelled_otherwise,
)
from frontdoor.cli_page_admin import history, list_pages, publish, restore, unpublish
from frontdoor.cli_page_stats import stats
from frontdoor.cli_pages import pages
from frontdoor.cli_queues import queues
from frontdoor.cli_signals import seed_demo, signals
from frontdoor.cli_suppressions import unsuppress
from frontdoor.cli_webhooks import webhooks
from frontdoor.logs import configure_logging
from frontdoor.serve import settings_problems
from frontdoor.settings import Settings
from frontdoor.wiring import build_backends
from renderers.terraform_indexes import render_firestore_terraform
from schemas.openapi.document import build_openapi
from services.keys import issue_key, key_id_named, revoke_key

logger = logging.getLogger(__name__)


class ConfigurationError(click.ClickException):
    """Settings the environment gives that the service refuses: exit 2, as `serve` does."""

    exit_code = 2


class _Commands(click.Group):
    """Every command: what its surroundings keep it from doing (a refused setting, a folder it
    cannot make or write) answers with a message and a non-zero exit, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ValidationError as err:
            if err.title != Settings.__name__:
                raise
            message = f"the configuration is refused:\n{settings_problems(err)}"
            raise ConfigurationError(message) from None
        except OSError as err:
            if err.errno == errno.EPIPE:  # click's own handling of a closed pipe
                raise
            where = f": {err.filename}" if err.filename else ""
            raise click.ClickException(f"{err.strerror or err}{where}") from None
        except UnavailableError as err:
            raise click.ClickException(f"a backend is unavailable; retry: {err}") from None
        except Exception as err:
            # Loaded only now: an embedded command never imports Google's libraries.
            from google.api_core.exceptions import GoogleAPIError
            from google.auth.exceptions import GoogleAuthError

            if isinstance(err, GoogleAuthError | GoogleAPIError):
                raise click.ClickException(f"Google Cloud refused: {err}") from None
            raise


@click.group(cls=_Commands)
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Operate frontdoor: keys, pages, signals, queues, docs and the server."""
    ctx.ensure_object(dict)


def _backends(ctx: click.Context) -> Backends:
    if "backends" not in ctx.obj:
        settings = Settings()
        configure_logging(level="WARNING", project=settings.google_cloud_project)
        # No queue workers in an operator's command: queued work is the server's.
        ctx.obj["backends"] = build_backends(settings, start_workers=False)
    backends: Backends = ctx.obj["backends"]
    return backends


@cli.command()
def serve() -> None:
    """Serve the whole service (same as `make run`)."""
    from frontdoor.serve import serve as serve_all  # granian loads only for this command

    serve_all()


@cli.group()
def keys() -> None:
    """Issue, revoke and list partner keys (hashed at rest)."""


@keys.command("issue")
@click.option(
    "--partner",
    required=True,
    callback=partner_name,
    help="Who the key is for, e.g. acme (letters, digits, '.', '_', '-')",
)
@click.option(
    "--scope",
    type=click.Choice(SCOPES),
    required=True,
    help="content_admin: the company's own team, every partner's pages",
)
@click.option(
    "--type",
    "types",
    multiple=True,
    callback=event_types,
    help="signals: only these event types (repeat or comma-separate)",
)
@click.option(
    "--source",
    "sources",
    multiple=True,
    callback=event_sources,
    help="signals: only events of these sources (repeat or comma-separate)",
)
@click.option(
    "--own-pages",
    is_flag=True,
    help="signals: only events on the pages the partner owns in the Content API",
)
@click.option("--quiet", is_flag=True, help="Print only the key (for shell scripts)")
@click.pass_context
def keys_issue(
    ctx: click.Context,
    partner: str,
    scope: str,
    types: tuple[str, ...],
    sources: tuple[str, ...],
    own_pages: bool,
    quiet: bool,
) -> None:
    """Issue a key; it is shown once and never again.

    A signals key may be limited (least privilege): its stream shows only the events of the
    given types, sources and the partner's own pages; it may not read roll-ups or webhooks.
    """
    limits = KeyLimits(types=types, sources=sources, own_pages=own_pages)
    if limits.limited and scope != "signals":
        raise click.UsageError("--type, --source and --own-pages limit a signals key only")
    backends = _backends(ctx)
    refuse_partner_spelled_otherwise(backends.keys, partner)
    raw, record = issue_key(
        keys=backends.keys,
        partner=partner,
        scope=_scope(scope),
        now=backends.clock(),
        limits=limits,
    )
    if quiet:
        click.echo(raw)
        return
    limited = f", limited: {limits.describe()}" if limits.limited else ""
    click.echo(
        f"key id {record.key_id} for {partner} ({scope}{limited}); store it now, it is not"
        " shown again:"
    )
    click.echo(raw)


def _scope(name: str) -> Scope:
    """click.Choice(SCOPES) already checked the name; this gives it its type."""
    return next(scope for scope in SCOPES if scope == name)


@keys.command("revoke")
@click.argument("key_id")
@click.pass_context
def keys_revoke(ctx: click.Context, key_id: str) -> None:
    """Revoke a key by its id (as `keys list` shows it) or by the key itself.

    Revoking a key already revoked changes nothing: it says when it was revoked and exits 0.
    """
    named = key_id_named(key_id)
    if named is None:  # never echoed: it may be a mistyped key, secret and all
        click.echo("no key with id like that: `frontdoor keys list` shows the ids", err=True)
        sys.exit(1)
    key_id = named
    backends = _backends(ctx)
    earlier = backends.keys.get_key(key_id)
    if earlier is not None and earlier.revoked_at is not None:
        when = _minute(earlier.revoked_at)
        click.echo(
            f"{key_id} was already revoked at {when} UTC ({earlier.partner}, {earlier.scope})"
        )
        return
    try:
        record = revoke_key(keys=backends.keys, key_id=key_id, now=backends.clock())
    except NotFoundError:
        click.echo(f"no key with id {key_id}", err=True)
        sys.exit(1)
    click.echo(f"revoked {record.key_id} ({record.partner}, {record.scope})")


@keys.command("list")
@click.pass_context
def keys_list(ctx: click.Context) -> None:
    """List keys: id, partner, scope, created, revoked, limits. Never the secret."""
    # Minutes in UTC keep the table inside 80 columns, the width of a pipe.
    records = _backends(ctx).keys.list_keys()
    # The limits column only when a key has limits, so the usual table stays in 80 columns.
    limited = any(record.limits.limited for record in records)
    columns = ["key id", "partner", "scope", "created (UTC)", "revoked (UTC)"]
    table = Table(*columns)
    if limited:
        table.add_column("limits", overflow="fold")  # folded, never cut short with an ellipsis
    for record in records:
        row = [
            record.key_id,
            record.partner,
            record.scope,
            _minute(record.created_at),
            _minute(record.revoked_at) if record.revoked_at else "",
        ]
        table.add_row(*row, *([record.limits.describe()] if limited else []))
    Console().print(table)


def _minute(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


def _http_url(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """The document's server URL: an http(s) URL with a host, no trailing slash."""
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname or " " in value:
        raise click.BadParameter("an http(s) URL such as https://api.example.com")
    return value.rstrip("/")


@cli.command()
@click.option(
    "--base-url",
    default=None,
    callback=_http_url,
    help="Server URL, e.g. https://api.example.com (default: PUBLIC_BASE_URL)",
)
def openapi(base_url: str | None) -> None:
    """Print the OpenAPI 3.1 document the service serves at /openapi.json."""
    settings = Settings()
    document = build_openapi(
        base_url=base_url or settings.base_url,
        auth_url=settings.oauth_issuer,  # as the served document (api/app.py) names it
        catalog=load_catalog(settings.content_dir),
    )
    click.echo(json.dumps(document, indent=2))


@cli.command("terraform-indexes")
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("terraform/firestore_indexes.tf.json"),
    show_default=True,
)
def terraform_indexes(output: Path) -> None:
    """Write the Firestore indexes the adapters declare as Terraform JSON."""
    output.write_text(
        render_firestore_terraform(FIRESTORE_INDEXES, FIRESTORE_TTL_POLICIES), encoding="utf-8"
    )
    click.echo(f"wrote {len(FIRESTORE_INDEXES)} indexes to {output}")


cli.add_command(pages)  # `pages generate BRIEF.json`: a page from a brief, without HTTP
# The operator's view of every partner's pages: list, history, restore, (un)publish.
for command in (list_pages, history, restore, publish, unpublish):
    pages.add_command(command)
pages.add_command(stats)  # `pages stats SLUG`: a page's funnel
cli.add_command(signals)  # `signals tail`
signals.add_command(unsuppress)  # `signals unsuppress EMAIL`: after an erasure
cli.add_command(seed_demo)
cli.add_command(queues)  # `queues dead-letters`, `queues replay`: what a queue gave up on
cli.add_command(webhooks)  # `webhooks seal-secrets`: once after upgrading on Firestore


def main() -> None:
    """Console-script entry point."""
    cli(obj={})
