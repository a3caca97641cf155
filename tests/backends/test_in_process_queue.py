"""The embedded queue delivers like a push subscription: a handler that raises gets the message
again with back-off, then it is dead-lettered in the table (and logged); one that asks for a
later delivery (DeliverLaterError) is not a failure and spends no attempt. A batch worker
(the ingest queue's) gets the due messages together, and each keeps its own attempts: a batch
the handler refuses is handed over again one message at a time, so a message that always fails
is dead-lettered alone."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from backends.embedded.queue_table import QUEUE_FILE, QueueTable, queue_database
from backends.embedded.queues import DurableQueue
from backends.ports import DeliverLaterError, UnavailableError


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

    assert queue.table.replay([dead.id]) == [dead.id]
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


def test_a_batch_larger_than_one_statement_holds_is_committed_whole_and_claimed_in_order(
    tmp_path: Path,
) -> None:
    table = QueueTable(queue_database(tmp_path))
    bodies = [f"m{n}".encode() for n in range(1201)]
    DurableQueue(table, "q").publish_batch(bodies)

    leased = table.claim("q", owner="me", lease_seconds=60, max_attempts=5, limit=2000)
    table.ack_all(leased)

    assert [m.body for m in leased] == bodies
    assert table.waiting("q") == 0


def test_messages_published_by_many_threads_at_once_are_each_on_disk_when_publish_returns(
    tmp_path: Path,
) -> None:
    """Publishes at the same time share commits, and none returns before its own is done."""
    queue = DurableQueue(QueueTable(queue_database(tmp_path)), "q")  # no worker started
    on_disk: list[bool] = []

    def publish(n: int) -> None:
        queue.publish(f"m{n}".encode())
        on_disk.append(_stored(tmp_path, f"m{n}"))  # read through a connection of its own

    threads = [threading.Thread(target=publish, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    assert on_disk == [True] * 16
    assert QueueTable(queue_database(tmp_path)).waiting("q") == 16


def _stored(tmp_path: Path, body: str) -> bool:
    with sqlite3.connect(tmp_path / QUEUE_FILE) as conn:
        row = conn.execute(
            "SELECT COUNT(*) FROM queue_messages WHERE queue = 'q' AND body = ?", (body.encode(),)
        ).fetchone()
    return bool(row[0])


def test_a_publish_the_queue_file_refuses_raises_unavailable_and_stores_nothing(
    tmp_path: Path,
) -> None:
    """The port's promise (SignalQueue.publish raises UnavailableError): /collect answers 503."""
    db = queue_database(tmp_path)
    queue = DurableQueue(QueueTable(db), "q")
    db.connection().execute("PRAGMA query_only = ON")  # this thread's writes are refused

    with pytest.raises(UnavailableError):
        queue.publish_batch([b"m1", b"m2"])

    assert QueueTable(queue_database(tmp_path)).waiting("q") == 0


def _batch_queue(
    tmp_path: Path, handler: Callable[[list[str]], None], **options: object
) -> DurableQueue:
    """A queue whose worker takes up to 10 messages at once; b"bad" does not decode."""
    queue = DurableQueue(
        QueueTable(queue_database(tmp_path)),
        "q",
        threads=1,
        batch=10,
        backoff=lambda attempt: 0.001,
        poll_seconds=0.02,
        **options,  # type: ignore[arg-type]
    )

    def decode(body: bytes) -> str | None:
        return None if body == b"bad" else body.decode()

    queue.start_batches(decode, handler)
    return queue


def test_a_batch_worker_gets_the_messages_due_together_in_one_call(tmp_path: Path) -> None:
    calls: list[list[str]] = []
    table = QueueTable(queue_database(tmp_path))
    DurableQueue(table, "q").publish_batch([b"m1", b"m2", b"m3"])  # due before the worker starts

    queue = _batch_queue(tmp_path, calls.append)
    assert queue.drain(10)
    queue.close()

    assert calls == [["m1", "m2", "m3"]]
    assert table.dead_letters("q") == []


def test_a_message_that_does_not_decode_is_acked_alone_while_its_batch_is_delivered_again(
    tmp_path: Path,
) -> None:
    calls: list[list[str]] = []

    def handler(values: list[str]) -> None:
        calls.append(values)
        if len(calls) == 1:
            raise RuntimeError("store down")

    DurableQueue(QueueTable(queue_database(tmp_path)), "q").publish_batch([b"m1", b"bad", b"m2"])
    queue = _batch_queue(tmp_path, handler, max_attempts=3)
    assert queue.drain(10)
    queue.close()

    assert calls[0] == ["m1", "m2"]
    # Each is retried on its own back-off: together or one by one, each comes back once.
    assert sorted(value for call in calls[1:] for value in call) == ["m1", "m2"]
    assert queue.table.dead_letters("q") == []


def test_each_message_of_a_batch_that_fails_every_attempt_is_dead_lettered_on_its_own(
    tmp_path: Path,
) -> None:
    buried: list[bytes] = []

    def handler(values: list[str]) -> None:
        raise RuntimeError("store down")

    table = QueueTable(queue_database(tmp_path))
    DurableQueue(table, "q").publish_batch([b"m1", b"bad", b"m2"])
    queue = _batch_queue(tmp_path, handler, max_attempts=2, on_dead_letter=buried.append)
    assert queue.drain(10)
    queue.close()

    dead = queue.table.dead_letters("q")
    assert sorted((d.body, d.attempts) for d in dead) == [(b"m1", 2), (b"m2", 2)]
    assert sorted(buried) == [b"m1", b"m2"]  # the one that did not decode was acked at once
    assert table.waiting("q") == 0


def test_a_message_that_always_fails_is_dead_lettered_alone_and_the_rest_of_its_batch_is_handled(
    tmp_path: Path,
) -> None:
    calls: list[list[str]] = []
    buried: list[bytes] = []

    def handler(values: list[str]) -> None:
        calls.append(values)
        if "poison" in values:
            raise ValueError("this message can never be handled")

    table = QueueTable(queue_database(tmp_path))
    DurableQueue(table, "q").publish_batch([b"m1", b"poison", b"m2"])
    queue = _batch_queue(tmp_path, handler, max_attempts=3, on_dead_letter=buried.append)
    assert queue.drain(10)
    queue.close()

    assert calls[:4] == [["m1", "poison", "m2"], ["m1"], ["poison"], ["m2"]]
    handled = [call for call in calls if "poison" not in call]
    assert handled == [["m1"], ["m2"]]  # each handled once, on the batch's first delivery
    dead = table.dead_letters("q")
    assert [(d.body, d.attempts) for d in dead] == [(b"poison", 3)]
    assert buried == [b"poison"]
    assert table.waiting("q") == 0


def test_a_batch_that_fails_as_a_whole_spends_one_attempt_of_each_message(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[list[str]] = []

    def handler(values: list[str]) -> None:
        calls.append(values)
        if len(values) > 1:
            raise RuntimeError("too much at once")

    table = QueueTable(queue_database(tmp_path))
    DurableQueue(table, "q").publish_batch([b"m1", b"m2"])
    with caplog.at_level(logging.WARNING):
        queue = _batch_queue(tmp_path, handler, max_attempts=1)
        assert queue.drain(10)
        queue.close()

    # Handed over alone in the same delivery: handled on the first (and only) attempt.
    assert calls == [["m1", "m2"], ["m1"], ["m2"]]
    assert table.dead_letters("q") == []
    assert [r.levelname for r in caplog.records if "batch of 2" in r.getMessage()] == ["WARNING"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_message_whose_decoding_raises_is_delivered_again_alone_and_the_worker_goes_on(
    tmp_path: Path,
) -> None:
    calls: list[list[str]] = []
    decoded: list[bytes] = []

    def decode(body: bytes) -> str:
        decoded.append(body)
        if body == b"m2" and decoded.count(b"m2") == 1:
            raise RuntimeError("decoder bug")
        return body.decode()

    table = QueueTable(queue_database(tmp_path))
    DurableQueue(table, "q").publish_batch([b"m1", b"m2"])
    queue = DurableQueue(
        table, "q", threads=1, batch=10, backoff=lambda attempt: 0.001, poll_seconds=0.02
    )
    queue.start_batches(decode, calls.append)
    assert queue.drain(10)
    queue.close()

    assert calls == [["m1"], ["m2"]]
    assert table.dead_letters("q") == []


def test_a_message_whose_worker_died_holding_its_last_attempt_goes_to_the_dead_letter_handler(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """As Pub/Sub pushes every dead-lettered message to the dead-letter worker, one whose last
    lease lapsed included: the generation queue's handler marks its job failed."""
    table = QueueTable(queue_database(tmp_path))
    table.put("q", [b"held-by-the-dead"])
    for _ in range(2):  # two consumers that died holding it; each lease has lapsed
        assert table.claim("q", owner="dead", lease_seconds=0.0, max_attempts=2)
    buried: list[bytes] = []
    handled: list[bytes] = []

    with caplog.at_level(logging.ERROR, logger="backends.embedded.queues"):
        queue = _queue(tmp_path, handled.append, max_attempts=2, on_dead_letter=buried.append)
        assert queue.drain(10)
        queue.close()

    assert handled == []
    assert buried == [b"held-by-the-dead"]
    assert [d.body for d in table.dead_letters("q")] == [b"held-by-the-dead"]
    assert any(getattr(r, "event", None) == "dead_letter" for r in caplog.records)
