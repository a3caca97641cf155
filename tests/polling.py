"""The one bounded poll the tests use to wait for asynchronous work (no bare sleeps)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, wait
from typing import TypeVar

T = TypeVar("T")


def wait_for(
    check: Callable[[], object],
    *,
    timeout: float = 30.0,
    interval: float = 0.05,
    what: str = "condition",
) -> None:
    """Poll `check` until it is truthy, for at most `timeout` seconds: the one place a test
    waits between looks (`interval`), always under the deadline."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not met within {timeout}s")
        time.sleep(interval)


def answer_within(call: Callable[[], T], *, timeout: float) -> T:
    """`call()` in a thread of its own, waited for `timeout` seconds at most: it must return
    (or raise) by then, which a call that hangs does not. The thread is a daemon, so a call
    that never returns does not hold the test run open."""
    answer: Future[T] = Future()

    def run() -> None:
        try:
            answer.set_result(call())
        except BaseException as err:  # noqa: BLE001  # raised again in the caller's thread
            answer.set_exception(err)

    threading.Thread(target=run, daemon=True).start()
    if not wait([answer], timeout=timeout).done:
        raise AssertionError(f"an answer not met within {timeout}s")
    return answer.result()  # the call's own exception, a TimeoutError included, raised here


def retried_until(
    call: Callable[[], T], accepted: Callable[[T], bool], *, timeout: float, each: float
) -> T:
    """`call()` again (each waited for `each` seconds at most) until `accepted` says yes, for at
    most `timeout` seconds, as a client retrying after an outage does; its last answer."""
    answers: list[T] = []

    def accepted_now() -> bool:
        answers.append(answer_within(call, timeout=each))
        return accepted(answers[-1])

    wait_for(accepted_now, timeout=timeout, interval=0.2, what="an accepted answer")
    return answers[-1]
