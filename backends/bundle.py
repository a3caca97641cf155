"""Backends: the ports of one process, chosen once by frontdoor.wiring, passed to entry points."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from backends.ports import (
    BlobStore,
    Cdn,
    DeliveryOptions,
    IdempotencyStore,
    JobQueue,
    JobStore,
    KeyStore,
    Mailer,
    PageStore,
    SignalDeliveries,
    SignalQueue,
    SignalStore,
    TaskQueue,
    WebhookStore,
)
from schemas.catalog import Catalog


def utc_now() -> datetime:
    """The real clock; tests pass their own."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class Backends:
    """Every port of one process. Adapters are built once by `frontdoor.wiring.build_backends`."""

    catalog: Catalog
    keys: KeyStore
    cdn: Cdn
    mailer: Mailer
    pages: PageStore
    idempotency: IdempotencyStore
    signals: SignalStore
    signal_queue: SignalQueue
    webhooks: WebhookStore
    tasks: TaskQueue
    deliveries: SignalDeliveries
    delivery_options: DeliveryOptions
    jobs: JobStore
    job_queue: JobQueue
    blobs: BlobStore
    clock: Callable[[], datetime] = utc_now
    closers: tuple[Callable[[], None], ...] = field(default=(), repr=False)

    def close(self) -> None:
        """Stop worker threads and close clients, newest first."""
        for closer in reversed(self.closers):
            closer()
