"""A page's variants and its traffic allocation: the VariantStore port and its errors.

Protocols and value types only; nothing here does I/O. The records are domain/variants.py.
"""

from __future__ import annotations

from typing import Protocol

from domain.variants import StoredAllocation, StoredVariant

__all__ = ["StoredAllocation", "StoredVariant", "VariantLimitError", "VariantStore"]


class VariantLimitError(Exception):
    """A page already holds as many variants as it may; nothing was changed."""

    def __init__(self, slug: str, *, limit: int) -> None:
        super().__init__(f"{slug}: at most {limit} variants")
        self.limit = limit


class VariantStore(Protocol):
    """Variants by (slug, variant id), and one allocation per page, each with its own version."""

    def get_variant(self, slug: str, variant_id: str) -> StoredVariant | None:
        """The variant, if the page has one of that id."""

    def list_variants(self, slug: str) -> tuple[StoredVariant, ...]:
        """The page's variants, by id."""

    def save_variant(
        self, variant: StoredVariant, *, expected_version: int, limit: int
    ) -> StoredVariant:
        """Create or replace atomically if the stored version is `expected_version` (0: absent).

        Raises: ConflictError if another write got there first; VariantLimitError when a new
        variant would make more than `limit` on the page. Nothing is changed then.
        """

    def delete_variant(self, slug: str, variant_id: str, *, expected_version: int) -> None:
        """Delete the variant if it is stored at `expected_version`.

        Raises: ConflictError (absent, or at another version); nothing is changed then.
        """

    def get_allocation(self, slug: str) -> StoredAllocation | None:
        """The page's allocation, if one was set."""

    def save_allocation(
        self, allocation: StoredAllocation, *, expected_version: int
    ) -> StoredAllocation:
        """Create or replace atomically if the stored version is `expected_version` (0: absent).

        Raises: ConflictError if another write got there first.
        """
