"""The Firestore index list moved to domain/indexes.py (the terraform renderer reads it too);
these names stay importable from here for code written against the old place."""

from __future__ import annotations

from domain.indexes import FIRESTORE_INDEXES, FIRESTORE_TTL_POLICIES, CompositeIndex, TtlPolicy

__all__ = ["FIRESTORE_INDEXES", "FIRESTORE_TTL_POLICIES", "CompositeIndex", "TtlPolicy"]
