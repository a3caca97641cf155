"""The Signal API's HTTP app on SQLite, or with every signal-side store on the Firestore
emulator: signals, the suppression list, webhooks, keys and pages (a collection prefix of its
own), and an ingest queue file of its own whose worker stores into them. Import the fixture
into a test module."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest

from backends.bundle import Backends
from backends.embedded.queue_table import QueueTable, queue_database
from backends.embedded.queues import DurableQueue
from backends.secret_box import SecretBox
from frontdoor.delivery_wiring import DeliveryPorts
from frontdoor.settings import Settings
from schemas.signals.events import IngestMessage
from tests.conftest import PROJECT
from workers.ingest import decode_ingest_message, store_ingest_messages

__all__ = ["drain", "signal_backends"]


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def signal_backends(
    request: pytest.FixtureRequest, settings: Settings, backends: Backends
) -> Iterator[Backends]:
    if request.param == "sqlite":
        yield backends
        return
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.firestore import firestore_client
    from backends.gcp.keys import FirestoreKeyStore
    from backends.gcp.pages import FirestorePageStore
    from backends.gcp.signals import FirestoreSignalStore
    from backends.gcp.suppressions import FirestoreSuppressionStore
    from backends.gcp.webhooks import FirestoreWebhookStore

    client = firestore_client(project=PROJECT)
    prefix = f"t{uuid.uuid4().hex[:10]}_"
    # A first read without the stores' 10 s deadline: on a busy machine the emulator's first
    # answer to a new client can take most of that.
    client.collection(f"{prefix}warm").document("up").get()
    signals = FirestoreSignalStore(client, prefix=prefix, settle=timedelta(0))
    suppressions = FirestoreSuppressionStore(client, key=uuid.uuid4().bytes, prefix=prefix)
    webhooks = FirestoreWebhookStore(
        client, prefix=prefix, box=SecretBox("test-webhook-secrets-key")
    )
    delivery = DeliveryPorts.over(
        webhooks=webhooks,
        tasks=backends.tasks,
        options=backends.delivery_options,
        accounts=signals.get_account,
        people=signals.get_person,
    )
    queue = DurableQueue(QueueTable(queue_database(settings.data_dir / "firestore")), "ingest")

    def store(messages: list[IngestMessage]) -> None:
        store_ingest_messages(
            messages, signals=signals, deliveries=delivery.deliveries, suppressions=suppressions
        )

    queue.start_batches(decode_ingest_message, store)
    yield dataclasses.replace(
        backends,
        signals=signals,
        signal_queue=queue,
        suppressions=suppressions,
        webhooks=webhooks,
        deliveries=delivery.deliveries,
        keys=FirestoreKeyStore(client, prefix=prefix),
        pages=FirestorePageStore(client, prefix=prefix),
    )
    queue.close()


def drain(backends: Backends) -> None:
    """Wait until the ingest worker has stored everything queued."""
    queue = backends.signal_queue
    assert isinstance(queue, DurableQueue)
    assert queue.drain(timeout=20)
