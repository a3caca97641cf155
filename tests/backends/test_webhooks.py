"""Contract suite for WebhookStore: the same behaviour on SQLite and on the Firestore emulator."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from backends.embedded.sqlite import SqliteDatabase
from backends.embedded.webhooks import SqliteWebhookStore
from backends.ports import (
    ConflictError,
    Delivery,
    NotFoundError,
    WebhookEndpoint,
    WebhookSecret,
    WebhookStore,
)
from backends.secret_box import SealedSecretError, SecretBox

BOX = SecretBox("test-webhook-secrets-key")
pytestmark = pytest.mark.spec("signals.webhooks")

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[WebhookStore]:
    if request.param == "sqlite":
        yield SqliteWebhookStore(SqliteDatabase(tmp_path / "hooks.sqlite3"), box=BOX)
        return
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.firestore import firestore_client
    from backends.gcp.webhooks import FirestoreWebhookStore

    prefix = f"t{uuid.uuid4().hex[:10]}_"
    yield FirestoreWebhookStore(firestore_client(project="demo-frontdoor"), prefix=prefix, box=BOX)


def _endpoint(
    endpoint_id: str = "wh_1", *, partner: str = "acme", created: datetime = NOW
) -> WebhookEndpoint:
    return WebhookEndpoint(
        endpoint_id=endpoint_id,
        partner=partner,
        url="https://hooks.example.com/in",
        types=("book_call", "lead_form"),
        description="CRM",
        secrets=(WebhookSecret(value="whsec_current", created_at=created),),
        created_at=created,
    )


def _delivery(
    delivery_id: str = "msg_1",
    *,
    endpoint_id: str = "wh_1",
    status: str = "pending",
    created: datetime = NOW,
) -> Delivery:
    return Delivery(
        delivery_id=delivery_id,
        endpoint_id=endpoint_id,
        event_id=f"site:{delivery_id}",
        event_type="book_call",
        payload='{"type":"signal.book_call"}',
        status=status,  # type: ignore[arg-type]
        created_at=created,
        next_attempt_at=created,
    )


def test_a_stored_endpoint_reads_back_equal_with_its_secret(store: WebhookStore) -> None:
    """DESIGN Deliveries: per-endpoint secrets are kept so deliveries can be signed."""
    store.add_endpoint(_endpoint())

    assert store.get_endpoint("wh_1") == _endpoint()
    assert store.get_endpoint("missing") is None


def test_adding_an_endpoint_id_twice_conflicts(store: WebhookStore) -> None:
    """Ids are unique."""
    store.add_endpoint(_endpoint())

    with pytest.raises(ConflictError):
        store.add_endpoint(_endpoint())


def test_endpoints_list_oldest_first_and_per_partner(store: WebhookStore) -> None:
    """DESIGN Deliveries: GET lists a partner's endpoints."""
    store.add_endpoint(_endpoint("wh_b", created=NOW + timedelta(minutes=1)))
    store.add_endpoint(_endpoint("wh_a"))
    store.add_endpoint(_endpoint("wh_c", partner="other", created=NOW + timedelta(minutes=2)))

    assert [e.endpoint_id for e in store.list_endpoints(partner="acme")] == ["wh_a", "wh_b"]
    assert [e.endpoint_id for e in store.list_endpoints()] == ["wh_a", "wh_b", "wh_c"]


def test_deleting_removes_the_endpoint_and_an_unknown_one_is_not_found(store: WebhookStore) -> None:
    """DESIGN Deliveries: DELETE .../{id}."""
    store.add_endpoint(_endpoint())

    store.delete_endpoint("wh_1")

    assert store.get_endpoint("wh_1") is None
    with pytest.raises(NotFoundError):
        store.delete_endpoint("wh_1")


def test_secrets_are_replaced_in_order(store: WebhookStore) -> None:
    """DESIGN Deliveries: rotation stores the new secret first, the previous one with its expiry."""
    store.add_endpoint(_endpoint())
    rotated = (
        WebhookSecret(value="whsec_new", created_at=NOW + timedelta(hours=1)),
        WebhookSecret(value="whsec_current", created_at=NOW, expires_at=NOW + timedelta(hours=25)),
    )

    updated = store.set_secrets("wh_1", rotated)

    assert updated.secrets == rotated
    assert store.get_endpoint("wh_1") == updated
    with pytest.raises(NotFoundError):
        store.set_secrets("missing", rotated)


def test_secrets_are_replaced_only_over_the_current_secret_the_rotation_read(
    store: WebhookStore,
) -> None:
    """Two rotations at once: each names the current secret it read, and the one whose secret
    was replaced meanwhile conflicts and changes nothing, so neither overwrites the other's."""
    store.add_endpoint(_endpoint())
    first = (
        WebhookSecret(value="whsec_first", created_at=NOW),
        WebhookSecret(value="whsec_current", created_at=NOW, expires_at=NOW + timedelta(days=1)),
    )
    second = (WebhookSecret(value="whsec_second", created_at=NOW), *first[1:])
    store.set_secrets("wh_1", first, if_current="whsec_current")

    with pytest.raises(ConflictError):
        store.set_secrets("wh_1", second, if_current="whsec_current")

    endpoint = store.get_endpoint("wh_1")
    assert endpoint is not None
    assert endpoint.secrets == first
    with pytest.raises(NotFoundError):
        store.set_secrets("missing", first, if_current="whsec_current")


def test_disabling_is_idempotent_and_keeps_the_first_reason(store: WebhookStore) -> None:
    """DESIGN Deliveries: 410 from the receiver disables the endpoint."""
    store.add_endpoint(_endpoint())

    first = store.disable_endpoint("wh_1", reason="410 Gone", now=NOW + timedelta(hours=1))
    second = store.disable_endpoint("wh_1", reason="again", now=NOW + timedelta(hours=2))

    assert (first.disabled_at, first.disabled_reason, first.active) == (
        NOW + timedelta(hours=1),
        "410 Gone",
        False,
    )
    assert second == first
    with pytest.raises(NotFoundError):
        store.disable_endpoint("missing", reason="x", now=NOW)


def test_a_delivery_is_stored_once_by_id(store: WebhookStore) -> None:
    """DESIGN Deliveries: the same event reaching the hook twice makes one delivery."""
    assert store.add_delivery(_delivery())
    assert not store.add_delivery(dataclasses.replace(_delivery(), payload="other"))

    assert store.get_delivery("msg_1") == _delivery()
    assert store.get_delivery("missing") is None


def test_updating_a_delivery_checks_its_attempt_and_replay_counts(store: WebhookStore) -> None:
    """DESIGN Deliveries: a task run twice records its attempt once."""
    store.add_delivery(_delivery())
    attempted = dataclasses.replace(
        _delivery(),
        attempts=1,
        last_status_code=500,
        last_error="HTTP 500",
        last_attempt_at=NOW,
        next_attempt_at=NOW + timedelta(seconds=5),
    )

    store.update_delivery(attempted, if_attempts=0, if_replays=0)

    assert store.get_delivery("msg_1") == attempted
    with pytest.raises(ConflictError):
        store.update_delivery(attempted, if_attempts=0, if_replays=0)
    with pytest.raises(NotFoundError):
        store.update_delivery(_delivery("missing"), if_attempts=0, if_replays=0)


def test_deliveries_list_newest_first_filtered_by_status(store: WebhookStore) -> None:
    """DESIGN Deliveries: GET .../{id}/deliveries?status=failed."""
    for n, status in enumerate(["failed", "succeeded", "failed", "pending"]):
        store.add_delivery(_delivery(f"msg_{n}", status=status, created=NOW + timedelta(minutes=n)))
    store.add_delivery(_delivery("msg_other", endpoint_id="wh_2", status="failed"))

    failed = store.list_deliveries("wh_1", status="failed")
    everything = store.list_deliveries("wh_1", limit=3)

    assert [d.delivery_id for d in failed] == ["msg_2", "msg_0"]
    assert [d.delivery_id for d in everything] == ["msg_3", "msg_2", "msg_1"]


def test_erasing_the_deliveries_of_events_removes_them_from_every_endpoint(
    store: WebhookStore,
) -> None:
    """DESIGN Ingest: erasing a person also removes the deliveries that carry their events."""
    for n in range(35):  # more than one Firestore `in` query
        store.add_delivery(_delivery(f"msg_{n}", created=NOW + timedelta(minutes=n)))
    store.add_delivery(_delivery("msg_0b", endpoint_id="wh_2"))
    store.add_delivery(_delivery("msg_kept"))
    erased = [f"site:msg_{n}" for n in range(35)] + ["site:msg_0b", "site:unknown"]

    removed = store.erase_deliveries_for_events(erased)

    assert removed == 36
    assert store.get_delivery("msg_0") is None
    assert store.get_delivery("msg_0b") is None
    assert [d.delivery_id for d in store.list_deliveries("wh_1")] == ["msg_kept"]
    assert store.erase_deliveries_for_events([]) == 0


@dataclasses.dataclass
class AtRest:
    """A store's raw rows: open a store on them with a key, read a row's stored secret values,
    and write a row as an earlier version stored it (in clear)."""

    open_store: Callable[[SecretBox], WebhookStore]
    stored_values: Callable[[str], list[str]]
    store_in_clear: Callable[[str, str], None]


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def at_rest(request: pytest.FixtureRequest, tmp_path: Path) -> AtRest:
    if request.param == "sqlite":
        path = tmp_path / "hooks.sqlite3"

        def sqlite_values(endpoint_id: str) -> list[str]:
            conn = sqlite3.connect(path)
            row = conn.execute(
                "SELECT secrets FROM webhook_endpoints WHERE endpoint_id = ?", (endpoint_id,)
            ).fetchone()
            conn.close()
            return [item["value"] for item in json.loads(row[0])]

        def sqlite_clear(endpoint_id: str, value: str) -> None:
            item = {"value": value, "created_at": NOW.isoformat(), "expires_at": None}
            conn = sqlite3.connect(path, isolation_level=None)
            conn.execute(
                "UPDATE webhook_endpoints SET secrets = ? WHERE endpoint_id = ?",
                (json.dumps([item]), endpoint_id),
            )
            conn.close()

        return AtRest(
            lambda box: SqliteWebhookStore(SqliteDatabase(path), box=box),
            sqlite_values,
            sqlite_clear,
        )
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.firestore import firestore_client
    from backends.gcp.webhooks import FirestoreWebhookStore

    client = firestore_client(project="demo-frontdoor")
    prefix = f"t{uuid.uuid4().hex[:10]}_"
    endpoints = client.collection(f"{prefix}webhook_endpoints")

    def firestore_values(endpoint_id: str) -> list[str]:
        doc = endpoints.document(endpoint_id).get().to_dict() or {}
        return [item["value"] for item in doc["secrets"]]

    def firestore_clear(endpoint_id: str, value: str) -> None:
        item = {"value": value, "created_at": NOW, "expires_at": None}
        endpoints.document(endpoint_id).update({"secrets": [item]})

    def open_firestore(box: SecretBox) -> WebhookStore:
        store = FirestoreWebhookStore(client, prefix=prefix, box=box)
        store.seal_clear_secrets()  # what `frontdoor webhooks seal-secrets` does
        return store

    return AtRest(open_firestore, firestore_values, firestore_clear)


def test_a_stored_secret_is_sealed_and_opens_with_its_key_only(at_rest: AtRest) -> None:
    """README Data at rest: a copied database shows no webhook secret; signing still works."""
    store = at_rest.open_store(BOX)
    store.add_endpoint(_endpoint("wh_sealed"))

    (stored,) = at_rest.stored_values("wh_sealed")
    other_key = at_rest.open_store(SecretBox("another-key-0123456789"))

    assert "whsec_current" not in stored
    assert stored.startswith("sealed:v1:")
    assert store.get_endpoint("wh_sealed").secrets[0].value == "whsec_current"  # type: ignore[union-attr]
    with pytest.raises(SealedSecretError):
        other_key.get_endpoint("wh_sealed")


def test_a_secret_an_earlier_version_stored_in_clear_is_sealed_when_the_store_opens(
    at_rest: AtRest,
) -> None:
    """README Data at rest: the upgrade seals clear rows; they keep signing with the same value."""
    at_rest.open_store(BOX).add_endpoint(_endpoint("wh_clear"))
    at_rest.store_in_clear("wh_clear", "whsec_fromclear")

    reopened = at_rest.open_store(BOX)

    (stored,) = at_rest.stored_values("wh_clear")
    assert stored.startswith("sealed:v1:")
    assert reopened.get_endpoint("wh_clear").secrets[0].value == "whsec_fromclear"  # type: ignore[union-attr]
    rotated = reopened.set_secrets(
        "wh_clear",
        (WebhookSecret(value="whsec_next", created_at=NOW),),
        if_current="whsec_fromclear",
    )
    assert rotated.secrets[0].value == "whsec_next"
