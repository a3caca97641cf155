"""FirestoreIdempotencyStore: Idempotency-Key records as documents `{prefix}idempotency_keys/{id}`.

`expires_at` carries a TTL policy (domain/indexes.py); until Firestore removes an expired
document, reads treat it as absent.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from google.cloud import firestore

from backends.gcp.deadline import DEFAULT_DEADLINE, CallDeadline
from backends.gcp.firestore_errors import run_transaction
from backends.ports import (
    IDEMPOTENCY_LEASE,
    IDEMPOTENCY_TTL,
    IdempotencyBegin,
    StoredResponse,
    entry_id,
)


class FirestoreIdempotencyStore:
    """IdempotencyStore on Firestore; `begin` reads and claims in one transaction."""

    def __init__(
        self,
        client: firestore.Client,
        *,
        prefix: str = "",
        deadline: CallDeadline = DEFAULT_DEADLINE,
    ) -> None:
        self._client = client
        self._deadline = deadline
        self._entries = client.collection(f"{prefix}idempotency_keys")

    def begin(self, *, scope: str, key: str, fingerprint: str, now: datetime) -> IdempotencyBegin:
        ref = self._entries.document(entry_id(scope, key))

        def claim(transaction: firestore.Transaction) -> IdempotencyBegin:
            snap = ref.get(transaction=transaction, **self._deadline.read)
            found = (
                _found(snap.to_dict(), fingerprint=fingerprint, now=now) if snap.exists else None
            )
            if found is not None:
                return found
            doc = {
                "fingerprint": fingerprint,
                "state": "in_flight",
                "started_at": now,
                "expires_at": now + IDEMPOTENCY_TTL,
            }
            transaction.set(ref, doc)
            return IdempotencyBegin(state="new")

        began: IdempotencyBegin = run_transaction(self._client, claim, deadline=self._deadline)
        return began

    def complete(
        self, *, scope: str, key: str, fingerprint: str, response: StoredResponse, now: datetime
    ) -> None:
        ref = self._entries.document(entry_id(scope, key))

        def store(transaction: firestore.Transaction) -> None:
            snap = ref.get(transaction=transaction, **self._deadline.read)
            if snap.exists and snap.get("fingerprint") == fingerprint:
                update = {
                    "state": "done",
                    "status": response.status,
                    "headers": json.dumps(response.headers),
                    "body": response.body,
                }
                transaction.update(ref, update)

        run_transaction(self._client, store, deadline=self._deadline)

    def release(self, *, scope: str, key: str, fingerprint: str) -> None:
        ref = self._entries.document(entry_id(scope, key))

        def drop(transaction: firestore.Transaction) -> None:
            snap = ref.get(transaction=transaction, **self._deadline.read)
            if (
                snap.exists
                and snap.get("fingerprint") == fingerprint
                and snap.get("state") == "in_flight"
            ):
                transaction.delete(ref)

        run_transaction(self._client, drop, deadline=self._deadline)


def _found(
    doc: dict[str, Any] | None, *, fingerprint: str, now: datetime
) -> IdempotencyBegin | None:
    data = doc or {}
    if data["expires_at"] <= now:
        return None
    if data["fingerprint"] != fingerprint:
        return IdempotencyBegin(state="mismatch")
    if data["state"] == "in_flight":
        return (
            None
            if data["started_at"] + IDEMPOTENCY_LEASE <= now
            else IdempotencyBegin(state="in_flight")
        )
    headers = tuple((str(name), str(value)) for name, value in json.loads(data["headers"]))
    return IdempotencyBegin(
        state="replay",
        response=StoredResponse(
            status=int(data["status"]), body=bytes(data["body"]), headers=headers
        ),
    )
