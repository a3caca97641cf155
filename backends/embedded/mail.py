"""OutboxMailer: embedded mail, one JSON file per message under DATA_DIR/outbox/ and a log line
naming the file. The message (a sign-in code in its subject and text) and its recipient stay in
the file: the log never holds them."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import uuid
from datetime import UTC, datetime
from pathlib import Path

from backends.ports import UnavailableError

logger = logging.getLogger(__name__)


class OutboxMailer:
    """Mailer that writes `{to, subject, text}` files; tests and developers read them."""

    def __init__(self, outbox: Path) -> None:
        self._outbox = outbox

    def send(self, *, to: str, subject: str, text: str) -> None:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
        path = self._outbox / f"{stamp}-{uuid.uuid4().hex[:8]}.json"
        tmp = path.with_suffix(".tmp")
        try:
            self._outbox.mkdir(parents=True, exist_ok=True)
            tmp.write_text(
                json.dumps({"to": to, "subject": subject, "text": text}), encoding="utf-8"
            )
            os.replace(tmp, path)  # readers never see half a message
        except OSError as err:  # a full disk, a folder it may not write: the port's error
            with contextlib.suppress(OSError):  # nothing may be there to remove
                tmp.unlink()
            raise UnavailableError("the outbox folder could not be written") from err
        logger.info("mail written to outbox: %s", path.name)
