"""`frontdoor queues`: the embedded queues' backlog and dead letters, for an operator.

`dead-letters` lists what failed its last attempt (queue, attempts, when, last error and the
start of the body); `replay` queues dead letters again from their first attempt. It opens the
queue file in DATA_DIR directly (no worker starts); a running server picks replayed messages
up within a poll. On Google Cloud the dead letters are on the `*-dead-letter-hold` Pub/Sub
subscriptions instead (README "Dead letters").
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from backends.embedded.queue_table import QUEUE_FILE, QueueTable, queue_database
from frontdoor.settings import Settings

__all__ = ["queues"]

QUEUE_NAMES = ("ingest", "generation", "tasks")


def _table() -> QueueTable:
    settings = Settings()
    if settings.backend != "embedded":
        raise click.ClickException(
            "BACKEND=gcp keeps dead letters on the *-dead-letter-hold Pub/Sub subscriptions"
            " (see README, Dead letters)"
        )
    data_dir = Path(settings.data_dir)
    if not (data_dir / QUEUE_FILE).exists():
        raise click.ClickException(f"no queue file in {data_dir} (DATA_DIR)")
    return QueueTable(queue_database(data_dir))


def _when(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M:%S")


@click.group()
def queues() -> None:
    """Embedded queues: backlog, dead letters, replay."""


@queues.command("status")
def status() -> None:
    """Messages waiting (due, retrying or leased) and dead letters, per queue."""
    table = _table()
    out = Table("queue", "waiting", "dead letters")
    for name in QUEUE_NAMES:
        out.add_row(name, str(table.waiting(name)), str(len(table.dead_letters(name, limit=10**6))))
    Console().print(out)


@queues.command("dead-letters")
@click.option("--queue", "queue_name", type=click.Choice(QUEUE_NAMES), default=None)
@click.option("--limit", type=click.IntRange(1, 10_000), default=100, show_default=True)
def dead_letters(queue_name: str | None, limit: int) -> None:
    """List dead letters, oldest first."""
    found = _table().dead_letters(queue_name, limit=limit)
    if not found:
        click.echo("no dead letters")
        return
    out = Table("id", "queue", "attempts", "dead at (UTC)", "last error", "task name or body")
    for dead in found:
        # A task's body carries its headers (the internal token): show its name instead.
        body = dead.name or dead.body[:60].decode("utf-8", "replace")
        out.add_row(
            str(dead.id),
            dead.queue,
            str(dead.attempts),
            _when(dead.dead_at),
            (dead.last_error or "")[:60],
            body,
        )
    Console(width=200).print(out)


@queues.command("replay")
@click.argument("ids", nargs=-1, type=int)
@click.option("--all", "replay_all", is_flag=True, help="Every dead letter (of --queue)")
@click.option("--queue", "queue_name", type=click.Choice(QUEUE_NAMES), default=None)
def replay(ids: tuple[int, ...], replay_all: bool, queue_name: str | None) -> None:
    """Queue dead letters again (by id, or --all) from their first attempt."""
    table = _table()
    if replay_all:
        ids = tuple(d.id for d in table.dead_letters(queue_name, limit=10**6))
    elif not ids:
        raise click.UsageError("name dead-letter ids, or --all")
    click.echo(f"replayed {table.replay(ids)} dead letter(s)")
