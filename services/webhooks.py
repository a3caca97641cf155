"""Webhook endpoint use cases on the Signal API: register, list, delete, rotate a secret, and
replay a delivery. Keyword-only functions over the webhook ports; each partner sees only its
own endpoints and deliveries (another's answer as ones nobody has). Delivering is
services/deliveries.py.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import datetime

from backends.ports import (
    ConflictError,
    Delivery,
    DeliveryOptions,
    NotFoundError,
    TaskQueue,
    WebhookEndpoint,
    WebhookSecret,
    WebhookStore,
)
from services.deliveries import replay_delivery
from services.delivery_policy import rotate_secrets
from services.signing import new_secret
from services.target_guard import check_target, system_resolver

__all__ = [
    "EndpointDisabledError",
    "NewSecret",
    "check_url",
    "delete_endpoint",
    "own_endpoint",
    "register_endpoint",
    "replay",
    "rotate_secret",
]


class EndpointDisabledError(Exception):
    """The endpoint answered 410 Gone and was disabled; it must be registered again."""


@dataclass(frozen=True)
class NewSecret:
    """An endpoint with the secret it signs with from now on, shown to the partner once."""

    endpoint: WebhookEndpoint
    secret: str
    previous_secret_expires_at: datetime | None = None


# Endpoint ids are `wh_` and hex, delivery ids `msg_` or `job_` and hex. An id no record can have
# never reaches the store: Firestore refuses `__x__` or `..` as a document id (not a "not found").
ROTATE_ATTEMPTS = 5  # re-read and rotate again when another rotation got there first
_RECORD_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")


def check_url(url: str, *, options: DeliveryOptions) -> None:
    """Raises: UnsafeTargetError when deliveries could never go to `url`."""
    check_target(
        url,
        allow_loopback=options.allow_loopback,
        resolve=options.resolver or system_resolver,
        unresolved_ok=True,
        own_origins=options.own_origins,
    )


def register_endpoint(
    *,
    webhooks: WebhookStore,
    options: DeliveryOptions,
    partner: str,
    url: str,
    types: tuple[str, ...],
    description: str,
    now: datetime,
    kind: str = "standard",
    stages: tuple[str, ...] = (),
) -> NewSecret:
    """A new endpoint of `partner` with a fresh secret: a Standard Webhooks receiver, or a
    Slack incoming webhook (`kind="slack"`) that also alerts on account `stages`.

    Raises: UnsafeTargetError.
    """
    check_url(url, options=options)
    secret = new_secret()
    endpoint = WebhookEndpoint(
        endpoint_id=f"wh_{secrets.token_hex(6)}",
        partner=partner,
        url=url.strip(),
        types=tuple(dict.fromkeys(types)),
        description=description,
        secrets=(WebhookSecret(value=secret, created_at=now),),
        created_at=now,
        kind=kind,
        stages=tuple(dict.fromkeys(stages)),
    )
    webhooks.add_endpoint(endpoint)
    return NewSecret(endpoint=endpoint, secret=secret)


def own_endpoint(*, webhooks: WebhookStore, partner: str, endpoint_id: str) -> WebhookEndpoint:
    """The partner's endpoint. Raises: NotFoundError (absent or another partner's)."""
    found = webhooks.get_endpoint(endpoint_id) if _RECORD_ID.match(endpoint_id) else None
    if found is None or found.partner != partner:
        raise NotFoundError(endpoint_id)
    return found


def delete_endpoint(*, webhooks: WebhookStore, partner: str, endpoint_id: str) -> None:
    """Remove the partner's endpoint. Raises: NotFoundError."""
    own_endpoint(webhooks=webhooks, partner=partner, endpoint_id=endpoint_id)
    webhooks.delete_endpoint(endpoint_id)


def rotate_secret(
    *,
    webhooks: WebhookStore,
    options: DeliveryOptions,
    partner: str,
    endpoint_id: str,
    now: datetime,
) -> NewSecret:
    """A new current secret; the old one keeps signing for the overlap. Raises: NotFoundError
    (also when the endpoint was deleted meanwhile), ConflictError (it kept being rotated).

    Written only over the current secret it read: when another rotation landed meanwhile, it
    rotates again over that one (whose secret then overlaps), so both answers name a secret
    that signs, never one another write threw away.
    """
    secret = new_secret()
    for _ in range(ROTATE_ATTEMPTS):
        endpoint = own_endpoint(webhooks=webhooks, partner=partner, endpoint_id=endpoint_id)
        rotated = rotate_secrets(
            endpoint.secrets, new_value=secret, now=now, overlap=options.rotation_overlap
        )
        current = endpoint.secrets[0].value if endpoint.secrets else None
        try:
            updated = webhooks.set_secrets(endpoint_id, rotated, if_current=current)
        except ConflictError:
            continue
        ends = max((s.expires_at for s in rotated if s.expires_at is not None), default=None)
        return NewSecret(endpoint=updated, secret=secret, previous_secret_expires_at=ends)
    raise ConflictError(endpoint_id)


def replay(
    *,
    webhooks: WebhookStore,
    tasks: TaskQueue,
    options: DeliveryOptions,
    partner: str,
    delivery_id: str,
    now: datetime,
) -> Delivery:
    """Deliver one of the partner's deliveries again.

    Raises: NotFoundError (absent, another partner's, or erased meanwhile),
    EndpointDisabledError, ConflictError (the delivery changed meanwhile).
    """
    delivery = webhooks.get_delivery(delivery_id) if _RECORD_ID.match(delivery_id) else None
    endpoint = webhooks.get_endpoint(delivery.endpoint_id) if delivery else None
    if delivery is None or endpoint is None or endpoint.partner != partner:
        raise NotFoundError(delivery_id)
    if not endpoint.active:
        raise EndpointDisabledError(endpoint.endpoint_id)
    return replay_delivery(delivery, webhooks=webhooks, tasks=tasks, options=options, now=now)
