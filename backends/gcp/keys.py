"""FirestoreKeyStore: partner keys as documents `{prefix}api_keys/{key_id}`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from google.cloud import firestore

from backends.gcp.deadline import DEFAULT_DEADLINE, CallDeadline
from backends.gcp.firestore_errors import (
    create_document,
    run_transaction,
    unavailable_when_transient,
)
from backends.ports import ApiKeyRecord, KeyLimits, NotFoundError


class FirestoreKeyStore:
    """KeyStore on Firestore. A transient Firestore failure is `UnavailableError` (a 503 on a
    keyed request)."""

    def __init__(
        self,
        client: firestore.Client,
        *,
        prefix: str = "",
        deadline: CallDeadline = DEFAULT_DEADLINE,
    ) -> None:
        self._client = client
        self._deadline = deadline
        self._keys = client.collection(f"{prefix}api_keys")

    def add_key(self, record: ApiKeyRecord) -> None:
        create_document(
            self._keys.document(record.key_id),
            _to_doc(record),
            record.key_id,
            deadline=self._deadline,
        )

    @unavailable_when_transient()
    def get_key(self, key_id: str) -> ApiKeyRecord | None:
        doc = self._keys.document(key_id).get(**self._deadline.read).to_dict()
        return None if doc is None else _from_doc(doc)

    def revoke_key(self, key_id: str, *, now: datetime) -> ApiKeyRecord:
        ref = self._keys.document(key_id)

        def revoke(transaction: firestore.Transaction) -> dict[str, Any]:
            doc = ref.get(transaction=transaction, **self._deadline.read).to_dict()
            if doc is None:
                raise NotFoundError(key_id)
            if doc.get("revoked_at") is None:
                doc["revoked_at"] = now
                transaction.update(ref, {"revoked_at": now})
            return doc

        revoked: dict[str, Any] = run_transaction(self._client, revoke, deadline=self._deadline)
        return _from_doc(revoked)

    @unavailable_when_transient()
    def list_keys(self) -> list[ApiKeyRecord]:
        docs = [
            _from_doc(doc)
            for snap in self._keys.stream(**self._deadline.read)
            if (doc := snap.to_dict()) is not None
        ]
        return sorted(docs, key=lambda r: (r.created_at, r.key_id))


def _to_doc(record: ApiKeyRecord) -> dict[str, Any]:
    return {
        "key_id": record.key_id,
        "partner": record.partner,
        "scope": record.scope,
        "secret_hash": record.secret_hash,
        "created_at": record.created_at,
        "revoked_at": record.revoked_at,
        "bootstrap": record.bootstrap,
        "limits": {
            "types": list(record.limits.types),
            "sources": list(record.limits.sources),
            "own_pages": record.limits.own_pages,
        }
        if record.limits.limited
        else None,
    }


def _from_doc(doc: dict[str, Any]) -> ApiKeyRecord:
    return ApiKeyRecord(
        key_id=doc["key_id"],
        partner=doc["partner"],
        scope=doc["scope"],
        secret_hash=doc["secret_hash"],
        created_at=doc["created_at"],
        revoked_at=doc.get("revoked_at"),
        bootstrap=bool(doc.get("bootstrap", False)),
        limits=_limits(doc.get("limits")),
    )


def _limits(held: dict[str, Any] | None) -> KeyLimits:
    if not held:
        return KeyLimits()
    return KeyLimits(
        types=tuple(held["types"]), sources=tuple(held["sources"]), own_pages=held["own_pages"]
    )
