"""Standard Webhooks signing, checked with the `standardwebhooks` library itself."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from services.signing import new_secret, sign_headers

pytestmark = pytest.mark.spec("signals.webhooks")


def test_signed_headers_verify_with_the_standard_webhooks_library() -> None:
    """DESIGN Deliveries: signed per the Standard Webhooks scheme with a whsec_ secret."""
    secret = new_secret()
    now = datetime.now(UTC)

    headers = sign_headers(msg_id="msg_1", body='{"a":1}', secrets=[secret], now=now)

    assert secret.startswith("whsec_")
    assert Webhook(secret).verify('{"a":1}', headers) == {"a": 1}
    assert headers["webhook-id"] == "msg_1"
    assert headers["webhook-timestamp"] == str(int(now.timestamp()))


def test_during_rotation_both_the_new_and_the_old_secret_verify() -> None:
    """DESIGN Deliveries: rotatable with overlap, so receivers can switch secrets at leisure."""
    old, new = new_secret(), new_secret()

    headers = sign_headers(msg_id="msg_1", body="{}", secrets=[new, old], now=datetime.now(UTC))

    assert Webhook(new).verify("{}", headers) == {}
    assert Webhook(old).verify("{}", headers) == {}
    with pytest.raises(WebhookVerificationError):
        Webhook(new_secret()).verify("{}", headers)


def test_a_tampered_body_or_an_old_timestamp_does_not_verify() -> None:
    """DESIGN Deliveries: signatures bind the id, the timestamp and the body."""
    secret = new_secret()
    fresh = sign_headers(msg_id="msg_1", body="{}", secrets=[secret], now=datetime.now(UTC))
    stale = sign_headers(
        msg_id="msg_1", body="{}", secrets=[secret], now=datetime.now(UTC) - timedelta(minutes=10)
    )

    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify('{"x":1}', fresh)
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify("{}", stale)
