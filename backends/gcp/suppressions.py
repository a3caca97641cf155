"""FirestoreSuppressionStore: erased addresses as documents `{prefix}signal_suppressions/{hmac}`."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from google.cloud import firestore

from backends.gcp.deadline import DEFAULT_DEADLINE, CallDeadline
from backends.gcp.firestore_errors import unavailable_when_transient
from schemas.signals.suppression import address_digest


class FirestoreSuppressionStore:
    """SuppressionStore on Firestore: a document per held address, named by its HMAC (so a
    lookup is a batched get, never a query). A transient failure is `UnavailableError`."""

    def __init__(
        self,
        client: firestore.Client,
        *,
        key: bytes,
        prefix: str = "",
        deadline: CallDeadline = DEFAULT_DEADLINE,
    ) -> None:
        self._client = client
        self._key = key
        self._deadline = deadline
        self._held = client.collection(f"{prefix}signal_suppressions")

    @unavailable_when_transient()
    def suppress(self, email: str, *, now: datetime) -> None:
        ref = self._held.document(address_digest(email, key=self._key))
        ref.set({"suppressed_at": now}, **self._deadline.write)

    @unavailable_when_transient()
    def lift(self, email: str) -> bool:
        ref = self._held.document(address_digest(email, key=self._key))
        held = ref.get(**self._deadline.read).exists
        ref.delete(**self._deadline.write)
        return bool(held)

    @unavailable_when_transient()
    def suppressed(self, emails: Collection[str]) -> set[str]:
        by_digest = {address_digest(e, key=self._key): e for e in set(emails)}
        if not by_digest:
            return set()
        refs = [self._held.document(digest) for digest in by_digest]
        return {
            by_digest[snap.id]
            for snap in self._client.get_all(refs, **self._deadline.read)
            if snap.exists
        }
