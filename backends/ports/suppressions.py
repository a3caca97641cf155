"""The suppression list: erased addresses whose later events are refused.

An address is kept only as a keyed hash (HMAC-SHA256 with the deployment's suppression key,
schemas/signals/suppression.py), never in clear; each adapter is built with that key.
Protocols only; nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Protocol


class SuppressionStore(Protocol):
    """Addresses whose events are refused, held as keyed hashes."""

    def suppress(self, email: str, *, now: datetime) -> None:
        """Hold this (normalized) address; holding it again changes nothing."""

    def lift(self, email: str) -> bool:
        """Stop holding this address; whether it was held."""

    def suppressed(self, emails: Collection[str]) -> set[str]:
        """The addresses of `emails` that are held (one read for all of them)."""
