"""FirestoreWebhookStore: endpoints as `{prefix}webhook_endpoints/{id}`, deliveries as
`{prefix}webhook_deliveries/{id}`.

Signing secrets are stored sealed in the endpoint document (backends/secret_box.py; signing
needs them, so they are encrypted, not hashed), on top of Firestore's IAM, which only the service
account may read; `seal_clear_secrets` seals those an earlier version stored in clear.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from google.api_core import exceptions as gexc
from google.cloud import firestore
from google.cloud.firestore_v1.base_query import FieldFilter

from backends.gcp.deadline import DEFAULT_DEADLINE, CallDeadline
from backends.gcp.firestore_errors import (
    create_document,
    run_transaction,
    unavailable_when_transient,
)
from backends.ports import (
    ConflictError,
    Delivery,
    DeliveryStatus,
    NotFoundError,
    WebhookEndpoint,
    WebhookSecret,
)
from backends.secret_box import SecretBox, is_sealed

# Their composite indexes are declared in domain/indexes.py (Terraform is generated from it).
_IN_LIMIT = 30  # values Firestore accepts in one `in` filter
_BATCH_LIMIT = 500  # writes in one batch


class FirestoreWebhookStore:
    """WebhookStore on Firestore. A transient Firestore failure is `UnavailableError` (a 503 on
    the webhook operations; the delivery task is retried)."""

    def __init__(
        self,
        client: firestore.Client,
        *,
        prefix: str = "",
        box: SecretBox,
        deadline: CallDeadline = DEFAULT_DEADLINE,
    ) -> None:
        self._client = client
        self._box = box
        self._deadline = deadline
        self._endpoints = client.collection(f"{prefix}webhook_endpoints")
        self._deliveries = client.collection(f"{prefix}webhook_deliveries")

    def add_endpoint(self, endpoint: WebhookEndpoint) -> None:
        create_document(
            self._endpoints.document(endpoint.endpoint_id),
            _endpoint_doc(endpoint, self._box),
            endpoint.endpoint_id,
            deadline=self._deadline,
        )

    @unavailable_when_transient()
    def seal_clear_secrets(self) -> int:
        """Seal the secrets an earlier version stored in clear; how many endpoints changed.

        Each write holds only while the document is as read: one changed meanwhile was written
        by this version, sealed."""
        sealed = 0
        for snap in self._endpoints.stream(**self._deadline.read):
            doc = _doc(snap)
            items = doc.get("secrets") or []
            if all(is_sealed(str(item.get("value", ""))) for item in items):
                continue
            items = [
                {**item, "value": self._box.seal(item["value"], endpoint_id=snap.id)}
                if not is_sealed(item["value"])
                else item
                for item in items
            ]
            try:
                snap.reference.update(
                    {"secrets": items},
                    option=self._client.write_option(last_update_time=snap.update_time),
                    **self._deadline.write,
                )
            except (gexc.FailedPrecondition, gexc.NotFound):
                continue
            sealed += 1
        return sealed

    @unavailable_when_transient()
    def get_endpoint(self, endpoint_id: str) -> WebhookEndpoint | None:
        snap = self._endpoints.document(endpoint_id).get(**self._deadline.read)
        return _endpoint(_doc(snap), self._box) if snap.exists else None

    @unavailable_when_transient()
    def list_endpoints(self, *, partner: str | None = None) -> list[WebhookEndpoint]:
        query: Any = self._endpoints
        if partner is not None:
            query = query.where(filter=FieldFilter("partner", "==", partner))
        found = [_endpoint(_doc(snap), self._box) for snap in query.stream(**self._deadline.read)]
        return sorted(found, key=lambda e: (e.created_at, e.endpoint_id))

    @unavailable_when_transient()
    def delete_endpoint(self, endpoint_id: str) -> None:
        ref = self._endpoints.document(endpoint_id)
        try:
            # An update precondition makes the delete fail on a missing document.
            ref.delete(option=self._client.write_option(exists=True), **self._deadline.write)
        except gexc.NotFound as err:
            raise NotFoundError(endpoint_id) from err

    @unavailable_when_transient()
    def set_secrets(
        self, endpoint_id: str, secrets: tuple[WebhookSecret, ...], *, if_current: str | None = None
    ) -> WebhookEndpoint:
        ref = self._endpoints.document(endpoint_id)

        def write(transaction: firestore.Transaction) -> None:
            snap = ref.get(transaction=transaction, **self._deadline.read)
            if not snap.exists:
                raise NotFoundError(endpoint_id)
            stored = _doc(snap).get("secrets") or []
            current = (
                self._box.open(stored[0]["value"], endpoint_id=endpoint_id) if stored else None
            )
            if if_current is not None and current != if_current:
                raise ConflictError(f"{endpoint_id}: its secret changed meanwhile")
            transaction.update(ref, {"secrets": _secrets_doc(secrets, self._box, endpoint_id)})

        run_transaction(self._client, write, deadline=self._deadline)
        return self._must_get(endpoint_id)

    def disable_endpoint(self, endpoint_id: str, *, reason: str, now: datetime) -> WebhookEndpoint:
        ref = self._endpoints.document(endpoint_id)

        def disable(transaction: firestore.Transaction) -> dict[str, Any]:
            snap = ref.get(transaction=transaction, **self._deadline.read)
            if not snap.exists:
                raise NotFoundError(endpoint_id)
            doc = _doc(snap)
            if doc.get("disabled_at") is None:
                doc.update(disabled_at=now, disabled_reason=reason)
                transaction.update(ref, {"disabled_at": now, "disabled_reason": reason})
            return doc

        disabled: dict[str, Any] = run_transaction(self._client, disable, deadline=self._deadline)
        return _endpoint(disabled, self._box)

    def add_delivery(self, delivery: Delivery) -> bool:
        try:
            create_document(
                self._deliveries.document(delivery.delivery_id),
                _delivery_doc(delivery),
                delivery.delivery_id,
                deadline=self._deadline,
            )
        except ConflictError:
            return False
        return True

    @unavailable_when_transient()
    def get_delivery(self, delivery_id: str) -> Delivery | None:
        snap = self._deliveries.document(delivery_id).get(**self._deadline.read)
        return _delivery(_doc(snap)) if snap.exists else None

    def update_delivery(self, delivery: Delivery, *, if_attempts: int, if_replays: int) -> None:
        ref = self._deliveries.document(delivery.delivery_id)

        def update(transaction: firestore.Transaction) -> None:
            snap = ref.get(transaction=transaction, **self._deadline.read)
            if not snap.exists:
                raise NotFoundError(delivery.delivery_id)
            doc = _doc(snap)
            if (doc["attempts"], doc["replays"]) != (if_attempts, if_replays):
                raise ConflictError(delivery.delivery_id)
            transaction.set(ref, _delivery_doc(delivery))

        run_transaction(self._client, update, deadline=self._deadline)

    @unavailable_when_transient()
    def list_deliveries(
        self, endpoint_id: str, *, status: DeliveryStatus | None = None, limit: int = 100
    ) -> list[Delivery]:
        query: Any = self._deliveries.where(filter=FieldFilter("endpoint_id", "==", endpoint_id))
        if status is not None:
            query = query.where(filter=FieldFilter("status", "==", status))
        query = query.order_by("created_at", direction=firestore.Query.DESCENDING).order_by(
            "delivery_id", direction=firestore.Query.DESCENDING
        )
        return [_delivery(_doc(snap)) for snap in query.limit(limit).stream(**self._deadline.read)]

    def erase_deliveries_for_events(self, event_ids: Sequence[str]) -> int:
        wanted = list(dict.fromkeys(event_ids))
        removed = 0
        with unavailable_when_transient():
            for start in range(0, len(wanted), _IN_LIMIT):
                chunk = wanted[start : start + _IN_LIMIT]
                query = self._deliveries.where(filter=FieldFilter("event_id", "in", chunk))
                refs = [snap.reference for snap in query.select([]).stream(**self._deadline.read)]
                for first in range(0, len(refs), _BATCH_LIMIT):
                    batch = self._client.batch()
                    for ref in refs[first : first + _BATCH_LIMIT]:
                        batch.delete(ref)
                    batch.commit(**self._deadline.write)
                removed += len(refs)
        return removed

    def _must_get(self, endpoint_id: str) -> WebhookEndpoint:
        found = self.get_endpoint(endpoint_id)
        if found is None:
            raise NotFoundError(endpoint_id)
        return found


def _doc(snap: Any) -> dict[str, Any]:
    found: dict[str, Any] = snap.to_dict() or {}
    return found


def _secrets_doc(
    secrets: tuple[WebhookSecret, ...], box: SecretBox, endpoint_id: str
) -> list[dict[str, Any]]:
    return [
        {
            "value": box.seal(s.value, endpoint_id=endpoint_id),
            "created_at": s.created_at,
            "expires_at": s.expires_at,
        }
        for s in secrets
    ]


def _endpoint_doc(e: WebhookEndpoint, box: SecretBox) -> dict[str, Any]:
    return {
        "endpoint_id": e.endpoint_id,
        "partner": e.partner,
        "url": e.url,
        "types": list(e.types),
        "description": e.description,
        "secrets": _secrets_doc(e.secrets, box, e.endpoint_id),
        "created_at": e.created_at,
        "disabled_at": e.disabled_at,
        "disabled_reason": e.disabled_reason,
        "kind": e.kind,
        "stages": list(e.stages),
    }


def _endpoint(doc: dict[str, Any], box: SecretBox) -> WebhookEndpoint:
    return WebhookEndpoint(
        endpoint_id=doc["endpoint_id"],
        partner=doc["partner"],
        url=doc["url"],
        types=tuple(doc["types"]),
        description=doc["description"],
        secrets=tuple(
            WebhookSecret(
                value=box.open(s["value"], endpoint_id=doc["endpoint_id"]),
                created_at=s["created_at"],
                expires_at=s.get("expires_at"),
            )
            for s in doc["secrets"]
        ),
        created_at=doc["created_at"],
        disabled_at=doc.get("disabled_at"),
        disabled_reason=doc.get("disabled_reason"),
        kind=doc.get("kind", "standard"),
        stages=tuple(doc.get("stages", ())),
    )


_DELIVERY_FIELDS = (
    "delivery_id",
    "endpoint_id",
    "event_id",
    "event_type",
    "payload",
    "status",
    "created_at",
    "attempts",
    "replays",
    "last_status_code",
    "last_error",
    "last_attempt_at",
    "next_attempt_at",
)


def _delivery_doc(d: Delivery) -> dict[str, Any]:
    return {name: getattr(d, name) for name in _DELIVERY_FIELDS}


def _delivery(doc: dict[str, Any]) -> Delivery:
    values: dict[str, Any] = {name: doc.get(name) for name in _DELIVERY_FIELDS}
    return Delivery(**values)
