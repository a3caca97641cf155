"""The webhook-delivery ports for one process: store, task queue, the ingest seam and options.

Called by frontdoor.wiring with the database (embedded) or Firestore client (gcp) it built.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from backends.embedded.queue_table import QueueTable
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import DeliveryOptions, TaskQueue, WebhookStore
from frontdoor.kept_secrets import kept_secret
from frontdoor.settings import Settings
from services.deliveries import AccountLookup, WebhookDeliveries
from services.delivery_policy import RETRY_DELAYS

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DeliveryPorts:
    """What build_backends adds to Backends for deliveries, and how to stop it."""

    webhooks: WebhookStore
    tasks: TaskQueue
    deliveries: WebhookDeliveries
    options: DeliveryOptions
    closers: tuple[Callable[[], None], ...]


def build_delivery_ports(
    settings: Settings,
    *,
    clock: Callable[[], datetime],
    db: SqliteDatabase | None = None,
    queue_table: QueueTable | None = None,
    firestore_client: Any = None,
    start_workers: bool = True,
    accounts: AccountLookup | None = None,
) -> DeliveryPorts:
    """Embedded: SQLite and the durable task queue (started here); gcp: Firestore, Cloud Tasks."""
    options = delivery_options(settings)
    webhooks: WebhookStore
    tasks: TaskQueue
    closers: list[Callable[[], None]] = []
    if settings.backend == "gcp":
        # Imported here so that embedded runs never load the cloud clients.
        from backends.gcp.tasks import CloudTasksTaskQueue, cloud_tasks_client, queue_path
        from backends.gcp.webhooks import FirestoreWebhookStore

        webhooks = FirestoreWebhookStore(firestore_client)
        emulator = settings.cloud_tasks_emulator_host
        cloud = CloudTasksTaskQueue(
            lambda: cloud_tasks_client(emulator_host=emulator),
            queue_path=queue_path(
                project=settings.google_cloud_project or "",
                location=settings.cloud_tasks_location,
                queue=settings.cloud_tasks_queue,
            ),
            oidc_service_account=settings.cloud_tasks_service_account,
            create_queue=bool(emulator),  # Terraform creates it in the cloud
        )
        tasks = cloud
        closers.append(cloud.close)
    else:
        from backends.embedded.tasks import DurableTaskQueue
        from backends.embedded.webhooks import SqliteWebhookStore

        # embedded wiring always passes its database and queue table
        assert db is not None  # noqa: S101
        assert queue_table is not None  # noqa: S101
        webhooks = SqliteWebhookStore(db)
        durable = DurableTaskQueue(
            queue_table,
            retry_delays=options.retry_delays,
            lease_seconds=max(settings.queue_lease_seconds, 45.0),
        )
        if start_workers:
            durable.start()
        tasks = durable
        closers.append(durable.close)
    deliveries = WebhookDeliveries(
        webhooks=webhooks, tasks=tasks, options=options, clock=clock, accounts=accounts
    )
    return DeliveryPorts(webhooks, tasks, deliveries, options, tuple(closers))


def delivery_options(settings: Settings) -> DeliveryOptions:
    """DeliveryOptions from the settings (DESIGN's retry schedule unless overridden)."""
    delays = (
        tuple(timedelta(seconds=s) for s in settings.webhook_retry_delays)
        if settings.webhook_retry_delays is not None
        else RETRY_DELAYS
    )
    allow_loopback = settings.webhook_allow_loopback
    if allow_loopback is None:
        allow_loopback = settings.backend == "embedded"
    return DeliveryOptions(
        attempt_base_url=(settings.internal_base_url or settings.base_url).rstrip("/"),
        internal_token=_internal_token(settings),
        retry_delays=delays,
        allow_loopback=allow_loopback,
    )


def _internal_token(settings: Settings) -> str:
    """INTERNAL_TOKEN; else one kept in DATA_DIR (embedded, shared by every worker process)."""
    if settings.internal_token is not None:
        return settings.internal_token.get_secret_value()
    if settings.backend != "embedded":
        logger.warning("INTERNAL_TOKEN is unset: the delivery attempt route refuses every call")
        return ""
    return kept_secret(
        Path(settings.data_dir) / "internal_token", lambda: secrets.token_urlsafe(32)
    )
