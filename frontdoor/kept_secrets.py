"""Secrets an embedded deployment keeps in DATA_DIR when none is configured: created once by
whichever process gets there first (mode 0600, O_EXCL), then read by every other process."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path


def kept_secret(path: Path, make: Callable[[], str]) -> str:
    """The secret in `path`, writing `make()` there first if the file does not exist yet."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as out:
        out.write(make())
    return path.read_text().strip()
