"""Standard Webhooks signing (webhook-id, -timestamp, -signature) and `whsec_` secrets.

Shared by signal deliveries and job callbacks. Pure apart from drawing random secrets;
the timestamp is the `now` passed in.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime

from standardwebhooks.webhooks import Webhook

__all__ = ["SECRET_PREFIX", "new_secret", "sign_headers"]

SECRET_PREFIX = "whsec_"  # noqa: S105  # the scheme's prefix, not a secret


def new_secret() -> str:
    """A fresh `whsec_` secret: 32 random bytes, base64."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def sign_headers(
    *, msg_id: str, body: str, secrets: Sequence[str], now: datetime
) -> dict[str, str]:
    """The three Standard Webhooks headers; one `v1,` signature per secret (rotation overlap).

    Raises: ValueError when no secret is given.
    """
    if not secrets:
        raise ValueError("at least one secret is needed to sign")
    at = now.astimezone(UTC)  # the library reads the time as UTC whatever its zone
    signatures = [Webhook(secret).sign(msg_id, at, body) for secret in secrets]
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": " ".join(signatures),
    }
