"""OutboxMailer: embedded mail, one JSON file per message under DATA_DIR/outbox/ and a log line."""

from __future__ import annotations

import json
import logging
import os
import uuid
from datetime import UTC, datetime
from pathlib import Path

logger = logging.getLogger(__name__)


class OutboxMailer:
    """Mailer that writes `{to, subject, text}` files; tests and developers read them."""

    def __init__(self, outbox: Path) -> None:
        self._outbox = outbox

    def send(self, *, to: str, subject: str, text: str) -> None:
        self._outbox.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
        path = self._outbox / f"{stamp}-{uuid.uuid4().hex[:8]}.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"to": to, "subject": subject, "text": text}), encoding="utf-8")
        os.replace(tmp, path)  # readers never see half a message
        logger.info("mail written to outbox: %s", path.name, extra={"subject": subject})
