"""FirestoreOAuthStore: the built-in authorization server's state in Firestore.

Collections `{prefix}oauth_clients`, `oauth_pending`, `oauth_codes`, `oauth_tokens` and
`oauth_hits`. Client ids can be URLs (Client ID Metadata Documents), so client documents
are keyed by the sha256 of the id; codes and tokens are keyed by their stored hash.
Every collection has a TTL policy on `expires_at` (domain/indexes.py), a timestamp
on every document that ends (registered clients have none), so Firestore deletes expired
documents some time after they end; readers already treat them as absent.
A transient Firestore failure is the port's UnavailableError (backends.gcp.firestore_errors),
which the authorization server answers 503 temporarily_unavailable.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, fields
from datetime import datetime, timedelta
from typing import Any, TypeVar

from google.cloud import firestore

from backends.gcp.deadline import DEFAULT_DEADLINE, CallDeadline
from backends.gcp.firestore_errors import (
    create_document,
    run_transaction,
    unavailable_when_transient,
    usable_document_id,
)
from backends.ports import (
    AuthorizationCodeRecord,
    ConflictError,
    NotFoundError,
    OAuthClientRecord,
    OAuthTokenRecord,
    PendingAuthorization,
)

R = TypeVar("R")
# Rate-limit windows are at most a day long (OAuthStore.count_hit).
HIT_RETENTION = timedelta(days=1)


class FirestoreOAuthStore:
    """OAuthStore on Firestore."""

    def __init__(
        self,
        client: firestore.Client,
        *,
        prefix: str = "",
        deadline: CallDeadline = DEFAULT_DEADLINE,
    ) -> None:
        self._client = client
        self._deadline = deadline
        self._clients = client.collection(f"{prefix}oauth_clients")
        self._pending = client.collection(f"{prefix}oauth_pending")
        self._codes = client.collection(f"{prefix}oauth_codes")
        self._tokens = client.collection(f"{prefix}oauth_tokens")
        self._hits = client.collection(f"{prefix}oauth_hits")

    def save_client(self, record: OAuthClientRecord) -> None:
        with unavailable_when_transient():
            self._clients.document(_key(record.client_id)).set(
                asdict(record), **self._deadline.write
            )

    def get_client(self, client_id: str) -> OAuthClientRecord | None:
        with unavailable_when_transient():
            snap = self._clients.document(_key(client_id)).get(**self._deadline.read)
        return _load(OAuthClientRecord, snap.to_dict()) if snap.exists else None

    def save_pending(self, pending: PendingAuthorization) -> None:
        with unavailable_when_transient():
            self._pending.document(pending.tx_id).set(asdict(pending), **self._deadline.write)

    def get_pending(self, tx_id: str) -> PendingAuthorization | None:
        # The sign-in forms send the id back: one Firestore refuses (`__x__`) is simply unknown.
        if not usable_document_id(tx_id):
            return None
        with unavailable_when_transient():
            snap = self._pending.document(tx_id).get(**self._deadline.read)
        return _load(PendingAuthorization, snap.to_dict()) if snap.exists else None

    def delete_pending(self, tx_id: str) -> None:
        with unavailable_when_transient():
            self._pending.document(tx_id).delete(**self._deadline.write)

    def add_code(self, record: AuthorizationCodeRecord) -> None:
        create_document(
            self._codes.document(record.code_hash),
            asdict(record),
            record.code_hash,
            deadline=self._deadline,
        )

    def get_code(self, code_hash: str) -> AuthorizationCodeRecord | None:
        with unavailable_when_transient():
            snap = self._codes.document(code_hash).get(**self._deadline.read)
        return _load(AuthorizationCodeRecord, snap.to_dict()) if snap.exists else None

    def use_code(self, code_hash: str, *, now: datetime) -> AuthorizationCodeRecord:
        ref = self._codes.document(code_hash)

        def use(transaction: firestore.Transaction) -> dict[str, Any]:
            snap = ref.get(transaction=transaction, **self._deadline.read)
            if not snap.exists:
                raise NotFoundError(code_hash)
            doc: dict[str, Any] = snap.to_dict() or {}
            if doc.get("used_at") is not None:
                raise ConflictError(code_hash)
            transaction.update(ref, {"used_at": now})
            return {**doc, "used_at": now}

        used = run_transaction(self._client, use, deadline=self._deadline)
        return _load(AuthorizationCodeRecord, used)

    def add_token(self, record: OAuthTokenRecord) -> None:
        create_document(
            self._tokens.document(record.token_hash),
            asdict(record),
            record.token_hash,
            deadline=self._deadline,
        )

    def get_token(self, token_hash: str) -> OAuthTokenRecord | None:
        with unavailable_when_transient():
            snap = self._tokens.document(token_hash).get(**self._deadline.read)
        return _load(OAuthTokenRecord, snap.to_dict()) if snap.exists else None

    def revoke_token(self, token_hash: str, *, now: datetime) -> None:
        ref = self._tokens.document(token_hash)
        with unavailable_when_transient():
            snap = ref.get(**self._deadline.read)
            if snap.exists and snap.get("revoked_at") is None:
                ref.update({"revoked_at": now}, **self._deadline.write)

    def replace_token(self, token_hash: str, *, now: datetime, replacement: str) -> None:
        ref = self._tokens.document(token_hash)

        def mark(transaction: firestore.Transaction) -> None:
            snap = ref.get(transaction=transaction, **self._deadline.read)
            if not snap.exists:
                raise NotFoundError(token_hash)
            if (snap.to_dict() or {}).get("revoked_at") is not None:
                raise ConflictError(token_hash)
            transaction.update(
                ref, {"revoked_at": now, "replaced_at": now, "replacement": replacement}
            )

        run_transaction(self._client, mark, deadline=self._deadline)

    def revoke_grant(self, grant_id: str, *, now: datetime) -> None:
        query = self._tokens.where(filter=firestore.FieldFilter("grant_id", "==", grant_id))
        batch = self._client.batch()
        with unavailable_when_transient():
            for snap in query.stream(**self._deadline.read):
                if snap.get("revoked_at") is None:
                    batch.update(snap.reference, {"revoked_at": now})
            batch.commit(**self._deadline.write)

    def count_hit(self, bucket: str, *, window_start: datetime) -> int:
        ref = self._hits.document(_key(f"{bucket}|{window_start.isoformat()}"))
        with unavailable_when_transient():
            ref.set(
                {
                    "bucket": bucket,
                    "window_start": window_start,
                    "expires_at": window_start + HIT_RETENTION,
                    "hits": firestore.Increment(1),
                },
                merge=True,
                **self._deadline.write,
            )
            hits: int = ref.get(**self._deadline.read).get("hits")
        return hits


def _key(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _load(kind: type[R], doc: dict[str, Any] | None) -> R:
    """Rebuild a port dataclass: Firestore arrays back to tuples."""
    doc = doc or {}
    values = {
        f.name: tuple(doc[f.name]) if isinstance(doc.get(f.name), list) else doc[f.name]
        for f in fields(kind)  # type: ignore[arg-type]  # always one of the port's dataclasses
        if f.name in doc
    }
    return kind(**values)
