"""The answer a refresh token's exchange gave, sealed so that only that refresh token opens it.

A refresh token is replaced the moment it is exchanged; the same client retrying the same
exchange within the retry grace (a lost answer) gets the same successor, not a second one.
The store keeps tokens only as hashes, so the answer is kept sealed (AES-GCM) under a key
derived from the refresh token itself: whoever reads the store has the token's sha256, never
the token, and cannot open it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from mcp.shared.auth import OAuthToken
from pydantic import ValidationError

_KEY_LABEL = b"frontdoor refresh token retry answer"
_NONCE_BYTES = 12


def _key(refresh_token: str) -> bytes:
    return hmac.new(refresh_token.encode(), _KEY_LABEL, hashlib.sha256).digest()


def seal_answer(refresh_token: str, answer: OAuthToken) -> str:
    """`answer` sealed under `refresh_token`, as text for the store."""
    nonce = secrets.token_bytes(_NONCE_BYTES)
    sealed = AESGCM(_key(refresh_token)).encrypt(nonce, answer.model_dump_json().encode(), None)
    return base64.urlsafe_b64encode(nonce + sealed).decode()


def open_answer(refresh_token: str, sealed: str) -> OAuthToken | None:
    """The answer sealed under `refresh_token`, or None when it does not open."""
    try:
        raw = base64.urlsafe_b64decode(sealed.encode())
        plain = AESGCM(_key(refresh_token)).decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], None)
        return OAuthToken.model_validate_json(plain)
    except (ValueError, InvalidTag, ValidationError):
        return None
