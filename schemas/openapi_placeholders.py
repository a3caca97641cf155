"""Stand-in models for the OpenAPI table, named `...Doc`, until their surface's real models land.

Each documents DESIGN.md's shape for a surface whose schemas module is still being written
(schemas/signals.py, the webhooks, OAuth metadata, the tool server). When the real model
exists, change the one line in `schemas.openapi` that names the placeholder and delete it here.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

EventType = Literal[
    "book_call",
    "url_entered",
    "article_read",
    "research_unlock",
    "newsletter_signup",
    "wizard_progress",
    "slack_request",
    "briefing_registration",
    "email_open",
    "email_click",
    "lead_form",
]
Stage = Literal["aware", "engaged", "evaluating", "hand_raiser"]


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


# Content API (DESIGN "Pages").


class PageListQueryDoc(_Doc):
    status: Literal["draft", "published", "unpublished"] | None = None
    cursor: str | None = Field(default=None, description="`next_cursor` of the previous page")
    limit: int = Field(default=50, ge=1, le=200)


class PagePatchDoc(_Doc):
    """A JSON merge patch (RFC 7396) over the stored input: no field is required."""

    title: str | None = Field(default=None, max_length=60)
    description: str | None = Field(default=None, max_length=160)
    og_image_url: str | None = None
    cta_label: str | None = Field(default=None, max_length=40)
    cta_href: str | None = None
    noindex: bool | None = None
    is_published: bool | None = None
    blocks: list[dict[str, Any]] | None = Field(
        default=None, description="Replaces the whole block list (PageBlock items)"
    )


# Signal API (DESIGN "Signals").


class PersonRefDoc(_Doc):
    email: str | None = None
    name: str | None = None


class AccountRefDoc(_Doc):
    domain: str | None = None
    name: str | None = None


class PageRefDoc(_Doc):
    url: str | None = None
    path: str | None = None
    title: str | None = None


class SignalEventDoc(_Doc):
    """One touch; `id` is `<source>:<row_id>`, stable, and the idempotency key."""

    id: str = Field(examples=["site:8f2c1a"])
    type: EventType
    source: str
    occurred_at: datetime = Field(description="When it happened")
    recorded_at: datetime = Field(description="When it was stored; the stream's order")
    person: PersonRefDoc | None = None
    account: AccountRefDoc | None = None
    page: PageRefDoc | None = None
    properties: dict[str, Any] = Field(default_factory=dict)


class SignalStreamDoc(_Doc):
    ok: Literal[True] = True
    events: list[SignalEventDoc] = Field(description="Newest first")
    next_since: str = Field(description="Pass as `since` on the next poll")
    has_more: bool


class SignalsQueryDoc(_Doc):
    since: str | None = Field(default=None, description="ISO-8601 time or a `next_since` cursor")
    until: datetime | None = Field(default=None, description="Upper bound on recorded_at")
    days: int | None = Field(default=None, ge=1, le=365, description="Default 7 without since")
    type: EventType | None = None
    domain: str | None = None
    email: str | None = None
    q: str | None = Field(default=None, description="Words in person, account, page, properties")
    limit: int = Field(default=100, ge=1, le=1000)


class AccountsQueryDoc(_Doc):
    since: str | None = Field(default=None, description="ISO-8601 time or a `next_since` cursor")
    days: int | None = Field(default=None, ge=1, le=365, description="Default 7 without since")
    stage: Stage | None = Field(default=None, description="This stage or higher")
    limit: int = Field(default=50, ge=1, le=500)


class AccountPersonDoc(_Doc):
    email: str
    name: str | None = None
    stage: Stage


class CountsDoc(_Doc):
    people: int
    pages: int
    events: int


class AccountSummaryDoc(_Doc):
    domain: str
    name: str | None = None
    stage: Stage
    people: list[AccountPersonDoc]
    pages: list[str] = Field(description="Distinct paths, most touched first")
    sources: list[str]
    counts: CountsDoc
    first_seen: datetime
    last_seen: datetime


class AccountListDoc(_Doc):
    ok: Literal[True] = True
    accounts: list[AccountSummaryDoc]
    next_since: str
    has_more: bool


class AccountBodyDoc(_Doc):
    ok: Literal[True] = True
    seen: bool = Field(description="false for an unknown domain (never 404)")
    account: AccountSummaryDoc | None = None
    timeline: list[SignalEventDoc] = Field(default_factory=list)


class PersonSummaryDoc(_Doc):
    email: str
    name: str | None = None
    stage: Stage
    account: AccountRefDoc | None = None
    pages: list[str]
    sources: list[str]
    counts: CountsDoc
    first_seen: datetime
    last_seen: datetime


class PersonBodyDoc(_Doc):
    ok: Literal[True] = True
    seen: bool
    person: PersonSummaryDoc | None = None
    timeline: list[SignalEventDoc] = Field(default_factory=list)


class ErasureDoc(_Doc):
    ok: Literal[True] = True
    email: str
    erased_events: int


class IngestEventDoc(_Doc):
    source: str = Field(examples=["crm"])
    row_id: str = Field(examples=["42"])
    type: EventType
    occurred_at: datetime
    person: PersonRefDoc | None = None
    account: AccountRefDoc | None = None
    page: PageRefDoc | None = None
    properties: dict[str, Any] = Field(default_factory=dict)


class IngestBatchDoc(_Doc):
    events: list[IngestEventDoc] = Field(min_length=1, max_length=500)


class RefusedEventDoc(_Doc):
    index: int
    id: str | None = None
    issues: list[dict[str, str]]


class IngestResultDoc(_Doc):
    ok: Literal[True] = True
    accepted: list[str]
    refused: list[RefusedEventDoc]


class CollectDoc(BaseModel):
    """A site form post or beacon; unknown form fields go to `properties`."""

    type: EventType
    email: str | None = None
    name: str | None = None
    url: str | None = None
    website: str | None = Field(default=None, description="The URL a visitor entered")
    redirect: str | None = Field(default=None, description="Site path to return to (forms)")


class CollectedDoc(_Doc):
    ok: Literal[True] = True
    id: str


class OkDoc(_Doc):
    ok: Literal[True] = True


# Tool server and OAuth discovery.


class JsonRpcDoc(BaseModel):
    """A JSON-RPC 2.0 message (MCP streamable HTTP)."""

    jsonrpc: Literal["2.0"] = "2.0"
    id: int | str | None = None
    method: str | None = None
    params: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class AuthServerMetadataDoc(BaseModel):
    """RFC 8414 authorization server metadata."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    registration_endpoint: str | None = None
    scopes_supported: list[str]
    code_challenge_methods_supported: list[str]


class ProtectedResourceDoc(BaseModel):
    """RFC 9728 protected resource metadata for /mcp."""

    resource: str
    authorization_servers: list[str]
    scopes_supported: list[str]
    bearer_methods_supported: list[str]
