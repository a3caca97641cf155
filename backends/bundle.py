"""Backends: the ports of one process, chosen once by frontdoor.wiring, passed to entry points."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

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
    UnavailableError,
    VariantStore,
    WebhookStore,
)
from schemas.catalog import Catalog

logger = logging.getLogger(__name__)


def utc_now() -> datetime:
    """The real clock; tests pass their own."""
    return datetime.now(UTC)


class PageChanges:
    """Who hears that a page changed (services/pages.py tells it the slug after every write):
    this process's /p/ lookup memo once the pages blueprint listens, then the CDN purge of
    `/p/{slug}`. Every listener runs before the purge. The write has been stored by then, so a
    purge the CDN refuses is logged for operators and never fails the write: answering an error
    would invite a retry of a write that succeeded (and a job would store its page again). The
    CDN serves the old version until the page's s-maxage runs out."""

    def __init__(self, cdn: Cdn) -> None:
        self._cdn = cdn
        self._listeners: list[Callable[[str], None]] = []

    def listen(self, listener: Callable[[str], None]) -> None:
        """Call `listener` with the slug of every later change."""
        self._listeners.append(listener)

    def __call__(self, slug: str) -> None:
        for listener in self._listeners:
            listener(slug)
        try:
            self._cdn.purge(f"/p/{slug}")
        except UnavailableError:
            logger.exception(
                "cdn purge of /p/%s failed; the CDN serves the old version until s-maxage",
                slug,
                extra={"slug": slug},
            )


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
