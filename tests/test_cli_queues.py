"""`frontdoor queues`: an operator lists the dead letters and replays them, of the
embedded queue file and, with BACKEND=gcp, of the Pub/Sub hold subscriptions."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from backends.embedded.queue_table import QueueTable, queue_database
from frontdoor.cli import cli
from tests.emulators import ManagedProcess

PROJECT = "demo-frontdoor"


def frontdoor(data_dir: Path, *args: str) -> Result:
    return CliRunner().invoke(
        cli, list(args), obj={}, env={"DATA_DIR": str(data_dir), "BACKEND": "embedded"}
    )


def _bury(table: QueueTable, queue: str, body: bytes) -> None:
    table.put(queue, [body])
    (leased,) = table.claim(queue, owner="w", lease_seconds=60, max_attempts=1)
    assert not table.retry(leased, delay=0, error="RuntimeError: target down", max_attempts=1)


def test_dead_letters_lists_each_with_its_queue_attempts_and_last_error(tmp_path: Path) -> None:
    table = QueueTable(queue_database(tmp_path))
    _bury(table, "tasks", b'{"name": "msg_1"}')
    _bury(table, "ingest", b'{"events": []}')

    listed = frontdoor(tmp_path, "queues", "dead-letters")
    only_tasks = frontdoor(tmp_path, "queues", "dead-letters", "--queue", "tasks")

    assert listed.exit_code == 0, listed.output
    assert "tasks" in listed.output
    assert "ingest" in listed.output
    assert "RuntimeError: target down" in listed.output
    assert "ingest" not in only_tasks.output


def test_replay_queues_dead_letters_again_from_their_first_attempt(tmp_path: Path) -> None:
    table = QueueTable(queue_database(tmp_path))
    _bury(table, "tasks", b"one")
    _bury(table, "tasks", b"two")
    first = table.dead_letters("tasks")[0]

    by_id = frontdoor(tmp_path, "queues", "replay", str(first.id))
    rest = frontdoor(tmp_path, "queues", "replay", "--all")

    assert "replayed 1 dead letter(s)" in by_id.output
    assert "replayed 1 dead letter(s)" in rest.output
    assert table.dead_letters() == []
    leased = table.claim("tasks", owner="w2", lease_seconds=60, max_attempts=5, limit=10)
    assert sorted((m.body, m.attempts) for m in leased) == [(b"one", 1), (b"two", 1)]


def test_queues_without_a_queue_file_says_where_it_looked(tmp_path: Path) -> None:
    result = frontdoor(tmp_path / "empty", "queues", "dead-letters")

    assert result.exit_code != 0
    assert "no queue file" in result.output


def test_replaying_an_id_that_is_no_dead_letter_says_so_and_fails(tmp_path: Path) -> None:
    table = QueueTable(queue_database(tmp_path))
    _bury(table, "ingest", b"kept")
    (dead,) = table.dead_letters()

    wrong_queue = frontdoor(tmp_path, "queues", "replay", str(dead.id), "--queue", "tasks")
    unknown = frontdoor(tmp_path, "queues", "replay", "4711")

    assert wrong_queue.exit_code == 1
    assert "no such dead letter: " + str(dead.id) in wrong_queue.output
    assert unknown.exit_code == 1
    assert "no such dead letter: 4711" in unknown.output
    assert [d.body for d in table.dead_letters()] == [b"kept"]


@pytest.mark.emulator
def test_on_google_cloud_dead_letters_lists_the_hold_and_replay_publishes_to_the_topic(
    pubsub_emulator: ManagedProcess,
) -> None:
    """README "Queues, crashes and dead letters": the same commands with BACKEND=gcp."""
    from google.cloud import pubsub_v1  # type: ignore[attr-defined,unused-ignore]  # no stubs

    publisher, subscriber = pubsub_v1.PublisherClient(), pubsub_v1.SubscriberClient()
    topic = f"signals-{uuid.uuid4().hex[:8]}"
    for name in (topic, f"{topic}-dead-letter"):
        publisher.create_topic(name=publisher.topic_path(PROJECT, name))
    hold = subscriber.subscription_path(PROJECT, f"{topic}-dead-letter-hold")
    subscriber.create_subscription(
        name=hold, topic=publisher.topic_path(PROJECT, f"{topic}-dead-letter")
    )
    worker = subscriber.subscription_path(PROJECT, f"{topic}-worker")
    subscriber.create_subscription(name=worker, topic=publisher.topic_path(PROJECT, topic))
    # As Pub/Sub dead-letters a message: its own attributes plus the ones it adds.
    publisher.publish(
        publisher.topic_path(PROJECT, f"{topic}-dead-letter"),
        b'{"events": []}',
        kind="ingest",
        CloudPubSubDeadLetterSourceDeliveryCount="5",
    ).result()
    env = {
        "BACKEND": "gcp",
        "GOOGLE_CLOUD_PROJECT": PROJECT,
        "PUBSUB_EMULATOR_HOST": pubsub_emulator.host,
        "SIGNALS_TOPIC": topic,
        "GENERATION_TOPIC": f"{topic}-generation",  # holds nothing: no such topic
    }

    def run(*args: str) -> Result:
        return CliRunner().invoke(cli, ["queues", *args], obj={}, env=env)

    listed = run("dead-letters", "--queue", "ingest")
    tasks = run("dead-letters", "--queue", "tasks")
    replayed = run("replay", "--all", "--queue", "ingest")
    after = run("dead-letters", "--queue", "ingest")
    (message,) = subscriber.pull(subscription=worker, max_messages=10, timeout=10).received_messages
    subscriber.close()

    assert listed.exit_code == 0, listed.output
    assert "ingest" in listed.output
    assert '{"events": []}' in listed.output
    assert tasks.exit_code == 1
    assert "Cloud Tasks keeps no dead letters" in tasks.output
    assert "replayed 1 dead letter(s)" in replayed.output
    assert "no dead letters" in after.output
    assert (message.message.data, dict(message.message.attributes)) == (
        b'{"events": []}',
        {"kind": "ingest"},
    )
