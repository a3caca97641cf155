"""The errors every adapter raises; adapters translate client exceptions into these.

Protocols and value types only; nothing here does I/O.
"""

from __future__ import annotations


class PortError(Exception):
    """Base of every error an adapter raises."""


class NotFoundError(PortError):
    """The record asked for does not exist."""


class ConflictError(PortError):
    """The write lost a race or would overwrite what it must not (a version check failed)."""


class UnavailableError(PortError):
    """The backend cannot answer now; the caller may retry."""


class DeliverLaterError(PortError):
    """A message handler's answer to its queue: not a failure, deliver the message again later
    (e.g. another worker holds the job). Queues redeliver it without logging a failure."""


class QuotaExceededError(PortError):
    """The write would take its partner's stored pages past their storage quota; nothing was
    changed. `used` and `quota` are in bytes."""

    def __init__(self, owner: str, *, used: int, quota: int) -> None:
        super().__init__(f"{owner}: {used} of {quota} bytes")
        self.owner = owner
        self.used = used
        self.quota = quota
