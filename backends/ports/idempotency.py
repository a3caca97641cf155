"""Idempotency-Key records: claims, replays, leases, so a retried write lands once.

Protocols and value types only; nothing here does I/O.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal, Protocol

IDEMPOTENCY_TTL = timedelta(hours=24)
# A request that began but never completed (its process died) frees its key after this.
IDEMPOTENCY_LEASE = timedelta(minutes=5)

IdempotencyState = Literal["new", "in_flight", "replay", "mismatch"]


def entry_id(scope: str, key: str) -> str:
    """One record per (partner key, Idempotency-Key), the same id in every adapter; the key
    itself may hold any characters."""
    return hashlib.sha256(f"{scope}\n{key}".encode()).hexdigest()


@dataclass(frozen=True)
class StoredResponse:
    """The first response to an idempotent request, replayed for repeats."""

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class IdempotencyBegin:
    """What `begin` found: go ahead (`new`), wait (`in_flight`), replay, or a different body."""

    state: IdempotencyState
    response: StoredResponse | None = None


class IdempotencyStore(Protocol):
    """Idempotency-Key records, scoped per partner key, kept IDEMPOTENCY_TTL from the first use."""

    def begin(self, *, scope: str, key: str, fingerprint: str, now: datetime) -> IdempotencyBegin:
        """Claim the key for this request fingerprint (atomically), or report what holds it."""

    def complete(
        self, *, scope: str, key: str, fingerprint: str, response: StoredResponse, now: datetime
    ) -> None:
        """Store the first response of a claimed key so repeats replay it."""

    def release(self, *, scope: str, key: str, fingerprint: str) -> None:
        """Give up a claim that produced no response to keep (a crash or a 5xx), so a retry runs."""
