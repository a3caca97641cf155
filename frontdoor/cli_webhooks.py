"""`frontdoor webhooks seal-secrets`: seal the signing secrets an earlier version kept in clear.

The SQLite store seals them each time it opens its file. On Firestore that would read every
endpoint at every instance's start, so an operator runs this once after upgrading (it changes
only endpoints still holding a clear secret, and may be run again: it then reports 0).
"""

from __future__ import annotations

import click

from frontdoor.logs import configure_logging
from frontdoor.settings import Settings
from frontdoor.wiring import build_backends

__all__ = ["webhooks"]


@click.group()
def webhooks() -> None:
    """Webhook endpoints: operator tasks."""


@webhooks.command("seal-secrets")
def seal_secrets() -> None:
    """Seal the webhook signing secrets still stored in clear; print how many endpoints."""
    settings = Settings()
    configure_logging(level="WARNING", project=settings.google_cloud_project)
    backends = build_backends(settings, start_workers=False)
    try:
        sealed = backends.webhooks.seal_clear_secrets()
    finally:
        backends.close()
    noun = "endpoint" if sealed == 1 else "endpoints"
    click.echo(f"sealed the clear secrets of {sealed} {noun}")
