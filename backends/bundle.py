"""Backends: the ports of one process, chosen once by frontdoor.wiring, and the page change
notice every page writer in the process shares. Only the composition root and the app factory
(api/app.py) hold it: the app factory hands each blueprint the ports or the use-case units it
needs, so no view sees the whole bundle."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from backends.clock import utc_now
from backends.ports import (
    BlobStore,
    Cdn,
    DeliveryOptions,
    ExperimentStore,
    IdempotencyStore,
    JobQueue,
    JobStore,
    KeyStore,
    Mailer,
    OAuthStore,
    PageStore,
    SignalDeliveries,
    SignalQueue,
    SignalStore,
    SuppressionStore,
    TaskQueue,
    VariantStore,
    WebhookStore,
)
from schemas.catalog import Catalog
from services.page_changes import PageChanges

__all__ = ["Backends"]


@dataclass(frozen=True)
class Backends:
    """Every port of one process. Adapters are built once by `frontdoor.wiring.build_backends`."""

    catalog: Catalog
    keys: KeyStore
    cdn: Cdn
    mailer: Mailer
    pages: PageStore
    variants: VariantStore  # each page's variants and traffic allocation
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
    oauth: OAuthStore  # the built-in authorization server's clients, codes and tokens
    suppressions: SuppressionStore  # erased addresses, whose later events are refused
    experiments: ExperimentStore  # each page's experiment: allocation, adaptive shares, end
    clock: Callable[[], datetime] = utc_now
    closers: tuple[Callable[[], None], ...] = field(default=(), repr=False)
    # The queue workers and job recovery, in order, run once by `start_workers`.
    starters: tuple[Callable[[], None], ...] = field(default=(), repr=False)
    # Built from `cdn` (again by dataclasses.replace): the page service's invalidation port.
    page_changes: PageChanges = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "page_changes", PageChanges(self.cdn))

    def start_workers(self) -> None:
        """Start the queue workers and job recovery (once; the operator CLI never does)."""
        for starter in self.starters:
            starter()

    def close(self) -> None:
        """Stop worker threads and close clients, newest first."""
        for closer in reversed(self.closers):
            closer()
