"""Webhook signing secrets sealed at rest, for both webhook store adapters.

Signing needs the secret itself, so it cannot be hashed: each is encrypted with AES-256-GCM
under a key derived (HKDF-SHA256) from WEBHOOK_SECRETS_KEY, and bound to its endpoint id (the
associated data), so a copied database or document shows no secret, and a sealed value moved
to another endpoint does not open. A value without the `sealed:v1:` mark is one stored in clear
by an earlier version: it opens as it is, and the stores seal it at start.
"""

from __future__ import annotations

import base64
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

__all__ = ["SealedSecretError", "SecretBox", "is_sealed"]

MARK = "sealed:v1:"
_NONCE_BYTES = 12


class SealedSecretError(ValueError):
    """A sealed secret that does not open with this key (another key, or altered)."""


class SecretBox:
    """Seals and opens webhook secrets with one key."""

    def __init__(self, key_material: str) -> None:
        if len(key_material) < 16:
            raise ValueError("the webhook secrets key must be at least 16 characters")
        key = HKDF(
            algorithm=hashes.SHA256(), length=32, salt=None, info=b"frontdoor webhook secrets"
        ).derive(key_material.encode())
        self._aead = AESGCM(key)

    def seal(self, value: str, *, endpoint_id: str) -> str:
        """`value` encrypted for this endpoint (a fresh nonce each time)."""
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._aead.encrypt(nonce, value.encode(), endpoint_id.encode())
        return MARK + base64.urlsafe_b64encode(nonce + sealed).decode()

    def open(self, stored: str, *, endpoint_id: str) -> str:
        """The secret; a value stored in clear comes back as it is.

        Raises: SealedSecretError."""
        if not is_sealed(stored):
            return stored
        try:
            raw = base64.urlsafe_b64decode(stored.removeprefix(MARK))
            plain = self._aead.decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], endpoint_id.encode())
        except (InvalidTag, ValueError) as err:
            raise SealedSecretError(endpoint_id) from err
        return plain.decode()


def is_sealed(stored: str) -> bool:
    """True for a value `SecretBox.seal` made; False for one stored in clear."""
    return stored.startswith(MARK)
