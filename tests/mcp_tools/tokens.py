"""Tokens planted straight into an OAuth store, as the built-in authorization server stores them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from api.oauth.config import sha256_hex
from backends.ports import OAuthStore, OAuthTokenRecord

EMAIL = "ada@example.com"
SCOPES = ("openid", "email", "profile")


def plant_token(store: OAuthStore, raw: str, *, resource: str, **fields: Any) -> str:
    """`raw` stored as the built-in authorization server stores a token (its sha256 only):
    an hour-long access token for EMAIL with every scope, unless `fields` say otherwise."""
    record: dict[str, Any] = {
        "token_hash": sha256_hex(raw),
        "kind": "access",
        "client_id": "planted",
        "subject": EMAIL,
        "scopes": SCOPES,
        "resource": resource,
        "grant_id": "planted-" + raw[-8:],
        "expires_at": datetime.now(UTC) + timedelta(hours=1),
    }
    store.add_token(OAuthTokenRecord(**(record | fields)))
    return raw
