"""Partner-key authentication for the keyed surfaces.

The key comes in `x-api-key`, or in `Authorization: Bearer` where a surface allows it. A
`content_admin` key is accepted wherever a `content` key is (it reads and changes every
partner's pages). Each authenticated
request counts against its key's rate limit (api/rate_limits.py). The app factory builds one
`KeyCheck` and passes it to every keyed blueprint.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import g, request

from api.errors import unauthorized
from api.rate_limits import RateLimits
from backends.ports import Scope
from services.keys import KeyRing, Principal

# Scopes whose keys also open a surface: the company's own team edits every partner's pages.
_ALSO: dict[Scope, tuple[Scope, ...]] = {"content": ("content_admin",)}


@dataclass(frozen=True)
class KeyCheck:
    """The keyed surfaces' gate: the ring that verifies a presented key, the per-key limits."""

    keyring: KeyRing
    limits: RateLimits

    def require(self, scope: Scope, *, allow_bearer: bool = False) -> Principal:
        """The caller's principal for this scope. Raises: ApiError 401 `unauthorized`, 429
        `rate_limited`."""
        raw = request.headers.get("x-api-key")
        if raw is None and allow_bearer:
            auth = request.headers.get("Authorization", "")
            if auth[:7].lower() == "bearer ":
                raw = auth[7:].strip()
        principal = self.keyring.authenticate(raw, scope, also=_ALSO.get(scope, ()))
        if principal is None:
            header = "x-api-key" + (" or Authorization: Bearer" if allow_bearer else "")
            raise unauthorized(
                f"Send a valid {scope} key in the {header} header",
                headers={"WWW-Authenticate": f'ApiKey realm="{scope}"'},
            )
        g.principal = principal
        self.limits.check(principal.scope, principal.key_id)
        return principal
