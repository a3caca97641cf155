"""The real clock: the default `clock` of the adapters that date what they store and of the
process's Backends; tests pass their own."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> datetime:
    """The real clock; tests pass their own."""
    return datetime.now(UTC)
