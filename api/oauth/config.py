"""The built-in authorization server's settings, and how it stores and reaches its state.

Shared by the provider (api.oauth.provider), its client book (api.oauth.client_book) and
sign-in (api.oauth.signin).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial
from typing import TypeVar

import anyio.to_thread

from domain.staff import PUBLIC_SCOPES, STAFF_SCOPES, StaffDirectory

T = TypeVar("T")

# What a 503 of the authorization server asks a client to wait, as the REST API's do
# (api.errors.RETRY_AFTER_SECONDS; api.oauth does not import the Flask side).
RETRY_AFTER_SECONDS = "5"


@dataclass(frozen=True)
class OAuthConfig:
    """The built-in authorization server's knobs (frontdoor builds it from Settings)."""

    issuer: str
    resource: str
    # The sign-in scopes every token carries (a client that names none gets these).
    scopes: tuple[str, ...] = PUBLIC_SCOPES
    # Who may be granted the staff toolsets' scopes (domain/staff.py).
    staff: StaffDirectory = field(default_factory=StaffDirectory)
    access_token_ttl: timedelta = timedelta(hours=1)
    # Stored expiry = announced expiry + this grace: the SDK client refreshes by its own clock
    # and, if the server expired first, answers the 401 with a full new sign-in.
    access_token_grace: timedelta = timedelta(seconds=30)
    refresh_token_ttl: timedelta = timedelta(days=30)
    # A registered (DCR) client that gets no token for this long is forgotten; it then meets
    # 401 invalid_client and registers again. Never before its newest refresh token ends.
    unused_client_ttl: timedelta = timedelta(days=30)
    code_ttl: timedelta = timedelta(minutes=5)
    signin_ttl: timedelta = timedelta(minutes=10)
    code_attempts: int = 5
    registrations_per_hour: int = 120
    signins_per_hour: int = 10
    allow_http_loopback_cimd: bool = False
    offload_store_calls: bool = True

    @property
    def supported_scopes(self) -> tuple[str, ...]:
        """Every scope a client may ask for: the sign-in ones and the staff toolsets'."""
        return (*self.scopes, *STAFF_SCOPES)


def sha256_hex(value: str) -> str:
    """How codes, tokens and one-time secrets are stored."""
    return hashlib.sha256(value.encode()).hexdigest()


async def call_store(offload: bool, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
    """Run a store call: in a worker thread for a networked store, inline for SQLite.

    A thread hop cost more than a SQLite read under load (the GIL hands over slowly),
    and it sat on every /mcp request through the token check.
    """
    if offload:
        return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs))
    return fn(*args, **kwargs)
