"""The CDN port: purge a page's path after a change, so readers never get a stale page.

Protocols and value types only; nothing here does I/O.
"""

from __future__ import annotations

from typing import Protocol


class Cdn(Protocol):
    """The cache in front of public pages."""

    def purge(self, path: str) -> None:
        """Invalidate one path, e.g. /p/launch."""
