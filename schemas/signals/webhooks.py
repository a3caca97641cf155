"""Webhook endpoints and deliveries on the Signal API: request bodies, views and response bodies.

Views never carry a signing secret; only the create and rotate bodies do, once.
"""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from schemas.signals.events import EventType
from schemas.signals.evidence import Evidence
from schemas.signals.rollups import Stage
from schemas.signals.scores import Trend

DeliveryStatusName = Literal["pending", "succeeded", "failed"]
WebhookKind = Literal["standard", "slack"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class WebhookInput(_Strict):
    """POST /signals/webhooks: where to send which event types."""

    url: str = Field(
        max_length=2000,
        description="https, never a private, loopback, link-local, multicast or reserved address"
        " (loopback http is allowed in embedded mode only)",
        examples=["https://hooks.example.com/kestrel"],
    )
    types: list[EventType] | None = Field(
        default=None,
        max_length=20,
        description="Event types to send; every type when absent, null or [] (with slack"
        " `stages`: stage alerts only)",
    )
    description: str | None = Field(default=None, max_length=200)
    kind: WebhookKind = Field(
        default="standard",
        description="standard: Standard Webhooks JSON, signed; slack: a Slack incoming-webhook"
        " URL, sent Slack's message format (text and Block Kit blocks)",
    )
    stages: list[Stage] | None = Field(
        default=None,
        max_length=4,
        description="slack only: also alert when an account reaches one of these stages;"
        " with no `types`, alert on stages only",
        examples=[["hand_raiser"]],
    )

    @field_validator("stages")
    @classmethod
    def _stages_for_slack(cls, stages: list[Stage] | None, info: ValidationInfo) -> object:
        # `kind` is declared first, so it is read here (absent when it failed on its own).
        if stages and info.data.get("kind", "slack") != "slack":
            raise PydanticCustomError("slack_only", 'only with "kind": "slack"')
        return stages


class DeliveryAccount(_Strict):
    """The event's account as it stood when the delivery was made (after the event was stored)."""

    domain: str = Field(examples=["acme.com"])
    name: str | None = None
    stage: Stage
    stage_reached_at: datetime | None = None
    stage_event: Evidence | None = Field(
        default=None, description="The event that reached the stage (words: this event's only)"
    )
    score: int = Field(ge=0, le=100)
    trend: Trend
    reasons: list[str] = Field(description="As the account's summary, quoting this event only")


class DeliveryPerson(_Strict):
    """The event's person as they stood when the delivery was made."""

    email: str = Field(examples=["ada@acme.com"])
    name: str | None = None
    stage: Stage
    stage_reached_at: datetime | None = None
    score: int = Field(ge=0, le=100)
    trend: Trend


class DeliveryEnvelope(_Strict):
    """A Standard Webhooks delivery's body: one event, `data` as the stream serves it, and
    `timestamp` written as every time of the API is (UTC, `Z`); `account` and `person` as they
    stood once the event was stored, so a receiver needs no second call."""

    type: str = Field(examples=["signal.book_call"])
    timestamp: datetime
    data: dict[str, Any]
    fresh: bool = Field(
        default=True,
        description="The touch happened within the freshness window (SIGNAL_FRESH_HOURS, 24 by"
        " default) and was not imported: what Slack and stage alerts fire on",
    )
    account: DeliveryAccount | None = Field(default=None, description="null: no account")
    person: DeliveryPerson | None = Field(default=None, description="null: no person")


class WebhookEndpointView(_Strict):
    """An endpoint as partners see it."""

    id: str = Field(examples=["wh_0123456789ab"])
    url: str
    types: list[EventType] | None = Field(description="null: every type")
    description: str | None = None
    kind: WebhookKind = "standard"
    stages: list[Stage] | None = None
    enabled: bool = Field(description="false once the receiver answered 410 Gone")
    disabled_at: datetime | None = None
    disabled_reason: str | None = None
    created_at: datetime


class WebhookSecretBody(_Strict):
    """Create and rotate: the endpoint and its new secret, shown this once."""

    ok: Literal[True] = True
    endpoint: WebhookEndpointView
    secret: str = Field(
        description="`whsec_...`, shown this once",
        examples=["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
    )
    previous_secret_expires_at: datetime | None = Field(
        default=None, description="Rotate: the old secret still signs until this time"
    )


class WebhookListBody(_Strict):
    ok: Literal[True] = True
    endpoints: list[WebhookEndpointView]


class WebhookDeletedBody(_Strict):
    ok: Literal[True] = True
    deleted: str = Field(description="The endpoint id")


class DeliveryView(_Strict):
    """One event sent to one endpoint; `id` is the `webhook-id` header of every attempt."""

    id: str = Field(examples=["msg_5f2b6a0c9d8e7f6a5b4c3d2e1f0a9b8c"])
    endpoint_id: str
    event_id: str
    event_type: EventType
    status: DeliveryStatusName
    attempts: int = Field(description="Attempts in the current round (a replay starts a new one)")
    replays: int
    last_status: int | None = Field(default=None, description="The receiver's last HTTP status")
    last_error: str | None = None
    last_attempt_at: datetime | None = None
    next_attempt_at: datetime | None = None
    created_at: datetime


class WebhookTestBody(_Strict):
    """POST .../webhooks/{id}/test: what the receiver said to a signed test delivery."""

    ok: Literal[True] = True
    webhook_id: str = Field(
        description="The test delivery's `webhook-id` (not in the delivery log)",
        examples=["msg_0f1e2d3c4b5a69788796a5b4c3d2e1f0"],
    )
    delivered: bool = Field(description="The receiver answered 2xx")
    status: int | None = Field(
        description="The receiver's HTTP status; null when there was no answer (see `error`)"
    )
    error: str | None = Field(
        default=None,
        description="Why it was not delivered: `HTTP <status>`, `timeout`, `connection failed:"
        " ...` or `unsafe_url: ...`; the receiver's body is never echoed",
    )


class DeliveryListBody(_Strict):
    ok: Literal[True] = True
    deliveries: list[DeliveryView]


class DeliveryBody(_Strict):
    ok: Literal[True] = True
    delivery: DeliveryView


class DeliveriesQuery(_Strict):
    """GET .../deliveries query."""

    status: DeliveryStatusName | None = None
    limit: int = Field(default=100, ge=1, le=500)

    @field_validator("limit", mode="before")
    @classmethod
    def _ascii_digits(cls, value: object) -> object:
        # As every numeric query: "+5", "5.0", "1_0" and non-ASCII digits are refused.
        if isinstance(value, str) and not (value.isascii() and value.isdigit()):
            raise ValueError("a whole number in ASCII digits")
        return value


class AttemptInput(_Strict):
    """The internal attempt task's body (Cloud Tasks to POST /internal/deliveries/{id}/attempt)."""

    delivery_id: str
    attempt: int = Field(ge=1)
    replays: int = Field(ge=0)
