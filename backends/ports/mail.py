"""The mail port: sign-in codes of the built-in authorization server, to a person.

Protocols and value types only; nothing here does I/O.
"""

from __future__ import annotations

from typing import Protocol


class Mailer(Protocol):
    """Outbound mail (sign-in codes)."""

    def send(self, *, to: str, subject: str, text: str) -> None:
        """Hand one plain-text message to the sender, kept once this returns.

        Raises: UnavailableError when it could not be kept (the caller answers 503).
        """
