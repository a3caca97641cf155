"""A lease names its holder by host, pid and the process's start time: a start releases the
leases of processes of this host that exited, and never those of a live process, nor of a new
process that was given a dead holder's pid."""

from __future__ import annotations

import subprocess
import sys

from backends.lease_holders import holder_gone, new_holder


def _with(holder: str, *, index: int, value: str) -> str:
    parts = holder.split(":")
    parts[index] = value
    return ":".join(parts)


def test_a_holder_of_this_live_process_is_not_gone() -> None:
    assert holder_gone(new_holder()) is False


def test_a_holder_whose_process_exited_is_gone() -> None:
    child = subprocess.run(  # this interpreter, a fixed script
        [
            sys.executable,
            "-c",
            "from backends.lease_holders import new_holder; print(new_holder())",
        ],
        capture_output=True,
        text=True,
        check=True,
    )

    assert holder_gone(child.stdout.strip()) is True


def test_a_live_pid_with_another_start_time_is_a_new_process_so_the_holder_is_gone() -> None:
    reused = _with(new_holder(), index=2, value="1")  # this pid, as if started at boot

    assert holder_gone(reused) is True


def test_a_holder_on_another_host_is_never_taken_for_gone() -> None:
    elsewhere = _with(new_holder(), index=0, value="another-host")

    assert holder_gone(_with(elsewhere, index=1, value="999999999")) is False


def test_a_holder_named_before_start_times_were_recorded_is_gone_only_if_its_pid_is() -> None:
    host, pid = new_holder().split(":")[:2]

    assert holder_gone(f"{host}:{pid}:abcd1234") is False
    assert holder_gone(f"{host}:999999999:abcd1234") is True
    assert holder_gone(None) is False
