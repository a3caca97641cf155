"""Stored images (generated hero images) and other objects.

Protocols and value types only; nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Blob:
    """A stored object: its bytes and how to serve them."""

    data: bytes
    content_type: str
    cache_control: str


class BlobStore(Protocol):
    """Public files such as hero images; served at /assets/ or by Cloud Storage and CDN."""

    def put_blob(self, name: str, blob: Blob) -> str:
        """Store (or overwrite) `name`; its public URL. Raises: UnavailableError."""

    def get_blob(self, name: str) -> Blob | None:
        """The object called `name`, if stored."""
