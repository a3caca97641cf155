"""Signed preview links for drafts: `/p/{slug}?preview=TOKEN`, valid for one version until expiry.

A token is `{expires_unix}.{signature}`, the signature an HMAC-SHA256 over slug, version and
expiry with the service's preview secret. Pure: no Flask, no clock (callers pass `now`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import datetime, timedelta

from domain.numbers import ascii_whole_number

PREVIEW_LIFETIME = timedelta(days=7)


def make_preview_token(slug: str, version: int, expires: datetime, secret: bytes) -> str:
    """A token that shows version `version` of `slug` until `expires`."""
    stamp = int(expires.timestamp())
    return f"{stamp}.{_sign(slug, version, stamp, secret)}"


def verify_preview_token(
    token: str, *, slug: str, version: int, now: datetime, secret: bytes
) -> bool:
    """Whether `token` was issued for this slug and version and has not expired."""
    stamp_text, sep, signature = token.partition(".")
    stamp = ascii_whole_number(stamp_text, max_digits=12)
    if not sep or stamp is None:
        return False
    if stamp <= now.timestamp() or not secret:
        return False
    # Bytes: compare_digest raises on a str that is not ASCII (a link anyone may edit).
    return hmac.compare_digest(signature.encode(), _sign(slug, version, stamp, secret).encode())


def preview_expiry(updated_at: datetime) -> datetime:
    """A draft's preview link lasts PREVIEW_LIFETIME from the change that made the version."""
    return updated_at + PREVIEW_LIFETIME


def _sign(slug: str, version: int, stamp: int, secret: bytes) -> str:
    message = f"frontdoor-preview\n{slug}\n{version}\n{stamp}".encode()
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")
