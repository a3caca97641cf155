"""LocalBlobStore: public files in a DATA_DIR folder, served at /assets/ by api/rest/assets.py."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

from backends.ports import Blob

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*$")


class InvalidBlobNameError(ValueError):
    """A name that could escape the folder or is not a plain relative path."""


def check_blob_name(name: str) -> str:
    """The name if it is a safe relative path. Raises: InvalidBlobNameError."""
    if len(name) > 512 or not _NAME.match(name) or ".." in name.split("/"):
        raise InvalidBlobNameError(name)
    return name


class LocalBlobStore:
    """BlobStore on the local disk; each object has a `.meta.json` sidecar with its headers."""

    def __init__(self, root: Path, *, base_url: str = "/assets") -> None:
        # `base_url` prefixes the URLs put_blob answers; the service passes the site path
        # `/assets`, so stored records carry no origin (services/page_records.py adds it on reads).
        self._root = root
        self._base_url = base_url.rstrip("/")
        root.mkdir(parents=True, exist_ok=True)

    def put_blob(self, name: str, blob: Blob) -> str:
        path = self._root / check_blob_name(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {"content_type": blob.content_type, "cache_control": blob.cache_control}
        _write_atomically(path.with_name(path.name + ".meta.json"), json.dumps(meta).encode())
        _write_atomically(path, blob.data)
        return f"{self._base_url}/{name}"

    def get_blob(self, name: str) -> Blob | None:
        try:
            path = self._root / check_blob_name(name)
        except InvalidBlobNameError:
            return None
        if name.endswith(".meta.json"):
            return None
        try:
            meta = json.loads(path.with_name(path.name + ".meta.json").read_bytes())
            data = path.read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None
        return Blob(
            data=data,
            content_type=str(meta["content_type"]),
            cache_control=str(meta["cache_control"]),
        )


def _write_atomically(path: Path, data: bytes) -> None:
    # A reader never sees half a file: write beside it, then rename over it.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
