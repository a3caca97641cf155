"""`frontdoor signals tail` and `frontdoor seed-demo`: the signal stream on the terminal, and
sample events for a first look, on the configured backends (DESIGN "Operator CLI").

`tail` reads the stream as a partner's poller does: GET /signals's own query parsing, then
`next_since` as the next `since`, so every event prints once, oldest first. `seed-demo` sends
its events through the ingest worker's handler, so they are validated, stored once by id and
rolled up exactly as POST /signals/events would have them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from api.errors import ApiError
from api.rest.signal_query import parse_stream_query
from backends.bundle import Backends
from frontdoor.demo_signals import DEMO_SOURCE, JOURNEYS, Link, demo_events
from frontdoor.logs import configure_logging
from frontdoor.settings import Settings
from frontdoor.wiring import build_backends
from schemas.signals.events import MAX_BATCH, Event, NewEvent, encode_cursor, normalize_event
from schemas.signals.rollups import RANK, account_summary
from services.signals import encode_ingest_message
from workers.ingest import handle_ingest_message

__all__ = ["seed_demo", "signals"]

_TIME = "%Y-%m-%d %H:%M:%S"


@click.group()
def signals() -> None:
    """The signal stream."""


@signals.command("tail")
@click.option("--since", default=None, help="An ISO-8601 time or a next_since cursor")
@click.option(
    "--days",
    default=None,
    help="How many days back (default 7 without --since; with it, narrows an older --since)",
)
@click.option("--type", "types", default=None, help="Event types, comma-separated")
@click.option("--domain", default=None, help="Only this account's events")
@click.option("--limit", type=click.IntRange(1, 1000), default=100, show_default=True)
@click.option("--interval", type=click.FloatRange(min=0.1), default=2.0, show_default=True)
@click.option(
    "--follow/--no-follow",
    default=True,
    show_default=True,
    help="--no-follow stops once caught up",
)
@click.pass_context
def tail(
    ctx: click.Context,
    since: str | None,
    days: str | None,
    types: str | None,
    domain: str | None,
    limit: int,
    interval: float,
    follow: bool,
) -> None:
    """Print signal events oldest first, one line each, and follow new ones until Ctrl-C.

    Columns: when it happened (UTC), type, person, account, page.
    """
    args = {"since": since, "days": days, "type": types, "domain": domain, "limit": str(limit)}
    query_args = {name: value for name, value in args.items() if value is not None}
    backends = _backends(ctx)
    cursor = since
    try:
        for events, next_since in _walk(backends, query_args, interval=interval, follow=follow):
            for event in events:
                click.echo(event_line(event))
            cursor = next_since
    except ApiError as err:
        for issue in err.issues or []:
            click.echo(f"--{issue.field}: {issue.code}: {issue.message}", err=True)
        ctx.exit(2)
    except KeyboardInterrupt:
        pass
    if cursor is not None:
        click.echo(f"next_since: {cursor}", err=True)


def _walk(
    backends: Backends, args: dict[str, str], *, interval: float, follow: bool
) -> Iterator[tuple[list[Event], str]]:
    """Each page of the stream oldest first, with the cursor after it, as a poller walks it.

    Raises: ApiError (400 `invalid_query`) for a bad option, as GET /signals would.
    """
    while True:
        parsed = parse_stream_query(args, now=backends.clock())
        page = backends.signals.read_stream(parsed.query)
        cursor = encode_cursor(page.last or parsed.start)
        args = {**args, "since": cursor}
        yield list(reversed(page.events)), cursor
        if page.has_more:
            continue
        if not follow:
            return
        time.sleep(interval)  # a terminal poller; the API's own clients poll the same way


def event_line(event: Event) -> str:
    """One event as a line: time, type, person, account, page."""
    person = event.person.email or event.person.name or "-"
    account = event.account.domain or "-"
    page = event.page.path or event.page.url or "-"
    when = event.occurred_at.strftime(_TIME)
    return f"{when}  {event.type:<21}  {person:<30}  {account:<20}  {page}"


@click.command("seed-demo")
@click.option("--events", "count", type=click.IntRange(1, 10_000), default=200, show_default=True)
@click.option("--yes", is_flag=True, help="Do not ask before seeding Google Cloud backends")
@click.pass_context
def seed_demo(ctx: click.Context, count: int, yes: bool) -> None:
    """Store sample signal events (accounts at every stage, every type) for a first look.

    Ids are fixed (`demo:demo-00000` ...), so running it again stores nothing new.
    """
    settings = Settings()
    if settings.backend == "gcp" and not yes:
        click.confirm("BACKEND=gcp: store demo events in the real signal store?", abort=True)
    backends = _backends(ctx, settings)
    catalog = backends.catalog
    now = backends.clock()
    raw = demo_events(
        count,
        now=now,
        articles=[Link(post.url, post.title) for post in catalog.posts],
        experiments=[Link(e.url, e.title) for e in catalog.experiments],
    )
    events = [_normalized(item, now=now) for item in raw]
    new = 0
    for start in range(0, len(events), MAX_BATCH):
        message = encode_ingest_message(events[start : start + MAX_BATCH])
        # The ingest worker's handler: stored once by id, rolled up in the same transaction.
        # No webhook deliveries: sample data stays out of partners' endpoints.
        result = handle_ingest_message(message, signals=backends.signals)
        new += len(result.new_ids) if result is not None else 0
        # On Firestore each event is a transaction: thousands take minutes.
        done = min(start + MAX_BATCH, len(events))
        click.echo(f"  > {done}/{len(events)} events", err=True)
    click.echo(f"stored {new} new of {count} demo events (source {DEMO_SOURCE!r})")
    _print_accounts(backends)


def _normalized(raw: dict[str, Any], *, now: datetime) -> NewEvent:
    result = normalize_event(raw, now=now)
    if isinstance(result, list):  # the demo data is ours: a refusal is a bug here
        raise click.ClickException(f"demo event {raw['row_id']} refused: {result}")
    return result


def _print_accounts(backends: Backends) -> None:
    """The demo accounts' roll-ups, highest stage first, then the free-mail people."""
    table = Table("account", "stage", "score", "people", "pages", "events")
    domains = sorted({journey.domain for journey in JOURNEYS if journey.domain})
    found = [backends.signals.get_account(domain) for domain in domains]
    now = backends.clock()
    summaries = [account_summary(a, now=now) for a in found if a is not None]
    for summary in sorted(summaries, key=lambda s: -RANK[s.stage]):
        counts = summary.counts
        table.add_row(
            summary.domain,
            summary.stage,
            str(summary.score),
            str(counts.people),
            str(counts.pages),
            str(counts.events),
        )
    Console(highlight=False).print(table)
    for journey in JOURNEYS:
        if journey.domain or not journey.email:
            continue
        person = backends.signals.get_person(journey.email)
        if person is not None:
            click.echo(f"free-mail person {journey.email}: {person.stage}, no account")


def _backends(ctx: click.Context, settings: Settings | None = None) -> Backends:
    ctx.ensure_object(dict)
    if "backends" not in ctx.obj:
        settings = settings or Settings()
        configure_logging(level="WARNING", project=settings.google_cloud_project)
        ctx.obj["backends"] = build_backends(settings, start_workers=False)  # reads, no queue
        ctx.call_on_close(ctx.obj["backends"].close)
    backends: Backends = ctx.obj["backends"]
    return backends
