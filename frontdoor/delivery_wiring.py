"""The webhook-delivery settings of one process (DeliveryOptions, the internal token) and the
delivery ports the adapter family's builder (frontdoor/embedded.py, frontdoor/gcp.py) makes.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

from backends.clock import utc_now
from backends.ports import DeliveryOptions, TaskQueue, WebhookStore
from backends.secret_box import SecretBox
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
    attempt_base_url = (settings.internal_base_url or settings.base_url).rstrip("/")
    return DeliveryOptions(
        attempt_base_url=attempt_base_url,
        internal_token=_internal_token(settings),
        retry_delays=delays,
        # Settings refuses the setting on a public bind; checked here too, as a copy of the
        # settings (model_copy) skips that check.
        allow_loopback=settings.webhook_allow_loopback and settings.listens_on_loopback,
        own_origins=_own_origins(settings, attempt_base_url),
        fresh_window=timedelta(hours=settings.signal_fresh_hours),
        public_base_url=settings.base_url.rstrip("/"),
    )


def _own_origins(settings: Settings, attempt_base_url: str) -> tuple[tuple[str, int], ...]:
    """This service's (host, port) pairs: where it listens, its public and internal URLs."""
    origins = [(settings.host.strip("[]").lower(), settings.port)]
    if settings.host in ("0.0.0.0", "::", ""):  # noqa: S104  # a public bind answers on loopback too
        origins.append(("127.0.0.1", settings.port))
    for url in (settings.base_url, attempt_base_url):
        parts = urlsplit(url)
        if parts.hostname:
            port = parts.port or (443 if parts.scheme == "https" else 80)
            origins.append((parts.hostname.rstrip(".").lower(), port))
    return tuple(dict.fromkeys(origins))


def webhook_secrets_box(settings: Settings) -> SecretBox:
    """The key webhook secrets are sealed with: WEBHOOK_SECRETS_KEY (Secret Manager on Google
    Cloud, terraform/secrets.tf); else one kept in DATA_DIR, 0600 (embedded and emulated runs).

    Raises: ValueError on Google Cloud without the setting.
    """
    if settings.webhook_secrets_key is not None:
        return SecretBox(settings.webhook_secrets_key.get_secret_value())
    if settings.backend != "embedded" and not settings.firestore_emulator_host:
        raise ValueError("BACKEND=gcp needs WEBHOOK_SECRETS_KEY (terraform/secrets.tf)")
    return SecretBox(
        kept_secret(
            Path(settings.data_dir) / "webhook_secrets_key", lambda: secrets.token_urlsafe(32)
        )
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
