"""Contract suite for TaskQueue: in-process threads, and Cloud Tasks on gcloud-tasks-emulator."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from backends.embedded.queue_table import QueueTable, queue_database
from backends.embedded.tasks import DurableTaskQueue
from backends.ports import HttpTask, TaskQueue, UnavailableError
from tests.polling import wait_for
from tests.webhook_receiver import Receiver, running_receiver

pytestmark = pytest.mark.spec("signals.webhooks")

SHORT_DELAYS = (timedelta(milliseconds=50), timedelta(milliseconds=50))


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


@pytest.fixture(params=["inprocess", pytest.param("cloudtasks", marks=pytest.mark.emulator)])
def queue(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TaskQueue]:
    if request.param == "inprocess":
        inprocess = DurableTaskQueue(
            QueueTable(queue_database(tmp_path)), retry_delays=SHORT_DELAYS
        )
        inprocess.start()
        yield inprocess
        inprocess.close()
        return
    emulator = request.getfixturevalue("tasks_emulator")
    from backends.gcp.tasks import CloudTasksTaskQueue, cloud_tasks_client, queue_path

    path = queue_path(
        project="demo-frontdoor", location="us-central1", queue=f"q{uuid.uuid4().hex[:12]}"
    )
    cloud = CloudTasksTaskQueue(
        lambda: cloud_tasks_client(emulator_host=emulator.host), queue_path=path, create_queue=True
    )
    yield cloud
    cloud.close()


def _task(url: str, *, name: str | None = None, at: datetime | None = None) -> HttpTask:
    return HttpTask(
        name=name or f"t-{uuid.uuid4().hex}",
        url=url,
        body=b'{"hello": "world"}',
        headers={"Content-Type": "application/json", "X-Internal-Token": "tok"},
        schedule_time=at,
    )


def test_an_enqueued_task_is_posted_with_its_body_and_headers(
    queue: TaskQueue, receiver: Receiver
) -> None:
    """DESIGN Deliveries: outbound deliveries ride the task queue as HTTP POSTs."""
    accepted = queue.enqueue(_task(f"{receiver.url}/hook"))

    got = receiver.wait_for(1)[0]

    assert accepted
    assert (got.path, got.body) == ("/hook", b'{"hello": "world"}')
    assert got.headers["x-internal-token"] == "tok"
    assert got.headers["content-type"] == "application/json"


def test_a_scheduled_task_is_not_posted_before_its_time(
    queue: TaskQueue, receiver: Receiver
) -> None:
    """DESIGN Deliveries: retries wait for their scheduled time."""
    at = datetime.now(UTC) + timedelta(seconds=1.5)

    queue.enqueue(_task(receiver.url, at=at))
    got = receiver.wait_for(1)[0]

    assert got.at >= at.timestamp() - 0.05


def test_enqueueing_a_task_name_twice_queues_it_once(
    request: pytest.FixtureRequest, queue: TaskQueue, receiver: Receiver
) -> None:
    """DESIGN Deliveries: a task name dedupes, so a redelivered ingest message sends once."""
    if "cloudtasks" in request.node.callspec.id:
        pytest.skip(
            "gcloud-tasks-emulator has no task-name dedup (notes/gcp-emulators.md §4);"
            " production answers ALREADY_EXISTS"
        )
    first = queue.enqueue(_task(receiver.url, name="same-name"))
    second = queue.enqueue(_task(receiver.url, name="same-name"))
    queue.enqueue(_task(receiver.url, name="sentinel"))

    receiver.wait_for(2)

    assert (first, second) == (True, False)
    assert len(receiver.requests) == 2


def test_the_in_process_queue_retries_a_task_until_it_answers_2xx(tmp_path: Path) -> None:
    """DESIGN three ways to run: embedded tasks run in-process with retries."""
    queue = DurableTaskQueue(QueueTable(queue_database(tmp_path)), retry_delays=SHORT_DELAYS)
    queue.start()
    with running_receiver([500, 503]) as receiver:
        queue.enqueue(_task(receiver.url, name="flaky"))

        got = receiver.wait_for(3)

    queue.close()
    assert [r.status for r in got] == [500, 503, 200]
    assert [r.headers["x-cloudtasks-taskretrycount"] for r in got] == ["0", "1", "2"]


def test_the_in_process_queue_dead_letters_a_task_after_its_last_retry(tmp_path: Path) -> None:
    """DESIGN three ways to run: retries are bounded, like a Cloud Tasks queue's max attempts;
    the task is then held as a dead letter an operator can list and replay."""
    queue = DurableTaskQueue(QueueTable(queue_database(tmp_path)), retry_delays=SHORT_DELAYS)
    queue.start()
    with running_receiver(default_status=500) as receiver:
        queue.enqueue(_task(receiver.url, name="always-fails"))
        queue.enqueue(
            _task(receiver.url, name="later", at=datetime.now(UTC) + timedelta(seconds=1))
        )

        got = receiver.wait_for(4)
        wait_for(lambda: len(queue.queue.table.dead_letters("tasks")) == 1)

    queue.close()
    names = [r.headers["x-cloudtasks-taskname"] for r in got]
    assert names.count("always-fails") == 3
    (dead,) = queue.queue.table.dead_letters("tasks")
    assert (dead.name, dead.attempts) == ("always-fails", 3)


def test_a_task_the_queue_file_refuses_raises_unavailable_and_is_not_queued(
    tmp_path: Path,
) -> None:
    """The port's promise (TaskQueue.enqueue raises UnavailableError, as Cloud Tasks' adapter
    does: tests/backends/test_cloud_call_deadline.py): a webhook replay answers 503, not 500."""
    db = queue_database(tmp_path)
    queue = DurableTaskQueue(QueueTable(db), retry_delays=SHORT_DELAYS)
    db.connection().execute("PRAGMA query_only = ON")  # this thread's writes are refused

    with pytest.raises(UnavailableError):
        queue.enqueue(_task("http://127.0.0.1:9/hook", name="refused"))

    db.connection().execute("PRAGMA query_only = OFF")
    assert queue.queue.waiting() == 0
    assert queue.enqueue(_task("http://127.0.0.1:9/hook", name="refused"))  # its name is free
