"""The other Google Cloud clients behind a host that never answers (tests/black_hole.py): a
Pub/Sub publish, a Cloud Tasks task and a Cloud Storage read or upload give up within the
deadline (GOOGLE_CLOUD_DEADLINE, 1 s here) as UnavailableError (a 503 on a request, a retry of
a queued message), not after the client's own 20 to 600 s; once the host is back the retry
succeeds and nothing sent before is lost. Real clients, the emulators behind the black hole."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient
from google.cloud import (  # type: ignore[attr-defined,unused-ignore]  # re-exported, no stubs
    pubsub_v1,
    storage,
)

from api.app import create_app
from backends.bundle import Backends
from backends.gcp.blobs import GcsBlobStore
from backends.gcp.pubsub import PubSubPublisher
from backends.gcp.tasks import CloudTasksTaskQueue, cloud_tasks_client, ensure_queue, queue_path
from backends.ports import Blob, HttpTask, UnavailableError
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from tests.api.test_collect import FORM, SITE
from tests.api.test_collect import URL as COLLECT
from tests.api.test_signals import BASE, INGEST, raw_event
from tests.black_hole import ANSWERED_WITHIN, TEST_DEADLINE, BlackHole, black_hole
from tests.conftest import PROJECT
from tests.emulators import ManagedProcess
from tests.polling import answer_within, retried_until
from tests.webhook_receiver import running_receiver

pytestmark = pytest.mark.emulator


def refused_within_the_deadline(call: Callable[[], Any]) -> UnavailableError:
    """The UnavailableError `call()` raises, within ANSWERED_WITHIN seconds."""
    with pytest.raises(UnavailableError) as raised:
        answer_within(call, timeout=ANSWERED_WITHIN)
    return raised.value


def until_it_works(call: Callable[[], Any]) -> Any:
    """`call()` again while it raises UnavailableError (the client reconnects on its own
    back-off once the host is back); its result."""

    def attempt() -> tuple[bool, Any]:
        try:
            return True, call()
        except UnavailableError:
            return False, None

    return retried_until(attempt, lambda outcome: outcome[0], timeout=30, each=ANSWERED_WITHIN)[1]


def refused(answer: Any) -> bool:
    """A 503, or a lead form sent back to its page because the queue did not take it."""
    return bool(
        answer.status_code == 503 or "error=unavailable" in answer.headers.get("Location", "")
    )


@pytest.fixture
def pubsub_hole(pubsub_emulator: ManagedProcess) -> Iterator[BlackHole]:
    with black_hole(pubsub_emulator.host) as found:
        yield found


@pytest.mark.spec("signals.ingest")
def test_an_event_batch_and_a_lead_form_are_refused_within_the_deadline_while_pubsub_hangs(
    settings: Settings,
    backends: Backends,
    pubsub_hole: BlackHole,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """signals-api.md Errors: POST events and /collect publish to Pub/Sub; a publish nobody
    answers is, in seconds, a 503 (a lead form: its page's `?error=unavailable`, with the same
    Retry-After), and the retry once it is back is published."""
    topic = f"t{uuid.uuid4().hex[:10]}"
    admin = pubsub_v1.PublisherClient()
    subscriber = pubsub_v1.SubscriberClient()
    topic_path = admin.create_topic(name=f"projects/{PROJECT}/topics/{topic}").name
    sub_path = f"projects/{PROJECT}/subscriptions/{topic}-pull"
    subscriber.create_subscription(name=sub_path, topic=topic_path)
    with monkeypatch.context() as built:  # the client reads its emulator variable once
        built.setenv("PUBSUB_EMULATOR_HOST", pubsub_hole.address)
        publisher = pubsub_v1.PublisherClient()
    queue = PubSubPublisher(project=PROJECT, topic=topic, client=publisher, deadline=TEST_DEADLINE)
    client = create_app(
        app_config(settings), dataclasses.replace(backends, signal_queue=queue)
    ).test_client()

    def send(api: FlaskClient = client) -> Any:
        return api.post(f"{BASE}/events", json={"events": [raw_event("1")]}, headers=INGEST)

    def collect(api: FlaskClient = client) -> Any:
        return api.post(COLLECT, data=FORM, headers=SITE)

    try:
        pubsub_hole.go_silent()
        during = [answer_within(call, timeout=ANSWERED_WITHIN) for call in (send, collect)]
        pubsub_hole.come_back()
        after = [
            retried_until(call, lambda a: not refused(a), timeout=30, each=ANSWERED_WITHIN)
            for call in (send, collect)
        ]
        pulled = subscriber.pull(subscription=sub_path, max_messages=10, timeout=10)
    finally:
        publisher.stop()

    assert [(a.status_code, a.headers["Retry-After"]) for a in during] == [(503, "5"), (303, "5")]
    assert during[0].get_json()["error"] == "unavailable"
    assert during[1].headers["Location"] == "/p/growth-audit?error=unavailable#leadform"
    assert [a.status_code for a in after] == [202, 303]
    assert after[1].headers["Location"] == "/p/growth-audit?submitted=1"
    assert len(pulled.received_messages) >= 2  # at least once: Pub/Sub's own promise


@pytest.mark.spec("signals.webhooks")
def test_a_task_is_refused_within_the_deadline_while_cloud_tasks_never_answers(
    tasks_emulator: ManagedProcess,
) -> None:
    """DESIGN Deliveries: the delivery is retried by its queue; the task sent once the service
    is back is posted."""
    path = queue_path(project=PROJECT, location="us-central1", queue=f"q{uuid.uuid4().hex[:12]}")
    direct = cloud_tasks_client(emulator_host=tasks_emulator.host)
    ensure_queue(direct, path)
    with running_receiver() as receiver, black_hole(tasks_emulator.host) as hole:
        tasks = CloudTasksTaskQueue(
            lambda: cloud_tasks_client(emulator_host=hole.address),
            queue_path=path,
            deadline=TEST_DEADLINE,
        )
        task = HttpTask(
            name=f"t-{uuid.uuid4().hex}",
            url=f"{receiver.url}/hook",
            body=b"{}",
            headers={"Content-Type": "application/json"},
        )
        assert tasks.enqueue(dataclasses.replace(task, name=f"t-{uuid.uuid4().hex}"))

        hole.go_silent()
        refused_within_the_deadline(lambda: tasks.enqueue(task))
        hole.come_back()
        accepted = until_it_works(lambda: tasks.enqueue(task))
        posted = receiver.wait_for(2)
        tasks.close()
    direct.transport.close()  # type: ignore[no-untyped-call]  # untyped in the client

    assert accepted
    assert [p.path for p in posted] == ["/hook", "/hook"]


@pytest.mark.spec("pages.generate")
def test_a_hero_image_upload_and_read_are_refused_within_the_deadline_while_storage_never_answers(
    storage_emulator: ManagedProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The generation worker's upload is retried with its message; the image stored before the
    outage reads back after it."""
    bucket = f"b-{uuid.uuid4().hex[:12]}"
    storage.Client(project=PROJECT).create_bucket(bucket)
    blob = Blob(data=b"RIFF....WEBP", content_type="image/webp", cache_control="no-cache")
    with black_hole(storage_emulator.host) as hole:
        with monkeypatch.context() as built:  # the client reads its emulator variable once
            built.setenv("STORAGE_EMULATOR_HOST", f"http://{hole.address}")
            client = storage.Client(project=PROJECT)
        blobs = GcsBlobStore(client, bucket_name=bucket, deadline=TEST_DEADLINE)
        until_it_works(lambda: blobs.put_blob("before.webp", blob))

        hole.go_silent()
        refused_within_the_deadline(lambda: blobs.put_blob("during.webp", blob))
        refused_within_the_deadline(lambda: blobs.get_blob("before.webp"))
        hole.come_back()
        until_it_works(lambda: blobs.put_blob("during.webp", blob))

        assert until_it_works(lambda: blobs.get_blob("before.webp")) == blob
        assert until_it_works(lambda: blobs.get_blob("during.webp")) == blob
