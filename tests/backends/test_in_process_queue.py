"""The embedded queue delivers like a push subscription: a handler that raises gets the message
again with back-off, then it is dead-lettered in the table (and logged); one that asks for a
later delivery (DeliverLaterError) is not a failure and spends no attempt."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from backends.embedded.queue_table import QueueTable, queue_database
from backends.embedded.queues import DurableQueue
from backends.ports import DeliverLaterError


def _queue(tmp_path: Path, handler: object, **options: object) -> DurableQueue:
    queue = DurableQueue(
        QueueTable(queue_database(tmp_path)),
        "q",
        threads=1,
        backoff=lambda attempt: 0.001,
        poll_seconds=0.02,
        **options,  # type: ignore[arg-type]
    )
    queue.start(handler)  # type: ignore[arg-type]
    return queue


def test_a_handler_that_raises_gets_the_message_again_then_it_is_dead_lettered(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    seen: list[bytes] = []
    buried: list[bytes] = []

    def handler(message: bytes) -> None:
        seen.append(message)
        raise RuntimeError("boom")

    with caplog.at_level(logging.INFO, logger="backends.embedded.queues"):
        queue = _queue(tmp_path, handler, max_attempts=3, on_dead_letter=buried.append)
        queue.publish(b"m1")
        assert queue.drain(10)
    queue.close()

    assert seen == [b"m1", b"m1", b"m1"]
    (dead,) = queue.table.dead_letters("q")
    assert (dead.body, dead.attempts) == (b"m1", 3)
    assert "RuntimeError: boom" in (dead.last_error or "")
    assert buried == [b"m1"]
    assert [r.levelno for r in caplog.records] == [logging.ERROR] * 4  # 3 failures + dead letter


def test_a_replayed_dead_letter_is_delivered_again_from_its_first_attempt(
    tmp_path: Path,
) -> None:
    seen: list[bytes] = []

    def handler(message: bytes) -> None:
        seen.append(message)
        if len(seen) <= 2:
            raise RuntimeError("down")

    queue = _queue(tmp_path, handler, max_attempts=2)
    queue.publish(b"m1")
    assert queue.drain(10)
    (dead,) = queue.table.dead_letters("q")

    assert queue.table.replay([dead.id]) == 1
    queue.notify()
    assert queue.drain(10)
    queue.close()

    assert seen == [b"m1"] * 3
    assert queue.table.dead_letters("q") == []


def test_deliver_later_redelivers_without_logging_a_failure_or_spending_an_attempt(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    seen: list[bytes] = []

    def handler(message: bytes) -> None:
        seen.append(message)
        if len(seen) == 1:
            raise DeliverLaterError("held by another worker")

    with caplog.at_level(logging.INFO, logger="backends.embedded.queues"):
        queue = _queue(tmp_path, handler, max_attempts=1)
        queue.publish(b"m1")
        assert queue.drain(10)
    queue.close()

    assert seen == [b"m1", b"m1"]
    assert [r.levelno for r in caplog.records] == [logging.INFO]
    assert "delivering again later" in caplog.records[0].getMessage()
    assert queue.table.dead_letters("q") == []


def test_a_batch_is_committed_in_one_transaction_before_publish_returns(tmp_path: Path) -> None:
    """What publish_batch returned from is on disk: another connection to the file sees it."""
    table = QueueTable(queue_database(tmp_path))
    DurableQueue(table, "q").publish_batch([b"a", b"b", b"c"])  # no worker started

    assert QueueTable(queue_database(tmp_path)).waiting("q") == 3
