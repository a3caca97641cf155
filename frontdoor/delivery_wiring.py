"""The webhook-delivery settings of one process (DeliveryOptions, the internal token) and the
delivery ports the adapter family's builder (frontdoor/embedded.py, frontdoor/gcp.py) makes.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from backends.bundle import utc_now
from backends.ports import DeliveryOptions, TaskQueue, WebhookStore
from frontdoor.kept_secrets import kept_secret
from frontdoor.settings import Settings
from services.deliveries import AccountLookup, PersonLookup, WebhookDeliveries
from services.delivery_policy import RETRY_DELAYS

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DeliveryPorts:
    """The delivery ports a builder makes: store, task queue, fan-out, options."""

    webhooks: WebhookStore
    tasks: TaskQueue
    deliveries: WebhookDeliveries
    options: DeliveryOptions

    @classmethod
    def over(
        cls,
        *,
        webhooks: WebhookStore,
        tasks: TaskQueue,
        options: DeliveryOptions,
        accounts: AccountLookup,
        people: PersonLookup,
    ) -> DeliveryPorts:
        """The ports of one family's webhook store and task queue, fanned out on the clock."""
        deliveries = WebhookDeliveries(
            webhooks=webhooks,
            tasks=tasks,
            options=options,
            clock=utc_now,
            accounts=accounts,
            people=people,
        )
        return cls(webhooks=webhooks, tasks=tasks, deliveries=deliveries, options=options)


def delivery_options(settings: Settings) -> DeliveryOptions:
    """DeliveryOptions from the settings (DESIGN's retry schedule unless overridden)."""
    delays = (
        tuple(timedelta(seconds=s) for s in settings.webhook_retry_delays)
        if settings.webhook_retry_delays is not None
        else RETRY_DELAYS
    )
    allow_loopback = settings.webhook_allow_loopback
    if allow_loopback is None:
        allow_loopback = settings.backend == "embedded"
    return DeliveryOptions(
        attempt_base_url=(settings.internal_base_url or settings.base_url).rstrip("/"),
        internal_token=_internal_token(settings),
        retry_delays=delays,
        allow_loopback=allow_loopback,
        fresh_window=timedelta(hours=settings.signal_fresh_hours),
        public_base_url=settings.base_url.rstrip("/"),
    )


def _internal_token(settings: Settings) -> str:
    """INTERNAL_TOKEN; else one kept in DATA_DIR (embedded, shared by every worker process)."""
    if settings.internal_token is not None:
        return settings.internal_token.get_secret_value()
    if settings.backend != "embedded":
        logger.warning("INTERNAL_TOKEN is unset: the delivery attempt route refuses every call")
        return ""
    return kept_secret(
        Path(settings.data_dir) / "internal_token", lambda: secrets.token_urlsafe(32)
    )
