"""Rate limits per key (Content and Signal APIs) and per client address (public reads).

Fixed windows counted in this process's memory: on Cloud Run each instance counts its own
requests, so a key's ceiling across the service is the limit times the instances serving it
(docs: content-api.md "Rate limits"; the shared per-address ceiling is Cloud Armor's, in
terraform/). Every limited answer carries the IETF RateLimit header fields
(draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "content";q=3000;w=60` and
`RateLimit: "content";r=2999;t=42`; past the limit it is 429 `rate_limited` with
`Retry-After`. A limit of 0 turns a policy off.

`WindowCounter` is the one limiter of the service: the keyed and public policies here,
/collect's form, visitor and address windows (api/rest/collect.py) and the sign-in pages'
per-address count (api/oauth/address_limits.py) all count with it. The `limits` library was
weighed and not taken: its memory storage reads the wall clock itself (no clock can be passed
in, so neither a steady clock nor a test's clock drives its windows), re-arms a timer thread
every 10 ms while it holds keys, and its shared storages (Redis, Memcached, MongoDB) are
nothing this service runs; on Google Cloud it would count per instance in memory, as this does.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from flask import Flask, Response, g

from api.errors import rate_limited

__all__ = ["RateLimits", "RateVerdict", "WindowCounter", "install_rate_limit_headers"]


@dataclass(frozen=True)
class RateVerdict:
    """One counted request: the policy, what is left and when the window resets."""

    policy: str
    quota: int
    window: int
    remaining: int
    reset: int
    allowed: bool

    def headers(self) -> dict[str, str]:
        """The RateLimit-Policy and RateLimit fields (plus Retry-After when refused)."""
        fields = {
            "RateLimit-Policy": f'"{self.policy}";q={self.quota};w={self.window}',
            "RateLimit": f'"{self.policy}";r={self.remaining};t={self.reset}',
        }
        if not self.allowed:
            fields["Retry-After"] = str(self.reset)
        return fields


class WindowCounter:
    """Fixed-window counts per partition (a key id or a client address hash), thread-safe."""

    _MAX_PARTITIONS = 50_000

    def __init__(self, *, policy: str, quota: int, window_seconds: int) -> None:
        self.policy = policy
        self.quota = quota
        self.window = window_seconds
        self._hits: dict[str, tuple[float, int]] = {}
        self._lock = threading.Lock()

    def hit(self, partition: str, *, now: float) -> RateVerdict:
        """Count one request of `partition` at `now` (seconds on any steady clock)."""
        with self._lock:
            if len(self._hits) > self._MAX_PARTITIONS:
                self._hits = {k: v for k, v in self._hits.items() if v[0] + self.window > now}
            start, count = self._hits.get(partition, (now, 0))
            if start + self.window <= now:
                start, count = now, 0
            count += 1
            self._hits[partition] = (start, count)
        reset = max(1, math.ceil(start + self.window - now))
        return RateVerdict(
            policy=self.policy,
            quota=self.quota,
            window=self.window,
            remaining=max(0, self.quota - count),
            reset=reset,
            allowed=count <= self.quota,
        )


class RateLimits:
    """One counter per policy name (`content`, `signals`, `ingest`, `public`, ...)."""

    def __init__(
        self, quotas: Mapping[str, int], *, window_seconds: int, clock: Callable[[], float]
    ) -> None:
        self._clock = clock
        self._counters = {
            name: WindowCounter(policy=name, quota=quota, window_seconds=window_seconds)
            for name, quota in quotas.items()
            if quota > 0
        }

    def check(self, policy: str, partition: str, *, advertise: bool = True) -> None:
        """Count one request; remember the header fields for the answer (with `advertise`
        false, only a refusal carries them: a cacheable public answer must not hand one
        client's count to the next through a shared cache).

        Raises: ApiError 429 `rate_limited` (with Retry-After and the RateLimit fields).
        """
        counter = self._counters.get(policy)
        if counter is None:
            return
        verdict = counter.hit(partition, now=self._clock())
        if advertise:
            g.rate_limit = verdict
        if not verdict.allowed:
            raise rate_limited(
                f"Too many requests for this {'address' if policy == 'public' else 'key'}; "
                f"retry in {verdict.reset} s",
                headers=verdict.headers(),
            )


def install_rate_limit_headers(app: Flask) -> None:
    """Add the RateLimit fields of a counted request to its answer (success or error)."""

    @app.after_request
    def add_fields(response: Response) -> Response:
        verdict: RateVerdict | None = g.get("rate_limit")
        if verdict is not None:
            for name, value in verdict.headers().items():
                response.headers.setdefault(name, value)
        return response
