"""The one bounded poll the tests use to wait for asynchronous work (no bare sleeps)."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_for(
    check: Callable[[], object],
    *,
    timeout: float = 30.0,
    interval: float = 0.05,
    what: str = "condition",
) -> None:
    """Poll `check` until it is truthy, for at most `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not met within {timeout}s")
        time.sleep(interval)
