"""The ingest worker: its handler, its functions-framework target, and Pub/Sub push end to end."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import functions_framework
import pytest
from flask.testing import FlaskClient

from backends.embedded.queue_table import QueueTable, queue_database
from backends.embedded.queues import DurableQueue
from backends.embedded.signals import SqliteSignalStore
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import (
    AccountQuery,
    SignalStore,
    StoreResult,
    StreamPage,
    StreamQuery,
    UnavailableError,
)
from schemas.signals.events import Event, NewEvent, normalize_event
from schemas.signals.page_funnel import FunnelRows
from schemas.signals.rollups import AccountRollup, PersonRollup
from services.signals import encode_ingest_message
from tests.emulators import REPO, ManagedProcess, free_port, start_process, tcp_open
from tests.polling import wait_for
from workers import ingest
from workers.ingest import decode_ingest_message, handle_ingest_message, store_ingest_messages


def new_event(row_id: str, email: str = "ada@acme.com") -> NewEvent:
    now = datetime.now(UTC)
    raw = {
        "source": "crm",
        "row_id": row_id,
        "type": "book_call",
        "occurred_at": now.isoformat(),
        "person": {"email": email},
    }
    event = normalize_event(raw, now=now)
    assert isinstance(event, NewEvent)
    return event


class RecordingDeliveries:
    """A real SignalDeliveries that keeps what it was asked to deliver."""

    def __init__(self) -> None:
        self.event_ids: list[str] = []

    def enqueue_for_event(self, event: Event) -> None:
        self.event_ids.append(event.id)

    def enqueue_for_events(self, events: Sequence[Event]) -> None:
        for event in events:
            self.enqueue_for_event(event)


class DownSignalStore:
    """A SignalStore whose backend is down: every call is UnavailableError."""

    def store_events(self, events: Sequence[NewEvent]) -> StoreResult:
        raise UnavailableError("down")

    def read_stream(self, query: StreamQuery) -> StreamPage:
        raise UnavailableError("down")

    def get_account(self, domain: str) -> AccountRollup | None:
        raise UnavailableError("down")

    def list_accounts(self, query: AccountQuery) -> tuple[list[AccountRollup], bool]:
        raise UnavailableError("down")

    def get_person(self, email: str) -> PersonRollup | None:
        raise UnavailableError("down")

    def erase_person(self, email: str) -> list[str]:
        raise UnavailableError("down")

    def read_page_funnel(
        self, slug: str, *, first_day: int, last_day: int, dimension: str | None
    ) -> FunnelRows:
        raise UnavailableError("down")


@pytest.fixture
def store(tmp_path: Path) -> SignalStore:
    return SqliteSignalStore(SqliteDatabase(tmp_path / "signals.sqlite3"))


@pytest.mark.spec("signals.ingest")
def test_a_redelivered_message_stores_once_and_reaches_deliveries_each_time(
    store: SignalStore,
) -> None:
    """DESIGN Ingest: stored once by id; deliveries dedupe by event id, so both calls reach them."""
    deliveries = RecordingDeliveries()
    data = encode_ingest_message([new_event("1"), new_event("2")])

    first = handle_ingest_message(data, signals=store, deliveries=deliveries)
    second = handle_ingest_message(data, signals=store, deliveries=deliveries)

    assert first is not None
    assert second is not None
    assert first.new_ids == {"crm:1", "crm:2"}
    assert second.new_ids == frozenset()
    assert deliveries.event_ids == ["crm:1", "crm:2", "crm:1", "crm:2"]


@pytest.mark.spec("signals.ingest")
def test_several_queued_messages_are_stored_together_in_chunks_each_event_once(
    store: SignalStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embedded queue's batch: one store call per STORE_CHUNK events, a repeated id (a
    message queued twice) stored once, every event handed to deliveries."""
    monkeypatch.setattr(ingest, "STORE_CHUNK", 3)
    deliveries = RecordingDeliveries()
    bodies = [
        encode_ingest_message([new_event("1"), new_event("2")]),
        encode_ingest_message([new_event("3", "bo@beta.com")]),
        encode_ingest_message([new_event("1"), new_event("2")]),  # queued twice
    ]
    messages = [m for m in map(decode_ingest_message, bodies) if m is not None]

    store_ingest_messages(messages, signals=store, deliveries=deliveries)

    page = store.read_stream(StreamQuery(limit=10))
    assert sorted(e.id for e in page.events) == ["crm:1", "crm:2", "crm:3"]
    assert deliveries.event_ids == ["crm:1", "crm:2", "crm:3", "crm:1", "crm:2"]
    person = store.get_person("ada@acme.com")
    assert person is not None
    assert person.events == 2


@pytest.mark.spec("signals.ingest")
def test_an_event_the_store_refuses_is_dead_lettered_alone_and_the_rest_of_its_batch_is_stored(
    tmp_path: Path,
) -> None:
    """The embedded ingest queue hands its worker the due messages together (one store call);
    when the store refuses one event, the others are stored on that same delivery, the roll-ups
    count them once, and only the refused one's message ends in the dead letters."""
    db = SqliteDatabase(tmp_path / "signals.sqlite3")
    store = SqliteSignalStore(db)
    with db.transaction() as conn:  # the store's own file refuses this one event's row
        conn.execute(
            "CREATE TRIGGER refuse_one BEFORE INSERT ON signal_events"
            " WHEN NEW.id = 'crm:refused' BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )
    table = QueueTable(queue_database(tmp_path))
    bodies = [encode_ingest_message([new_event(f"v{i}")]) for i in range(4)]
    bodies.insert(2, encode_ingest_message([new_event("refused")]))
    DurableQueue(table, "ingest").publish_batch(bodies)  # due together before the worker starts
    deliveries = RecordingDeliveries()
    queue = DurableQueue(
        table, "ingest", threads=1, batch=32, max_attempts=3, backoff=lambda attempt: 0.001
    )
    queue.start_batches(
        decode_ingest_message,
        lambda messages: store_ingest_messages(messages, signals=store, deliveries=deliveries),
    )
    assert queue.drain(10)
    queue.close()

    page = store.read_stream(StreamQuery(limit=10))
    assert sorted(e.id for e in page.events) == ["crm:v0", "crm:v1", "crm:v2", "crm:v3"]
    assert sorted(deliveries.event_ids) == ["crm:v0", "crm:v1", "crm:v2", "crm:v3"]
    account = store.get_account("acme.com")
    assert account is not None
    assert account.events == 4
    dead = table.dead_letters("ingest")
    assert [(d.body, d.attempts) for d in dead] == [(bodies[2], 3)]
    assert table.waiting("ingest") == 0


@pytest.mark.spec("signals.ingest")
@pytest.mark.parametrize("data", [b"garbage", b"{}", b'{"events": [{"id": 1}]}'])
def test_a_malformed_message_is_acked_without_storing(store: SignalStore, data: bytes) -> None:
    """STYLE Errors: a malformed message is logged and acked (the handler returns)."""
    assert handle_ingest_message(data, signals=store) is None
    assert decode_ingest_message(data) is None  # the batch worker acks it alone


@pytest.mark.spec("signals.ingest")
def test_a_backend_outage_raises_so_the_message_is_delivered_again() -> None:
    """STYLE Errors: a transient backend error raises (Pub/Sub redelivers)."""
    with pytest.raises(UnavailableError):
        handle_ingest_message(encode_ingest_message([new_event("1")]), signals=DownSignalStore())


# --- through the functions-framework target, with a real push envelope ---------------------


def push(data: bytes) -> dict[str, Any]:
    return {
        "subscription": "projects/demo-frontdoor/subscriptions/signal-ingest",
        "message": {
            "data": base64.b64encode(data).decode(),
            "attributes": {},
            "messageId": "7",
            "publishTime": "2026-11-22T09:00:00Z",
        },
    }


@pytest.fixture
def worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FlaskClient:
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PUBLIC_BASE_URL", "http://testserver")
    app = functions_framework.create_app(  # type: ignore[no-untyped-call]  # no annotations
        target="ingest_signals", source="frontdoor/functions.py", signature_type="cloudevent"
    )
    client: FlaskClient = app.test_client()
    return client


@pytest.mark.spec("signals.ingest")
def test_the_function_target_stores_a_pushed_batch_once_however_often_it_arrives(
    worker: FlaskClient, tmp_path: Path
) -> None:
    """DESIGN Shape: Pub/Sub push to the ingest worker; redelivery stores nothing twice."""
    data = encode_ingest_message([new_event("1"), new_event("2", email="bob@acme.com")])

    statuses = [worker.post("/", json=push(data)).status_code for _ in range(2)]

    store = SqliteSignalStore(SqliteDatabase(tmp_path / "data" / "frontdoor.sqlite3"))
    account = store.get_account("acme.com")
    assert statuses == [200, 200]
    assert account is not None
    assert (account.events, account.stage) == (2, "hand_raiser")


@pytest.mark.spec("signals.ingest")
def test_the_function_target_acks_a_malformed_push_with_2xx(worker: FlaskClient) -> None:
    """functions-framework: a malformed message answers 2xx so Pub/Sub stops sending it."""
    for body in (push(b"not json"), push(b"")):
        response = worker.post("/", json=body)
        assert 200 <= response.status_code < 300


# --- end to end through the Pub/Sub emulator ------------------------------------------------


@pytest.mark.emulator
@pytest.mark.spec("signals.ingest")
def test_a_published_batch_reaches_firestore_through_a_pubsub_push_to_the_worker(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """DESIGN Shape: API publishes, Pub/Sub pushes to the worker, the worker writes Firestore."""
    emulators: dict[str, ManagedProcess] = {
        name: request.getfixturevalue(f"{name}_emulator")
        for name in ("firestore", "pubsub", "tasks", "storage")
    }
    from google.cloud import pubsub_v1  # type: ignore[attr-defined]  # re-exported

    from backends.gcp.firestore import firestore_client
    from backends.gcp.pubsub import PubSubPublisher
    from backends.gcp.signals import FirestoreSignalStore

    project = f"p{uuid.uuid4().hex[:10]}"
    port = free_port()
    env = {
        "BACKEND": "gcp",
        "GOOGLE_CLOUD_PROJECT": project,
        "DATA_DIR": str(tmp_path / "data"),
        "PUBLIC_BASE_URL": "http://testserver",
        "CLOUD_TASKS_EMULATOR_HOST": emulators["tasks"].host,
        "STORAGE_EMULATOR_HOST": f"http://{emulators['storage'].host}",
    }
    exe = str(REPO / ".venv" / "bin" / "functions-framework")
    cmd = [exe, "--source=frontdoor/functions.py", "--target=ingest_signals"]
    cmd += ["--signature-type=cloudevent", "--host=127.0.0.1", f"--port={port}"]
    worker = start_process("ingest-worker", cmd, port=port, ready=tcp_open, env=env, cwd=REPO)
    try:
        publisher = pubsub_v1.PublisherClient()
        subscriber = pubsub_v1.SubscriberClient()
        topic = publisher.create_topic(name=f"projects/{project}/topics/signal-events").name
        subscriber.create_subscription(
            name=f"projects/{project}/subscriptions/ingest-push",
            topic=topic,
            push_config=pubsub_v1.types.PushConfig(push_endpoint=f"http://127.0.0.1:{port}/"),
        )
        PubSubPublisher(project=project, topic="signal-events").publish(
            encode_ingest_message([new_event("e2e")])
        )
        store = FirestoreSignalStore(firestore_client(project=project), settle=timedelta(0))
        wait_for(lambda: store.get_person("ada@acme.com") is not None, what="the pushed event")

        person = store.get_person("ada@acme.com")
        assert person is not None
        assert (person.events, person.stage, person.domain) == (1, "hand_raiser", "acme.com")
    finally:
        worker.stop()
