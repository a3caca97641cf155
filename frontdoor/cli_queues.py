"""`frontdoor queues`: the queues' dead letters (and, embedded, their backlog), for an operator.

`dead-letters` lists what failed its last attempt (queue, attempts, when, the last error where
the queue records it, and a task's name or the start of the body); `replay` queues dead letters
again on their own queue from their first attempt. Embedded, that is the queue file in DATA_DIR
(no worker starts here; a running server picks replayed messages up within a poll); with
BACKEND=gcp, the `*-dead-letter-hold` Pub/Sub subscriptions of the ingest and generation topics
(a replay publishes the message to its topic again). Cloud Tasks keeps no dead letters: a
delivery that fails for good is a `failed` delivery, listed and replayed through the Signal API.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from backends.embedded.queue_table import QUEUE_FILE, QueueTable, queue_database
from backends.ports import DeadLetters
from frontdoor.settings import Settings
from frontdoor.wiring import build_dead_letters

__all__ = ["queues"]

QUEUE_NAMES = ("ingest", "generation", "tasks")
NO_TASK_DEAD_LETTERS = (
    "Cloud Tasks keeps no dead letters: a webhook delivery or job callback that fails for good"
    " is a failed delivery, listed and replayed through the Signal API"
    " (GET .../webhooks/{id}/deliveries?status=failed, POST .../deliveries/{id}/replay)"
)


def _settings() -> Settings:
    settings = Settings()
    if settings.backend == "embedded" and not (Path(settings.data_dir) / QUEUE_FILE).exists():
        raise click.ClickException(f"no queue file in {settings.data_dir} (DATA_DIR)")
    return settings


def _dead_letters(queue_name: str | None) -> DeadLetters:
    found = build_dead_letters(_settings())
    if queue_name is not None and queue_name not in found.queues:
        raise click.ClickException(NO_TASK_DEAD_LETTERS)
    return found


@click.group()
def queues() -> None:
    """Queues: dead letters and their replay; the embedded backlog."""


@queues.command("status")
def status() -> None:
    """Messages waiting (due, retrying or leased) and dead letters, per embedded queue."""
    settings = _settings()
    if settings.backend != "embedded":
        raise click.ClickException(
            "status counts the embedded queue file; on Google Cloud each subscription's backlog"
            " is in Cloud Monitoring, and `frontdoor queues dead-letters` lists the dead letters"
        )
    table = QueueTable(queue_database(Path(settings.data_dir)))
    out = Table("queue", "waiting", "dead letters")
    for name in QUEUE_NAMES:
        out.add_row(name, str(table.waiting(name)), str(len(table.dead_letters(name, limit=10**6))))
    Console().print(out)


@queues.command("dead-letters")
@click.option("--queue", "queue_name", type=click.Choice(QUEUE_NAMES), default=None)
@click.option("--limit", type=click.IntRange(1, 10_000), default=100, show_default=True)
def dead_letters(queue_name: str | None, limit: int) -> None:
    """List dead letters, oldest first (they stay held)."""
    found = _dead_letters(queue_name).list_dead_letters(queue_name, limit=limit)
    if not found:
        click.echo("no dead letters")
        return
    out = Table("id", "queue", "attempts", "dead at (UTC)", "last error", "task name or body")
    for dead in found:
        # A task's body carries its headers (the internal token): show its name instead.
        body = dead.name or dead.body[:60].decode("utf-8", "replace")
        out.add_row(
            dead.id,
            dead.queue,
            "?" if dead.attempts is None else str(dead.attempts),
            dead.dead_at.strftime("%Y-%m-%d %H:%M:%S"),
            (dead.last_error or "")[:60],
            body,
        )
    Console(width=200).print(out)


@queues.command("replay")
@click.argument("ids", nargs=-1)
@click.option("--all", "replay_all", is_flag=True, help="Every dead letter (of --queue)")
@click.option("--queue", "queue_name", type=click.Choice(QUEUE_NAMES), default=None)
def replay(ids: tuple[str, ...], replay_all: bool, queue_name: str | None) -> None:
    """Queue dead letters again (by id, or --all) from their first attempt."""
    if not replay_all and not ids:
        raise click.UsageError("name dead-letter ids, or --all")
    held = _dead_letters(queue_name)
    replayed = held.replay_dead_letters(None if replay_all else ids, queue=queue_name)
    click.echo(f"replayed {len(replayed)} dead letter(s)")
    missing = [] if replay_all else [one for one in ids if one not in replayed]
    if missing:
        raise click.ClickException(f"no such dead letter: {', '.join(missing)}")
