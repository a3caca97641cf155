"""Response bodies of the Signal API and of collect (the OpenAPI document is built from these)."""

from pydantic import BaseModel, ConfigDict, Field

from schemas.errors import Issue
from schemas.signals.events import Event
from schemas.signals.rollups import AccountSummary, PersonSummary


class StreamBody(BaseModel):
    """GET /signals: events newest first; poll again with `since=next_since`."""

    model_config = ConfigDict(defer_build=True)

    ok: bool = True
    events: list[Event]
    next_since: str = Field(description="Opaque cursor: pass it back as `since`")
    has_more: bool = Field(description="More events follow; poll again at once with next_since")


class AccountsBody(BaseModel):
    """GET /signals/accounts: most recently active (or highest score) first; lists capped at 20."""

    model_config = ConfigDict(defer_build=True)

    ok: bool = True
    accounts: list[AccountSummary]
    has_more: bool
    next_cursor: str | None = Field(
        default=None, description="Pass as `cursor` (same sort) for the next page; null at the end"
    )


class AccountBody(BaseModel):
    """GET /signals/accounts/{domain}: summary, people and timeline; `seen: false` if unknown."""

    model_config = ConfigDict(defer_build=True)

    ok: bool = True
    seen: bool
    domain: str
    account: AccountSummary | None = None
    people: list[PersonSummary] = Field(default_factory=list)
    timeline: list[Event] = Field(default_factory=list)
    timeline_truncated: bool = False


class PersonBody(BaseModel):
    """GET /signals/people/{email}: summary and timeline; `seen: false` if unknown."""

    model_config = ConfigDict(defer_build=True)

    ok: bool = True
    seen: bool
    email: str
    person: PersonSummary | None = None
    timeline: list[Event] = Field(default_factory=list)
    timeline_truncated: bool = False


class Refused(BaseModel):
    """One event of a batch that was not accepted, with the fields that failed."""

    model_config = ConfigDict(defer_build=True)

    index: int
    id: str | None
    issues: list[Issue]


class IngestBody(BaseModel):
    """POST /signals/events: 202 when at least one event was accepted."""

    model_config = ConfigDict(defer_build=True)

    ok: bool = True
    accepted: list[str]
    refused: list[Refused]


class EraseBody(BaseModel):
    """DELETE /signals/people/{email}."""

    model_config = ConfigDict(defer_build=True)

    ok: bool = True
    erased: bool
    events_removed: int


class CollectBody(BaseModel):
    """POST /collect (beacon): 202."""

    model_config = ConfigDict(defer_build=True)

    ok: bool = True
    id: str
    recorded: bool = Field(description="True once the event is queued for storing")
