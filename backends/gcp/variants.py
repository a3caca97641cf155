"""FirestoreVariantStore: a page's variants as `{prefix}pages/{slug}/variants/{variant_id}` and
its allocation as `{prefix}page_allocations/{slug}`; each write checks the version in its
transaction. A variant's input is kept as JSON text, as a page's is (backends/gcp/pages.py).
"""

from __future__ import annotations

import json
from typing import Any

from google.cloud import firestore

from backends.gcp.deadline import DEFAULT_DEADLINE, CallDeadline
from backends.gcp.firestore_errors import (
    read_at_version,
    run_transaction,
    unavailable_when_transient,
)
from backends.ports import StoredAllocation, StoredVariant, VariantLimitError


class FirestoreVariantStore:
    """VariantStore on Firestore; the version check and the write share one transaction."""

    def __init__(
        self,
        client: firestore.Client,
        *,
        prefix: str = "",
        deadline: CallDeadline = DEFAULT_DEADLINE,
    ) -> None:
        self._client = client
        self._deadline = deadline
        self._pages = client.collection(f"{prefix}pages")
        self._allocations = client.collection(f"{prefix}page_allocations")

    def _variants(self, slug: str) -> Any:
        return self._pages.document(slug).collection("variants")

    def get_variant(self, slug: str, variant_id: str) -> StoredVariant | None:
        with unavailable_when_transient():
            snap = self._variants(slug).document(variant_id).get(**self._deadline.read)
        return _variant(snap.to_dict()) if snap.exists else None

    def list_variants(self, slug: str) -> tuple[StoredVariant, ...]:
        with unavailable_when_transient():
            found = [
                _variant(s.to_dict()) for s in self._variants(slug).stream(**self._deadline.read)
            ]
        return tuple(sorted(found, key=lambda v: v.variant_id))

    def save_variant(
        self, variant: StoredVariant, *, expected_version: int, limit: int
    ) -> StoredVariant:
        ref = self._variants(variant.slug).document(variant.variant_id)

        def write(transaction: firestore.Transaction) -> None:
            read_at_version(
                transaction,
                ref,
                expected=expected_version,
                label=f"{variant.slug}/{variant.variant_id}",
                deadline=self._deadline,
            )
            if expected_version == 0:
                # Read in the transaction: a concurrent create of another variant conflicts.
                read = {"transaction": transaction, **self._deadline.read}
                held = list(self._variants(variant.slug).stream(**read))
                if len(held) >= limit:
                    raise VariantLimitError(variant.slug, limit=limit)
            transaction.set(ref, _variant_doc(variant))

        run_transaction(self._client, write, deadline=self._deadline)
        return variant

    def delete_variant(self, slug: str, variant_id: str, *, expected_version: int) -> None:
        ref = self._variants(slug).document(variant_id)

        def write(transaction: firestore.Transaction) -> None:
            read_at_version(
                transaction,
                ref,
                expected=expected_version,
                label=f"{slug}/{variant_id}",
                deadline=self._deadline,
                must_exist=True,
            )
            transaction.delete(ref)

        run_transaction(self._client, write, deadline=self._deadline)

    def get_allocation(self, slug: str) -> StoredAllocation | None:
        with unavailable_when_transient():
            snap = self._allocations.document(slug).get(**self._deadline.read)
        return _allocation(snap.to_dict()) if snap.exists else None

    def save_allocation(
        self, allocation: StoredAllocation, *, expected_version: int
    ) -> StoredAllocation:
        ref = self._allocations.document(allocation.slug)

        def write(transaction: firestore.Transaction) -> None:
            read_at_version(
                transaction,
                ref,
                expected=expected_version,
                label=f"{allocation.slug} allocation",
                deadline=self._deadline,
            )
            transaction.set(ref, _allocation_doc(allocation))

        run_transaction(self._client, write, deadline=self._deadline)
        return allocation


def _variant_doc(variant: StoredVariant) -> dict[str, Any]:
    return {
        "slug": variant.slug,
        "variant_id": variant.variant_id,
        "version": variant.version,
        "page_input": json.dumps(variant.page_input, ensure_ascii=False),
        "created_at": variant.created_at,
        "updated_at": variant.updated_at,
        "gate_ruleset": variant.gate_ruleset,
        "editor": variant.editor,
        "editor_key_id": variant.editor_key_id,
        "start_at": variant.start_at,
    }


def _variant(doc: dict[str, Any] | None) -> StoredVariant:
    data = doc or {}
    return StoredVariant(
        slug=data["slug"],
        variant_id=data["variant_id"],
        version=int(data["version"]),
        page_input=json.loads(data["page_input"]),
        created_at=data["created_at"],
        updated_at=data["updated_at"],
        gate_ruleset=data.get("gate_ruleset", ""),
        editor=data.get("editor", ""),
        editor_key_id=data.get("editor_key_id", ""),
        start_at=data.get("start_at"),
    )


def _allocation_doc(allocation: StoredAllocation) -> dict[str, Any]:
    # JSON text, as the page input: a variant id is no safe Firestore map key (`-`, digits).
    return {
        "slug": allocation.slug,
        "version": allocation.version,
        "mode": allocation.mode,
        "shares": json.dumps(dict(allocation.shares)),
        "updated_at": allocation.updated_at,
        "editor": allocation.editor,
        "editor_key_id": allocation.editor_key_id,
    }


def _allocation(doc: dict[str, Any] | None) -> StoredAllocation:
    data = doc or {}
    return StoredAllocation(
        slug=data["slug"],
        version=int(data["version"]),
        mode=data["mode"],
        shares=json.loads(data["shares"]),
        updated_at=data["updated_at"],
        editor=data.get("editor", ""),
        editor_key_id=data.get("editor_key_id", ""),
    )
