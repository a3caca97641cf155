"""The Signal API served on a loopback port over either signal store: SQLite (the embedded
backends as built) or the Firestore emulator, with events stored as they are published (the
work of the Pub/Sub push to the ingest worker) and deliveries made from that store's roll-ups."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest

from backends.bundle import Backends
from backends.ports import SignalStore
from frontdoor.settings import Settings
from services.deliveries import WebhookDeliveries
from tests.conftest import PROJECT
from tests.loopback_app import Served, served
from workers.ingest import handle_ingest_message


class StoringQueue:
    """A SignalQueue that hands each message to the ingest worker at once, as a push does."""

    def __init__(self, signals: SignalStore, deliveries: WebhookDeliveries) -> None:
        self._signals = signals
        self._deliveries = deliveries

    def publish(self, data: bytes) -> None:
        handle_ingest_message(data, signals=self._signals, deliveries=self._deliveries)

    def drain(self, timeout: float = 10.0) -> bool:
        """Nothing waits: every message was stored when it was published."""
        return True


def on_firestore(backends: Backends) -> Backends:
    """The backends with a Firestore signal store of its own (a fresh collection prefix)."""
    from backends.gcp.firestore import firestore_client
    from backends.gcp.signals import FirestoreSignalStore

    store = FirestoreSignalStore(
        firestore_client(project=PROJECT),
        prefix=f"t{uuid.uuid4().hex[:10]}_",
        settle=timedelta(0),
    )
    deliveries = WebhookDeliveries(
        webhooks=backends.webhooks,
        tasks=backends.tasks,
        options=backends.delivery_options,
        clock=backends.clock,
        accounts=store.get_account,
        people=store.get_person,
    )
    return dataclasses.replace(
        backends,
        signals=store,
        signal_queue=StoringQueue(store, deliveries),
        deliveries=deliveries,
    )


@pytest.fixture(
    name="serve_signals",
    params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)],
)
def serve_signals_fixture(request: pytest.FixtureRequest) -> Callable[..., object]:
    """`serve_signals(settings)`: the app served over SQLite or the Firestore emulator."""
    adapt = None
    if request.param == "firestore":
        request.getfixturevalue("firestore_emulator")
        adapt = on_firestore

    @contextmanager
    def serve(settings: Settings) -> Iterator[Served]:
        with served(settings, adapt=adapt) as app:
            yield app

    return serve
