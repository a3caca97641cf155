"""Who may read what of the Signal API: a signals key, limited or not.

A limited signals key (`frontdoor keys issue --scope signals` with `--type`, `--source` or
`--own-pages`) reads the stream filtered to what it may see (services/signal_visibility.py).
Roll-ups (the accounts list, account and person lookups) fold every event of an account or a
person: a score, a stage or a count would tell a limited key about events it may not see, and
filtering them would mean a fold per key at read time. So those answer a limited key 403
`forbidden` (issue `key` / `limited_key`), as do webhooks, whose deliveries and replays carry
every event type; the stream's `email=` and `domain=` give it the timelines it may see.
"""

from __future__ import annotations

from api.auth import KeyCheck
from api.errors import forbidden
from schemas.errors import Issue
from services.keys import Principal

__all__ = ["require_unlimited_signals_key"]

_LIMITED = Issue(
    field="key",
    code="limited_key",
    message="a key limited to some events reads the stream (with email= or domain=) only",
)


def require_unlimited_signals_key(keys: KeyCheck, why: str) -> Principal:
    """The caller's signals principal. Raises: ApiError 401, 429, or 403 for a limited key."""
    principal = keys.require("signals", allow_bearer=True)
    if principal.limits.limited:
        raise forbidden(
            f"This key is limited to some events and {why}: read the stream instead",
            issues=[_LIMITED],
        )
    return principal
