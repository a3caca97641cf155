"""A clock the test sets by hand, for code that takes `clock: Callable[[], datetime]`."""

from __future__ import annotations

from datetime import datetime


class ManualClock:
    """Answers `now` until the test moves it."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now
