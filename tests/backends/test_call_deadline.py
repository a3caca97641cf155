"""CallDeadline (backends/gcp/deadline.py): the setting's range, and a call waited for in a
thread of its own (a Firestore transaction round) that outlasts its deadline."""

from __future__ import annotations

import threading

import pytest
from pydantic import ValidationError

from backends.gcp.deadline import MAX_ABANDONED, CallDeadline
from backends.ports import UnavailableError
from frontdoor.settings import Settings
from tests.polling import wait_for

HELD_FOR = 30.0  # far past every deadline here: the test releases it


@pytest.mark.parametrize("seconds", [0, 0.05, 300.5])
def test_settings_refuse_a_deadline_under_a_tenth_of_a_second_or_past_five_minutes(
    seconds: float,
) -> None:
    """README Configuration: GOOGLE_CLOUD_DEADLINE is 0.1 to 300 seconds."""
    with pytest.raises(ValidationError, match="google_cloud_deadline"):
        Settings(google_cloud_deadline=seconds)


def test_a_call_past_its_deadline_is_unavailable_and_is_told_it_was_given_up() -> None:
    """The work sees `given_up` once the caller has answered, so it can roll back."""
    release = threading.Event()
    seen: list[bool] = []

    def work(given_up: threading.Event) -> None:
        release.wait(HELD_FOR)
        seen.append(given_up.is_set())

    with pytest.raises(UnavailableError, match="no answer within"):
        CallDeadline(0.1).bounded(work, what="a test call")
    release.set()

    wait_for(lambda: seen, timeout=5, what="the work to end")
    assert seen == [True]


def test_a_call_within_its_deadline_hands_back_its_result_or_its_own_error() -> None:
    deadline = CallDeadline(5)

    def fails(_given_up: threading.Event) -> None:
        raise ValueError("a fault of ours")

    assert deadline.bounded(lambda given_up: (42, given_up.is_set()), what="t") == (42, False)
    with pytest.raises(ValueError, match="a fault of ours"):
        deadline.bounded(fails, what="t")


def test_while_max_abandoned_calls_still_wait_the_next_is_refused_without_running() -> None:
    """A store that answers no one does not gather threads: past MAX_ABANDONED waiting, a call
    is a 503 at once; once they end, calls run again."""
    deadline = CallDeadline(0.1)
    release = threading.Event()
    ran: list[int] = []
    for _ in range(MAX_ABANDONED):
        with pytest.raises(UnavailableError, match="no answer within"):
            deadline.bounded(lambda _given_up: release.wait(HELD_FOR), what="t")

    with pytest.raises(UnavailableError, match="still waiting"):
        deadline.bounded(lambda _given_up: ran.append(1), what="t")
    release.set()

    def runs_again() -> bool:
        try:
            return deadline.bounded(lambda _given_up: True, what="t")
        except UnavailableError:
            return False

    wait_for(runs_again, timeout=5, what="a call that runs")
    assert ran == []
