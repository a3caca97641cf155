"""Pure rules of webhook deliveries: ids, type filters, secret rotation, retry schedule, outcomes.

No I/O and no clock: `now` is passed in. The shell that sends and stores is workers/deliveries.py.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from backends.ports import Delivery, WebhookEndpoint, WebhookSecret

__all__ = [
    "JITTER",
    "RETRY_DELAYS",
    "AttemptResult",
    "Outcome",
    "classify",
    "delivery_id_for",
    "endpoint_wants",
    "next_delivery_state",
    "replayed",
    "retry_delay",
    "rotate_secrets",
    "signing_secrets",
]

# DESIGN "Deliveries": the waits before attempts 2..10, about three days in all.
RETRY_DELAYS: tuple[timedelta, ...] = (
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    timedelta(hours=10),
    timedelta(hours=14),
    timedelta(hours=20),
    timedelta(hours=24),
)
JITTER = 0.2  # each wait is scaled by a factor in [1 - JITTER, 1 + JITTER]

Outcome = Literal["succeeded", "gone", "retry"]


@dataclass(frozen=True)
class AttemptResult:
    """What one POST to a receiver gave: a status code, or an error before any answer."""

    status_code: int | None
    error: str | None = None


def delivery_id_for(*, endpoint_id: str, event_id: str) -> str:
    """The stable `webhook-id` of one event sent to one endpoint (the same on every retry)."""
    digest = hashlib.sha256(f"{endpoint_id}\x00{event_id}".encode()).hexdigest()
    return f"msg_{digest[:32]}"


def endpoint_wants(
    endpoint: WebhookEndpoint, event_type: str, *, reached_stage: str | None = None
) -> bool:
    """True if the endpoint is active and its type filter (empty: all) takes this type, or the
    event took its account to one of the endpoint's `stages` (an endpoint with stages and no
    types alerts on stages only)."""
    if not endpoint.active:
        return False
    if reached_stage is not None and reached_stage in endpoint.stages:
        return True
    if endpoint.stages and not endpoint.types:
        return False
    return not endpoint.types or event_type in endpoint.types


def signing_secrets(secrets: Sequence[WebhookSecret], *, now: datetime) -> list[str]:
    """The secrets to sign with now: the current one and any still inside their overlap."""
    return [s.value for s in secrets if s.expires_at is None or s.expires_at > now]


def rotate_secrets(
    secrets: Sequence[WebhookSecret], *, new_value: str, now: datetime, overlap: timedelta
) -> tuple[WebhookSecret, ...]:
    """A new current secret; the old current one keeps signing until `now + overlap`."""
    kept = []
    for old in secrets:
        expires = old.expires_at if old.expires_at is not None else now + overlap
        if expires > now:
            kept.append(dataclasses.replace(old, expires_at=expires))
    return (WebhookSecret(value=new_value, created_at=now), *kept)


def retry_delay(
    delivery_id: str, *, attempts_made: int, replays: int = 0, delays: Sequence[timedelta]
) -> timedelta | None:
    """The jittered wait after `attempts_made` attempts, or None when none are left.

    The jitter is seeded by the delivery, its replay round and the attempt, so a retried
    handler computes the same time, while many deliveries failing together spread out.
    """
    if attempts_made < 1 or attempts_made > len(delays):
        return None
    base = delays[attempts_made - 1]
    seed = f"{delivery_id}:{replays}:{attempts_made}"
    factor = random.Random(seed).uniform(1 - JITTER, 1 + JITTER)  # noqa: S311  # jitter, not security
    return base * factor


def classify(result: AttemptResult) -> Outcome:
    """2xx succeeded; 410 Gone means the receiver asked us to stop; anything else is retried."""
    code = result.status_code
    if code is not None and 200 <= code < 300:
        return "succeeded"
    if code == 410:
        return "gone"
    return "retry"


def next_delivery_state(
    delivery: Delivery, result: AttemptResult, *, now: datetime, delays: Sequence[timedelta]
) -> Delivery:
    """The delivery after one attempt: succeeded, failed, or pending with its next time."""
    attempts = delivery.attempts + 1
    recorded = dataclasses.replace(
        delivery,
        attempts=attempts,
        last_status_code=result.status_code,
        last_error=result.error,
        last_attempt_at=now,
        next_attempt_at=None,
    )
    outcome = classify(result)
    if outcome == "succeeded":
        return dataclasses.replace(recorded, status="succeeded", last_error=None)
    if outcome == "gone":
        return dataclasses.replace(recorded, status="failed", last_error=result.error or "gone")
    wait = retry_delay(
        delivery.delivery_id, attempts_made=attempts, replays=delivery.replays, delays=delays
    )
    if wait is None:
        return dataclasses.replace(recorded, status="failed")
    return dataclasses.replace(recorded, status="pending", next_attempt_at=now + wait)


def replayed(delivery: Delivery, *, now: datetime) -> Delivery:
    """A delivery sent again from the first attempt, in a new replay round."""
    return dataclasses.replace(
        delivery,
        status="pending",
        attempts=0,
        replays=delivery.replays + 1,
        next_attempt_at=now,
    )
