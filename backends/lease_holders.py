"""Lease holders: the name a worker writes on a lease, and whether that worker is gone.

A holder is `host:pid:start:random`, where `start` is the process's start time as the kernel
counts it (/proc/<pid>/stat's starttime, in clock ticks since boot), so a pid the kernel gave
to a new process is not mistaken for the worker that held the lease. `holder_gone` answers
True only for a holder on this host whose process no longer exists (or is another process
now); a holder on another host, or one it cannot check, is taken to be alive and keeps its
lease until the lease lapses.
"""

from __future__ import annotations

import functools
import os
import socket
import uuid
from pathlib import Path

__all__ = ["holder_gone", "new_holder"]

_PROC = Path("/proc")
# Where the kernel keeps no process table to read (not Linux): the start is unknown.
_UNKNOWN_START = "0"


def new_holder() -> str:
    """A fresh name for one lease holder of this process (a worker thread, a delivery)."""
    pid = os.getpid()
    return f"{_host()}:{pid}:{_start_of(pid) or _UNKNOWN_START}:{uuid.uuid4().hex[:8]}"


def holder_gone(holder: str | None) -> bool:
    """True if `holder` is a process of this host that has exited (or whose pid is reused)."""
    if not holder:
        return False
    parts = holder.split(":")
    if len(parts) < 3 or parts[0] != _host() or not parts[1].isdecimal():
        return False  # another host's, or a name from before the start time was recorded
    pid = int(parts[1])
    if not _alive(pid):
        return True
    if len(parts) < 4 or parts[2] == _UNKNOWN_START:
        return False  # alive, and nothing to tell the holder from a new process with its pid
    start = _start_of(pid)
    return start is not None and start != parts[2]


@functools.cache
def _host() -> str:
    return socket.gethostname()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process, but a process
        return True
    return True


def _start_of(pid: int) -> str | None:
    """The process's start time in clock ticks since boot; None where it cannot be read."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces: count after its end.
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else None
