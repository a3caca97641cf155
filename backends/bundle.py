"""Backends: the ports of one process, chosen once by frontdoor.wiring, passed to entry points."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from backends.ports import Cdn, IdempotencyStore, KeyStore, Mailer, PageStore
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
    clock: Callable[[], datetime] = utc_now
    closers: tuple[Callable[[], None], ...] = field(default=(), repr=False)

    def close(self) -> None:
        """Stop worker threads and close clients, newest first."""
        for closer in reversed(self.closers):
            closer()
