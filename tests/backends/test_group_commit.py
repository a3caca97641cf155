"""Writes asked for at the same time share one write: the queue's commits of page views
(backends/embedded/group_commit.py). Each caller returns only once a write holding its item
has returned, and a write that fails fails every caller of its group."""

from __future__ import annotations

import threading

import pytest

from backends.embedded.group_commit import GroupCommit, GroupFailedError
from tests.polling import wait_for


class _Writer:
    """Records each write; the first one waits for `release` (so others ask meanwhile)."""

    def __init__(self, fail_on: int | None = None) -> None:
        self.writes: list[list[str]] = []
        self.written: set[str] = set()
        self.started = threading.Event()
        self.release = threading.Event()
        self.fail_on = fail_on

    def __call__(self, items: list[str]) -> None:
        self.writes.append(list(items))
        if len(self.writes) == 1:
            self.started.set()
            assert self.release.wait(10)
        if len(self.writes) == self.fail_on:
            raise RuntimeError("disk full")
        self.written.update(items)


def _submit_in_threads(
    group: GroupCommit[str], writer: _Writer, items: list[str]
) -> tuple[list[threading.Thread], dict[str, object]]:
    """Each item submitted by a thread of its own; what each got back (None, or the error),
    and whether its item had been written when submit returned."""
    outcome: dict[str, object] = {}

    def submit(item: str) -> None:
        try:
            group.submit(item)
        except Exception as err:  # noqa: BLE001  # the test reads what each caller got
            outcome[item] = err
        else:
            outcome[item] = item in writer.written

    threads = [threading.Thread(target=submit, args=(item,)) for item in items]
    for thread in threads:
        thread.start()
    return threads, outcome


def test_items_asked_for_while_a_write_runs_are_written_together_by_the_next_one() -> None:
    writer = _Writer()
    group = GroupCommit(writer)
    first, outcome = _submit_in_threads(group, writer, ["a"])
    assert writer.started.wait(10)
    rest, later = _submit_in_threads(group, writer, ["b", "c", "d"])
    wait_for(lambda: group.waiting() == 3, timeout=10, interval=0.005, what="three waiting")

    writer.release.set()
    for thread in first + rest:
        thread.join(10)

    assert writer.writes[0] == ["a"]
    assert sorted(writer.writes[1]) == ["b", "c", "d"]
    assert len(writer.writes) == 2
    assert {**outcome, **later} == {"a": True, "b": True, "c": True, "d": True}


def test_a_caller_alone_is_written_at_once() -> None:
    writes: list[list[str]] = []
    group = GroupCommit(writes.append)

    group.submit("a")
    group.submit("b")

    assert writes == [["a"], ["b"]]


def test_a_failed_write_fails_every_caller_of_its_group_and_the_next_write_goes_on() -> None:
    writer = _Writer(fail_on=2)
    group = GroupCommit(writer)
    first, outcome = _submit_in_threads(group, writer, ["a"])
    assert writer.started.wait(10)
    rest, failed = _submit_in_threads(group, writer, ["b", "c"])
    wait_for(lambda: group.waiting() == 2, timeout=10, interval=0.005, what="two waiting")
    writer.release.set()
    for thread in first + rest:
        thread.join(10)

    group.submit("e")

    assert outcome == {"a": True}
    errors = sorted(failed.values(), key=lambda err: type(err).__name__)
    assert [type(err) for err in errors] == [GroupFailedError, RuntimeError]
    assert isinstance(errors[0], GroupFailedError)
    assert errors[0].__cause__ is errors[1]
    assert writer.writes[-1] == ["e"]
    assert writer.written == {"a", "e"}


def test_the_caller_that_ran_a_failed_write_gets_its_error_itself() -> None:
    def write(items: list[str]) -> None:
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        GroupCommit(write).submit("a")


def test_every_item_of_many_threads_is_written_once_before_its_submit_returns() -> None:
    written: list[str] = []
    early: list[str] = []
    group: GroupCommit[str] = GroupCommit(written.extend)

    def submit_many(thread: int) -> None:
        for n in range(50):
            item = f"{thread}-{n}"
            group.submit(item)
            if item not in written:
                early.append(item)

    threads = [threading.Thread(target=submit_many, args=(t,)) for t in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    assert early == []
    assert sorted(written) == sorted(f"{t}-{n}" for t in range(16) for n in range(50))
    assert group.waiting() == 0
