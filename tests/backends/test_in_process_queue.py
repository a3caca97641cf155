"""The embedded queue delivers like a push subscription: a handler that raises gets the message
again with back-off; one that asks for a later delivery (DeliverLaterError) is not a failure."""

from __future__ import annotations

import logging

import pytest

from backends.embedded.queues import InProcessQueue
from backends.ports import DeliverLaterError


def test_a_handler_that_raises_gets_the_message_again_then_it_is_dead_lettered(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[str] = []

    def handler(message: str) -> None:
        seen.append(message)
        raise RuntimeError("boom")

    queue = InProcessQueue(handler, threads=1, max_attempts=3, backoff_seconds=0.001)
    with caplog.at_level(logging.INFO, logger="backends.embedded.queues"):
        queue.publish("m1")
        assert queue.drain(10)
    queue.close()

    assert seen == ["m1", "m1", "m1"]
    assert [r.levelno for r in caplog.records] == [logging.ERROR] * 4  # 3 failures + dead letter


def test_deliver_later_redelivers_without_logging_a_failure(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[str] = []

    def handler(message: str) -> None:
        seen.append(message)
        if len(seen) == 1:
            raise DeliverLaterError("held by another worker")

    queue = InProcessQueue(handler, threads=1, max_attempts=3, backoff_seconds=0.001)
    with caplog.at_level(logging.INFO, logger="backends.embedded.queues"):
        queue.publish("m1")
        assert queue.drain(10)
    queue.close()

    assert seen == ["m1", "m1"]
    assert [r.levelno for r in caplog.records] == [logging.INFO]
    assert "delivering again later" in caplog.records[0].getMessage()
