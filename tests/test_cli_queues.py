"""`frontdoor queues`: an operator lists the embedded dead letters and replays them (issue 13)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from backends.embedded.queue_table import QueueTable, queue_database
from frontdoor.cli import cli


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
