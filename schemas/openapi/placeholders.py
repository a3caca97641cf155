"""Models that only the OpenAPI document needs, named `...Doc`: shapes the views parse by hand.

Query strings, the merge patch, the ingest batch, collect's two bodies, and the tool server's
and OAuth discovery's bodies are parsed by their views without a pydantic model; these
describe them. When a surface gets a real model, name it in its row of the table instead and
delete the stand-in here.
"""

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.content.pages import PageBlock
from schemas.signals.events import EventInput, PageIn
from schemas.signals.rollups import Stage

# api/rest/collect.py's FORM_TYPES and BEACON_TYPES, which a schema cannot import.
FormType = Literal[
    "lead_form", "newsletter_signup", "briefing_registration", "book_call", "identify"
]
BeaconType = Literal["page_view", "cta_click"]


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


# Content API (api/rest/content.py parses these by hand).


class PageListQueryDoc(_Doc):
    status: Literal["draft", "published", "unpublished"] | None = None
    partner: str | None = Field(
        default=None,
        description=(
            "content_admin keys: only this partner's pages. Another key naming a partner"
            " other than its own is refused: 400 `invalid_query` naming `partner`"
        ),
    )
    cursor: str | None = Field(default=None, description="`next_cursor` of the previous page")
    limit: int = Field(default=20, ge=1, le=100)


class VersionListQueryDoc(_Doc):
    cursor: str | None = Field(default=None, description="`next_cursor` of the previous page")
    limit: int = Field(default=20, ge=1, le=100)


class PageStatsQueryDoc(_Doc):
    days: int = Field(
        default=28, ge=1, le=366, description="The last N days up to today (UTC); not with since"
    )
    since: date | None = Field(
        default=None, description="The first day counted (UTC); until defaults to today"
    )
    until: date | None = Field(default=None, description="The last day counted, included")
    by: Literal["day", "source", "campaign", "variant"] | None = Field(
        default=None, description="One row per day of the range, or per value, most viewed first"
    )


class PagePatchDoc(_Doc):
    """A JSON merge patch (RFC 7396) over the stored input: no field is required."""

    title: str | None = Field(default=None, max_length=60)
    description: str | None = Field(default=None, max_length=160)
    og_image_url: str | None = None
    cta_label: str | None = Field(default=None, max_length=40)
    cta_href: str | None = None
    noindex: bool | None = None
    is_published: bool | None = None
    blocks: list[PageBlock] | None = Field(default=None, description="Replaces the whole list")


# Signal API (api/rest/signal_query.py and api/rest/collect.py parse these by hand).


class SignalsQueryDoc(_Doc):
    since: str | None = Field(default=None, description="ISO-8601 time or a `next_since` cursor")
    until: str | None = Field(default=None, description="ISO-8601 time; upper bound on recorded_at")
    days: int = Field(
        default=7,
        ge=1,
        le=365,
        description="The last N days: the window when there is no since; given with a since "
        "older than N days, it starts there instead",
    )
    type: str | None = Field(default=None, description="Event types, comma-separated")
    domain: str | None = Field(
        default=None, description="One company domain; bücher.de and xn--bcher-kva.de are one"
    )
    email: str | None = None
    q: str | None = Field(
        default=None, max_length=200, description="Words in person, account, page, properties"
    )
    limit: int = Field(default=100, ge=1, le=1000)
    utm_campaign: str | None = Field(
        default=None, max_length=200, description="Site events of this campaign (utm_campaign)"
    )
    utm_source: str | None = Field(
        default=None, max_length=200, description="Site events of this source (utm_source)"
    )
    path: str | None = Field(
        default=None, max_length=500, description="Events on this page path, exactly (`/p/x`)"
    )


class LatestQueryDoc(_Doc):
    """GET /signals/latest: the stream's filters, no window."""

    type: str | None = Field(default=None, description="Event types, comma-separated")
    domain: str | None = Field(default=None, description="One company domain")
    email: str | None = None
    q: str | None = Field(
        default=None, max_length=200, description="Words in person, account, page, properties"
    )
    path: str | None = Field(default=None, max_length=500, description="One page path, exactly")
    utm_campaign: str | None = Field(default=None, max_length=200)
    utm_source: str | None = Field(default=None, max_length=200)
    limit: int = Field(default=20, ge=1, le=1000)


class AccountsQueryDoc(_Doc):
    since: str | None = Field(default=None, description="ISO-8601 time or a `next_since` cursor")
    days: int = Field(
        default=7,
        ge=1,
        le=365,
        description="An event recorded in the last N days: the window when there is no since"
        " (none by default with sort=score or active_days); given with a since older than N"
        " days, it starts there instead",
    )
    active_days: int | None = Field(
        default=None,
        ge=1,
        le=365,
        description="The latest touch happened (occurred_at) in the last N days: an old touch"
        " imported today is not recent activity",
    )
    stage: Stage | None = Field(default=None, description="This stage or higher")
    limit: int = Field(default=50, ge=1, le=500)
    sort: Literal["recent", "score"] = Field(
        default="recent",
        description="recent: the most recently recorded event first (last_recorded_at); score:"
        " highest score first",
    )
    min_score: int = Field(default=0, ge=0, le=100, description="Accounts scoring at least this")
    cursor: str | None = Field(default=None, description="A `next_cursor` of the same sort")


class IngestBatchDoc(_Doc):
    """Up to 500 events; each is validated on its own and refused alone when it fails."""

    events: list[EventInput] = Field(min_length=1, max_length=500)
    imported: bool = Field(
        default=False,
        alias="import",
        description="History (a CRM export, a backfill): stored and delivered as usual, never"
        " alerting; each event reads `imported: true`",
    )


class BeaconPropertiesDoc(BaseModel):
    """What a browser saw besides the page: campaign, referrer, visitor id, the CTA clicked."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    utm_source: str | None = None
    utm_medium: str | None = None
    utm_campaign: str | None = None
    utm_term: str | None = None
    utm_content: str | None = None
    referrer: str | None = None
    visitor_id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_-]{8,64}$")
    variant: str | None = Field(
        default=None,
        pattern=r"^[a-z0-9][a-z0-9-]{0,31}$",
        description="The variant of the page served (`control`, the default, is the page itself)",
    )
    cta_label: str | None = Field(default=None, description="cta_click: the button's text")
    cta_href: str | None = Field(default=None, description="cta_click: where the button leads")


class CollectBeaconDoc(BaseModel):
    """A JSON beacon of the site's own pages (at most 16 KiB): what the browser saw. A person,
    an account, a time or a form type are refused (422, each named); the time is the
    server's."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    type: BeaconType
    id: str | None = Field(
        default=None, pattern=r"^[A-Za-z0-9_-]{8,64}$", description="Repeat-safe beacon id"
    )
    page: PageIn | None = None
    properties: BeaconPropertiesDoc | None = None


class CollectFormDoc(BaseModel):
    """A form the visitor sends: a landing page form (works without JavaScript), or the
    beacon's `identify` (no page needed, a visitor id required). Limited per client address
    whatever the visitor id."""

    page: str | None = Field(
        default=None, max_length=80, description="The page's slug (every type but identify)"
    )
    type: FormType = "lead_form"
    email: str
    name: str | None = None
    company: str | None = None
    website: str | None = Field(default=None, description="Honeypot: leave empty")
    visitor_id: str | None = Field(
        default=None, description="The beacon's visitor id (the beacon script adds it)"
    )
    utm_source: str | None = Field(
        default=None, description="Else taken from the Referer page URL's query, as utm_*"
    )
    utm_medium: str | None = None
    utm_campaign: str | None = None
    utm_term: str | None = None
    utm_content: str | None = None
    referrer: str | None = Field(default=None, description="The page's own referrer")
    variant: str | None = Field(
        default=None,
        pattern=r"^[a-z0-9][a-z0-9-]{0,31}$",
        description="The variant of the page served (a hidden field; `control` when absent)",
    )


# Tool server and OAuth discovery.


class JsonRpcDoc(BaseModel):
    """A JSON-RPC 2.0 message (MCP streamable HTTP)."""

    jsonrpc: Literal["2.0"] = "2.0"
    id: int | str | None = None
    method: str | None = None
    params: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class OAuthErrorDoc(BaseModel):
    """An OAuth 2.0 bearer-token error (RFC 6750): /mcp's 401 and insufficient-scope 403."""

    error: str = Field(examples=["invalid_token"])
    error_description: str | None = None


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
