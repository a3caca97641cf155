"""What the authorization server counts per client address: requests to /authorize and the
sign-in pages (a limiter in this process's memory, api/rate_limits.py's WindowCounter, which
frontdoor hands in), and the client address itself, behind our own proxies the same entry the
Flask side's ProxyFix takes (domain/client_address.py)."""

from __future__ import annotations

import time
from typing import Any, Protocol

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from api.oauth.config import sha256_hex
from domain.client_address import client_address

__all__ = ["AddressLimit", "AddressRateLimit", "address_key", "address_of"]


class LimitVerdict(Protocol):
    """One counted request (api.rate_limits.RateVerdict)."""

    @property
    def allowed(self) -> bool: ...

    @property
    def reset(self) -> int: ...

    def headers(self) -> dict[str, str]:
        """The RateLimit fields, with Retry-After when refused."""


class AddressLimit(Protocol):
    """A request counter per partition (api.rate_limits.WindowCounter)."""

    def hit(self, partition: str, *, now: float) -> LimitVerdict:
        """Count one request of `partition` at `now` (seconds on a steady clock)."""


def address_of(scope: Scope, *, forwarded_for_hops: int) -> str:
    """The client address of a request: the socket peer, or with `forwarded_for_hops` the
    X-Forwarded-For entry our own proxies wrote."""
    peer: Any = scope.get("client") or ("", 0)
    forwarded = Headers(scope=scope).get("x-forwarded-for", "") if forwarded_for_hops else ""
    return client_address(forwarded, str(peer[0]), hops=forwarded_for_hops)


def address_key(scope: Scope, *, forwarded_for_hops: int) -> str:
    """The client address as counters and logs name it: a short hash, never the address."""
    return sha256_hex(address_of(scope, forwarded_for_hops=forwarded_for_hops))[:16]


class AddressRateLimit:
    """Requests per client address to the wrapped route (/authorize, the sign-in pages): past
    the limit, 429 `rate_limited` with Retry-After and the RateLimit fields, before any work
    (each /authorize stores a pending sign-in)."""

    def __init__(self, app: ASGIApp, *, limit: AddressLimit, forwarded_for_hops: int) -> None:
        self.app = app
        self.limit = limit
        self.hops = forwarded_for_hops

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            key = address_key(scope, forwarded_for_hops=self.hops)
            verdict = self.limit.hit(key, now=time.monotonic())
            if not verdict.allowed:
                body = {
                    "error": "rate_limited",
                    "error_description": "too many sign-in requests from this address; retry "
                    f"in {verdict.reset} s",
                }
                headers = {**verdict.headers(), "Cache-Control": "no-store"}
                await JSONResponse(body, status_code=429, headers=headers)(scope, receive, send)
                return
        await self.app(scope, receive, send)
