"""Generation on the emulators: API -> Pub/Sub -> push -> functions-framework worker process.

The worker is a real `functions-framework` process; Pub/Sub, Firestore and Cloud Storage are
the emulators; the authoring model is an OpenAI-compatible wire server in this process that
counts the writer calls. Redelivery is Pub/Sub's own (about every second on the emulator).
"""

from __future__ import annotations

import json
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.app import create_app
from backends.bundle import Backends
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from tests.conftest import CONTENT_KEY
from tests.emulators import REPO, ManagedProcess, free_port, start_process, tcp_open
from tests.polling import wait_for
from tests.wire import providers
from tests.wire.server import WireServer

pytestmark = [pytest.mark.emulator, pytest.mark.spec("content.generate")]

KEY = {"x-api-key": CONTENT_KEY}
GENERATE = "/api/public/content/pages/generate"
INTERNAL_TOKEN = "e2e-internal-token-0123456789"
LEASE_SECONDS = "10"


@dataclass
class Stack:
    """One isolated emulated deployment: its own project, topic, bucket and worker."""

    project: str
    topic: str
    bucket: str
    wire: WireServer
    client: FlaskClient
    backends: Backends
    worker: ManagedProcess
    worker_port: int
    worker_env: dict[str, str]

    def start_worker(self) -> None:
        self.worker = _start_worker(self.worker_port, self.worker_env)

    def writer_calls(self, slug: str) -> int:
        """Writer calls the wire server saw for this page's brief."""
        return sum(
            1 for r in self.wire.requests if f'\\"slug\\": \\"{slug}\\"' in json.dumps(r.body)
        )


def _start_worker(port: int, env: dict[str, str]) -> ManagedProcess:
    cmd = [
        str(REPO / ".venv" / "bin" / "functions-framework"),
        "--source=frontdoor/functions.py",
        "--target=generate_page",
        "--signature-type=cloudevent",
        "--host=127.0.0.1",
        f"--port={port}",
    ]
    return start_process(
        "generation-worker", cmd, port=port, ready=tcp_open, env=env, cwd=REPO, timeout=120
    )


@pytest.fixture(scope="module")
def stack(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    tasks_emulator: ManagedProcess,
) -> Iterator[Stack]:
    """One deployment for the module (a worker process takes seconds to start); slugs differ."""
    tmp_path = tmp_path_factory.mktemp("generation-e2e")
    for name in ("firestore_emulator", "pubsub_emulator", "storage_emulator"):
        request.getfixturevalue(name)
    from google.cloud import pubsub_v1, storage  # type: ignore[attr-defined,unused-ignore]  # no stubs

    project, suffix = f"e2e-{uuid.uuid4().hex[:8]}", uuid.uuid4().hex[:8]
    topic, bucket = f"generation-{suffix}", f"assets-{suffix}"
    wire = WireServer(providers.openai_page()).start()
    storage.Client(project=project).create_bucket(bucket)
    publisher, subscriber = pubsub_v1.PublisherClient(), pubsub_v1.SubscriberClient()
    publisher.create_topic(name=publisher.topic_path(project, topic))
    port = free_port()
    subscriber.create_subscription(
        request={
            "name": subscriber.subscription_path(project, f"push-{suffix}"),
            "topic": publisher.topic_path(project, topic),
            "push_config": {"push_endpoint": f"http://127.0.0.1:{port}/"},
            "ack_deadline_seconds": 30,
        }
    )
    common = {
        "BACKEND": "gcp",
        "GOOGLE_CLOUD_PROJECT": project,
        "PUBLIC_BASE_URL": "http://testserver",
        "CONTENT_API_KEY": CONTENT_KEY,
        "INTERNAL_TOKEN": INTERNAL_TOKEN,
        "CLOUD_TASKS_EMULATOR_HOST": tasks_emulator.host,
        "CLOUD_TASKS_QUEUE": f"q-{suffix}",
        "BLOBS_BUCKET": bucket,
        "GENERATION_TOPIC": topic,
    }
    worker_env = {
        **common,
        "DATA_DIR": str(tmp_path / "worker"),
        "AUTHOR_MODEL": "openai",
        "AUTHOR_BASE_URL": f"{wire.url}/v1",
        "AUTHOR_API_KEY": "wire-test-key-0123456789",
        "JOB_LEASE_SECONDS": LEASE_SECONDS,
        "LOG_LEVEL": "INFO",
    }
    settings = Settings(
        backend="gcp",
        google_cloud_project=project,
        data_dir=tmp_path / "api",
        public_base_url="http://testserver",
        content_api_key=CONTENT_KEY,
        internal_token=INTERNAL_TOKEN,
        cloud_tasks_emulator_host=tasks_emulator.host,
        cloud_tasks_queue=f"q-{suffix}",
        blobs_bucket=bucket,
        generation_topic=topic,
        generate_wait_seconds=60,
    )
    backends = build_backends(settings)
    stack = Stack(
        project=project,
        topic=topic,
        bucket=bucket,
        wire=wire,
        client=create_app(app_config(settings), backends).test_client(),
        backends=backends,
        worker=_start_worker(port, worker_env),
        worker_port=port,
        worker_env=worker_env,
    )
    yield stack
    stack.worker.stop()  # the current worker: a test may have killed and replaced the first
    backends.close()
    wire.stop()
    subscriber.close()


def brief(slug: str, **changes: Any) -> dict[str, Any]:
    return {
        "slug": slug,
        "topic": "Attribution you can check",
        "icp": "Heads of growth at Series A SaaS companies",
        "offer": "A reconciled attribution table. Every number the sources disagree on is flagged.",
        "publish": True,
        **changes,
    }


def job_status(stack: Stack, job_id: str) -> str:
    job = stack.backends.jobs.get_job(job_id)
    return job.status if job is not None else "missing"


def test_the_api_publishes_and_the_pushed_worker_stores_page_and_image(stack: Stack) -> None:
    """The page lands in Firestore and its hero image in the storage emulator."""
    response = stack.client.post(GENERATE, json=brief("emulated-page"), headers=KEY)

    body = response.get_json()
    assert response.status_code == 201, body
    stored = stack.backends.pages.get_page("emulated-page")
    assert stored is not None
    assert stored.status == "published"
    image_url = body["page"]["hero_image_url"]
    assert f"/{stack.bucket}/hero/emulated-page/" in image_url
    with urllib.request.urlopen(image_url, timeout=10) as answer:  # noqa: S310  # loopback emulator
        assert answer.read(8) == b"\x89PNG\r\n\x1a\n"  # the PNG: the page's share image
    assert stack.writer_calls("emulated-page") == 1


def test_the_same_message_delivered_three_times_makes_one_page_and_one_writer_call(
    stack: Stack,
) -> None:
    """Duplicate deliveries: the finished steps never run twice."""
    from google.cloud import pubsub_v1  # type: ignore[attr-defined,unused-ignore]  # no stubs

    accepted = stack.client.post(
        GENERATE, json=brief("triple-page"), headers={**KEY, "Prefer": "respond-async"}
    )
    job_id = accepted.get_json()["job"]["id"]
    publisher = pubsub_v1.PublisherClient()
    for _ in range(2):  # the API published it once; two more copies of the same message
        publisher.publish(
            publisher.topic_path(stack.project, stack.topic), f'{{"job_id":"{job_id}"}}'.encode()
        ).result(timeout=30)

    wait_for(lambda: job_status(stack, job_id) == "succeeded")
    wait_for(lambda: stack.worker.log_path.read_text().count("duplicate delivery acked") >= 2)

    stored = stack.backends.pages.get_page("triple-page")
    assert stored is not None
    assert stored.version == 1
    assert stack.writer_calls("triple-page") == 1


def test_a_worker_killed_mid_job_is_redelivered_and_ends_with_one_page(stack: Stack) -> None:
    """SIGKILL during the writer call; Pub/Sub redelivers to a new worker: <= 2 writer calls."""
    stack.wire.hold()
    accepted = stack.client.post(
        GENERATE, json=brief("killed-page"), headers={**KEY, "Prefer": "respond-async"}
    )
    job_id = accepted.get_json()["job"]["id"]
    assert stack.wire.arrived.wait(timeout=60), "the worker never called the writer"

    stack.worker.kill()
    stack.wire.release.set()
    stack.start_worker()

    wait_for(lambda: job_status(stack, job_id) == "succeeded", timeout=90)
    stored = stack.backends.pages.get_page("killed-page")
    job = stack.backends.jobs.get_job(job_id)
    assert stored is not None
    assert stored.version == 1
    assert job is not None
    assert job.writer_calls == 2
    assert stack.writer_calls("killed-page") <= 2
