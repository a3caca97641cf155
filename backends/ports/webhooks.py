"""Webhooks (the Signal API's pushes) and the task queue that delivers them.

Protocols and value types only; nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal, Protocol


@dataclass(frozen=True)
class HttpTask:
    """One outbound HTTP POST, run at `schedule_time` (or at once); `name` dedupes enqueues."""

    name: str
    url: str
    body: bytes
    headers: dict[str, str] = field(repr=False)
    schedule_time: datetime | None = None


class TaskQueue(Protocol):
    """Outbound HTTP tasks, at least once: the queue retries a task until it answers 2xx."""

    def enqueue(self, task: HttpTask) -> bool:
        """Queue one task; False if one of this name was queued before. Raises: UnavailableError."""


@dataclass(frozen=True)
class WebhookSecret:
    """One `whsec_` signing secret.

    Kept in clear because signing needs it: a secret at rest, protected by the store's access
    control (Firestore IAM; the DATA_DIR database file in embedded mode), never logged or listed.
    """

    value: str = field(repr=False)
    created_at: datetime
    expires_at: datetime | None = None  # set when rotated out: the end of the overlap


@dataclass(frozen=True)
class WebhookEndpoint:
    """A partner's webhook target; `secrets[0]` is current, any others are in rotation overlap."""

    endpoint_id: str
    partner: str
    url: str
    types: tuple[str, ...]  # event types to send; empty means every type
    description: str
    secrets: tuple[WebhookSecret, ...]
    created_at: datetime
    disabled_at: datetime | None = None
    disabled_reason: str | None = None
    kind: str = "standard"  # "standard" (Standard Webhooks) or "slack" (an incoming webhook)
    stages: tuple[str, ...] = ()  # slack: also alert when an account reaches one of these

    @property
    def active(self) -> bool:
        return self.disabled_at is None


DeliveryStatus = Literal["pending", "succeeded", "failed"]
DELIVERY_STATUSES: tuple[DeliveryStatus, ...] = ("pending", "succeeded", "failed")


@dataclass(frozen=True)
class Delivery:
    """One event for one endpoint; its id is the `webhook-id`, the same on every attempt."""

    delivery_id: str
    endpoint_id: str
    event_id: str
    event_type: str
    payload: str = field(repr=False)  # the JSON body, fixed so every attempt signs the same bytes
    status: DeliveryStatus
    created_at: datetime
    attempts: int = 0
    replays: int = 0
    last_status_code: int | None = None
    last_error: str | None = None
    last_attempt_at: datetime | None = None
    next_attempt_at: datetime | None = None


class WebhookStore(Protocol):
    """Webhook endpoints (with their signing secrets) and the deliveries made to them."""

    def add_endpoint(self, endpoint: WebhookEndpoint) -> None:
        """Store a new endpoint. Raises: ConflictError if its id exists."""

    def get_endpoint(self, endpoint_id: str) -> WebhookEndpoint | None:
        """The endpoint with this id, disabled or not."""

    def list_endpoints(self, *, partner: str | None = None) -> list[WebhookEndpoint]:
        """Every endpoint (of one partner, if given), oldest first."""

    def delete_endpoint(self, endpoint_id: str) -> None:
        """Remove an endpoint; its deliveries stay readable by id. Raises: NotFoundError."""

    def set_secrets(
        self, endpoint_id: str, secrets: tuple[WebhookSecret, ...], *, if_current: str | None = None
    ) -> WebhookEndpoint:
        """Replace the endpoint's secrets; with `if_current`, only while its current (first)
        secret is still that value. Raises: NotFoundError, ConflictError."""

    def disable_endpoint(self, endpoint_id: str, *, reason: str, now: datetime) -> WebhookEndpoint:
        """Disable (idempotent: the first reason and time stay). Raises: NotFoundError."""

    def add_delivery(self, delivery: Delivery) -> bool:
        """Store a new delivery; False (and no change) if its id exists."""

    def get_delivery(self, delivery_id: str) -> Delivery | None:
        """The delivery with this id, if any."""

    def update_delivery(self, delivery: Delivery, *, if_attempts: int, if_replays: int) -> None:
        """Store `delivery` if the stored one still has these counts.

        Raises: ConflictError, NotFoundError.
        """

    def list_deliveries(
        self, endpoint_id: str, *, status: DeliveryStatus | None = None, limit: int = 100
    ) -> list[Delivery]:
        """One endpoint's deliveries, newest first, optionally of one status."""

    def erase_deliveries_for_events(self, event_ids: Sequence[str]) -> int:
        """Remove every delivery of these events (a person's erasure); how many were removed.

        Raises: UnavailableError.
        """

    def seal_clear_secrets(self) -> int:
        """Seal the signing secrets an earlier version stored in clear; how many endpoints
        changed (0 once done: safe to run again). Raises: UnavailableError."""


@dataclass(frozen=True)
class DeliveryOptions:
    """How delivery tasks reach this service and how deliveries behave (built by wiring)."""

    attempt_base_url: str  # this service's origin as the task queue reaches it
    internal_token: str = field(repr=False)  # the queue presents it on the internal attempt route
    retry_delays: tuple[timedelta, ...]  # waits before attempts 2, 3, ...; jittered per delivery
    # http to loopback receivers: only on a loopback bind with WEBHOOK_ALLOW_LOOPBACK (wiring)
    allow_loopback: bool = False
    # this service's own (host, port) pairs, its internal routes' too: never a target
    own_origins: tuple[tuple[str, int], ...] = ()
    rotation_overlap: timedelta = timedelta(hours=24)
    timeout_seconds: float = 10.0
    # Alerts go out only for touches that happened within this window (SIGNAL_FRESH_HOURS).
    fresh_window: timedelta = timedelta(hours=24)
    public_base_url: str = ""  # links in messages (a Slack alert's account timeline)
    # host, port -> addresses; None: the system resolver (tests pass a fixed hosts table)
    resolver: Callable[[str, int], list[str]] | None = field(
        default=None, repr=False, compare=False
    )
