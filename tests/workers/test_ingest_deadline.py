"""The ingest worker on Google Cloud while Firestore never answers (tests/black_hole.py): a
pushed batch is refused (500, so Pub/Sub delivers it again) within the deadline
(GOOGLE_CLOUD_DEADLINE, 1 s here), not after the client's own 60 to 300 s; once Firestore is
back the redelivery stores it, once, beside what was stored before. Through the real
functions-framework target, wired for BACKEND=gcp, with the emulator behind the black hole."""

from __future__ import annotations

import uuid
from datetime import timedelta
from pathlib import Path

import functions_framework
import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from backends.gcp.firestore import firestore_client
from backends.gcp.signals import FirestoreSignalStore
from services.signals import encode_ingest_message
from tests.black_hole import ANSWERED_WITHIN, BlackHole
from tests.polling import answer_within, retried_until
from tests.workers.test_ingest import new_event, push

pytestmark = pytest.mark.emulator
UNUSED = "127.0.0.1:9"  # Pub/Sub, Cloud Tasks, Cloud Storage: this path calls none of them


@pytest.fixture
def project() -> str:
    """A project of its own: the gcp wiring's collections have no prefix."""
    return f"p{uuid.uuid4().hex[:10]}"


@pytest.fixture
def worker(
    firestore_hole: BlackHole, project: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> FlaskClient:
    env = {
        "BACKEND": "gcp",
        "GOOGLE_CLOUD_PROJECT": project,
        "GOOGLE_CLOUD_DEADLINE": "1",
        "FIRESTORE_EMULATOR_HOST": firestore_hole.address,
        "PUBSUB_EMULATOR_HOST": UNUSED,
        "CLOUD_TASKS_EMULATOR_HOST": UNUSED,
        "STORAGE_EMULATOR_HOST": f"http://{UNUSED}",
        "INTERNAL_TOKEN": "internal-token-0123456789",
        "DATA_DIR": str(tmp_path / "data"),
        "PUBLIC_BASE_URL": "http://testserver",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    app = functions_framework.create_app(  # type: ignore[no-untyped-call]  # no annotations
        target="ingest_signals", source="frontdoor/functions.py", signature_type="cloudevent"
    )
    client: FlaskClient = app.test_client()
    return client


@pytest.mark.spec("signals.ingest")
def test_a_push_while_firestore_never_answers_is_refused_within_the_deadline_and_stored_once_back(
    worker: FlaskClient, firestore_hole: BlackHole, project: str
) -> None:
    """STYLE Errors: a transient backend error raises so Pub/Sub delivers again; in seconds,
    inside the subscription's ack deadline, and the redelivery loses and doubles nothing."""
    store = FirestoreSignalStore(firestore_client(project=project), settle=timedelta(0))
    store.store_events([new_event("before-outage")])  # straight to the emulator
    data = encode_ingest_message([new_event("during-outage")])

    def deliver() -> TestResponse:
        return worker.post("/", json=push(data))

    firestore_hole.go_silent()
    refused = answer_within(deliver, timeout=ANSWERED_WITHIN)
    firestore_hole.come_back()
    stored = retried_until(
        deliver, lambda a: a.status_code == 200, timeout=30, each=ANSWERED_WITHIN
    )
    again = answer_within(deliver, timeout=ANSWERED_WITHIN)

    person = store.get_person("ada@acme.com")
    assert refused.status_code == 500
    assert (stored.status_code, again.status_code) == (200, 200)
    assert person is not None
    assert person.events == 2
