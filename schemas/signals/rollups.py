"""Account and person roll-ups: their state, the stage rules and the per-event fold.

Pure: `fold_event` applies one stored event to the two roll-ups it touches; adapters call it
inside the transaction that stores the event, so roll-ups are never recomputed on read.
Stages, lowest to highest: aware < engaged < evaluating < hand_raiser (DESIGN "Signals").
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.signals.events import Event, EventType
from schemas.signals.evidence import (
    Evidence,
    EvidenceRecord,
    Reason,
    evidence_of,
    evidence_view,
)
from schemas.signals.scores import (
    Trend,
    add_day,
    add_heat,
    days_back,
    event_weight,
    micros,
    score_at,
    score_why,
    trend_at,
)

Stage = Literal["aware", "engaged", "evaluating", "hand_raiser"]
STAGES: tuple[Stage, ...] = ("aware", "engaged", "evaluating", "hand_raiser")
RANK: dict[str, int] = {stage: i for i, stage in enumerate(STAGES)}
ENGAGED_PAGES = 3
LIST_CAP = 20

TYPE_STAGE: dict[EventType, Stage] = {
    "page_view": "aware",
    "cta_click": "aware",
    "identify": "aware",
    "email_open": "aware",
    "article_read": "engaged",
    "newsletter_signup": "engaged",
    "email_click": "engaged",
    "research_unlock": "evaluating",
    "url_entered": "evaluating",
    "wizard_progress": "evaluating",
    "briefing_registration": "evaluating",
    "book_call": "hand_raiser",
    "slack_request": "hand_raiser",
    "lead_form": "hand_raiser",
}


def higher(a: Stage, b: Stage) -> Stage:
    """The higher of two stages."""
    return a if RANK[a] >= RANK[b] else b


def stages_at_or_above(stage: Stage) -> tuple[Stage, ...]:
    """`stage=X` on the accounts list means X or higher."""
    return STAGES[RANK[stage] :]


@dataclass
class PersonRollup:
    """One person's touches so far."""

    email: str
    name: str | None
    domain: str | None
    stage: Stage
    first_seen: datetime
    last_seen: datetime
    last_recorded_at: datetime
    events: int = 0
    pages: dict[str, int] = field(default_factory=dict)
    sources: dict[str, int] = field(default_factory=dict)
    # Scores (schemas/signals/scores.py): heat, when the stage was reached, daily counts
    heat_log: float | None = None
    stage_reached_at: datetime | None = None
    days: dict[str, int] = field(default_factory=dict)
    # Evidence (schemas/signals/evidence.py): the event that reached the stage, the latest touch
    stage_event: EvidenceRecord | None = None
    last_event: EvidenceRecord | None = None


@dataclass
class AccountRollup:
    """One company domain's touches so far; `people` holds each person's email -> brief."""

    domain: str
    name: str | None
    stage: Stage
    first_seen: datetime
    last_seen: datetime
    last_recorded_at: datetime
    events: int = 0
    people: dict[str, dict[str, Any]] = field(default_factory=dict)
    pages: dict[str, int] = field(default_factory=dict)
    sources: dict[str, int] = field(default_factory=dict)
    anon_stage: Stage | None = None  # touches with no person count as one visitor
    anon_pages: list[str] = field(default_factory=list)
    heat_log: float | None = None
    stage_reached_at: datetime | None = None
    days: dict[str, int] = field(default_factory=dict)
    stage_event: EvidenceRecord | None = None
    last_event: EvidenceRecord | None = None


def fold_event(
    account: AccountRollup | None, person: PersonRollup | None, event: Event
) -> tuple[AccountRollup | None, PersonRollup | None]:
    """Both roll-ups with one more event applied (created when absent, updated in place)."""
    email, domain, path = event.person.email, event.account.domain, event.page.path
    occurred = micros(event.occurred_at)
    rank = RANK[TYPE_STAGE[event.type]]
    new_person = person is None or person.domain is None  # first event naming an account
    new_page = False
    if email is not None:
        seen = person.pages if person is not None else {}
        new_page = bool(path) and len(seen) < ENGAGED_PAGES and path not in seen
        person = _fold_person(person, event)
        person.heat_log = add_heat(
            person.heat_log, event_weight(rank, new_person=False, new_page=new_page), occurred
        )
        add_day(person.days, occurred)
    if domain is not None:
        fresh = account is None
        account = _new_account(event) if account is None else account
        before = None if fresh else account.stage
        _touch(account, event)
        account.name = event.account.name or account.name
        if person is None:
            anon = account.anon_pages
            new_page = bool(path) and len(anon) < ENGAGED_PAGES and path not in anon
        weight = event_weight(rank, new_person=person is not None and new_person, new_page=new_page)
        account.heat_log = add_heat(account.heat_log, weight, occurred)
        add_day(account.days, occurred)
        if person is not None:
            account.people[person.email] = {
                "name": person.name,
                "stage": person.stage,
                "events": account.people.get(person.email, {}).get("events", 0) + 1,
                "last_seen": max(person.last_seen, event.occurred_at).isoformat(),
            }
        else:
            path = event.page.path
            if path and path not in account.anon_pages and len(account.anon_pages) < ENGAGED_PAGES:
                account.anon_pages.append(path)
            stage = event_stage(event, len(account.anon_pages))
            account.anon_stage = (
                stage if account.anon_stage is None else higher(account.anon_stage, stage)
            )
        account.stage = _account_stage(account)
        if before is None or RANK[account.stage] > RANK[before]:
            account.stage_reached_at = event.occurred_at
            account.stage_event = evidence_of(event)
        if event.occurred_at >= account.last_seen:
            account.last_event = evidence_of(event)
    return account, person


def fold_events(
    events: Iterable[Event],
) -> tuple[dict[str, AccountRollup], dict[str, PersonRollup]]:
    """Every account and person the events touch, folded afresh in stream order."""
    accounts: dict[str, AccountRollup] = {}
    people: dict[str, PersonRollup] = {}
    for event in events:
        email, domain = event.person.email, event.account.domain
        account, person = fold_event(
            accounts.get(domain) if domain else None, people.get(email) if email else None, event
        )
        if account is not None:
            accounts[account.domain] = account
        if person is not None:
            people[person.email] = person
    return accounts, people


def rebuild_account(events: Iterable[Event]) -> AccountRollup | None:
    """An account folded afresh from its events in stream order (erasure only)."""
    accounts, _ = fold_events(events)
    return next(iter(accounts.values()), None)


def _fold_person(person: PersonRollup | None, event: Event) -> PersonRollup:
    email = event.person.email
    assert email is not None  # noqa: S101  # checked by the caller
    if person is None:
        person = PersonRollup(
            email=email,
            name=None,
            domain=None,
            stage="aware",
            first_seen=event.occurred_at,
            last_seen=event.occurred_at,
            last_recorded_at=event.recorded_at,
        )
    before = person.stage if person.events else None
    _touch(person, event)
    person.name = event.person.name or person.name
    person.domain = event.account.domain or person.domain
    person.stage = higher(person.stage, event_stage(event, len(person.pages)))
    if before is None or RANK[person.stage] > RANK[before]:
        person.stage_reached_at = event.occurred_at
        person.stage_event = evidence_of(event)
    if event.occurred_at >= person.last_seen:  # the latest touch (a later one of a tie)
        person.last_event = evidence_of(event)
    return person


def _new_account(event: Event) -> AccountRollup:
    assert event.account.domain is not None  # noqa: S101  # checked by the caller
    return AccountRollup(
        domain=event.account.domain,
        name=None,
        stage="aware",
        first_seen=event.occurred_at,
        last_seen=event.occurred_at,
        last_recorded_at=event.recorded_at,
    )


def _touch(rollup: PersonRollup | AccountRollup, event: Event) -> None:
    rollup.events += 1
    rollup.first_seen = min(rollup.first_seen, event.occurred_at)
    rollup.last_seen = max(rollup.last_seen, event.occurred_at)
    rollup.last_recorded_at = max(rollup.last_recorded_at, event.recorded_at)
    if event.page.path:
        rollup.pages[event.page.path] = rollup.pages.get(event.page.path, 0) + 1
    rollup.sources[event.source] = rollup.sources.get(event.source, 0) + 1


def event_stage(event: Event, distinct_pages: int) -> Stage:
    """The stage one event shows, given the distinct pages seen so far (this one included)."""
    stage = TYPE_STAGE[event.type]
    return higher(stage, "engaged") if distinct_pages >= ENGAGED_PAGES else stage


def _account_stage(account: AccountRollup) -> Stage:
    stage: Stage = account.anon_stage or "aware"
    for brief in account.people.values():
        stage = higher(stage, brief["stage"])
    return stage


# --- the summaries the API returns ------------------------------------------------------------


class PersonBrief(BaseModel):
    model_config = ConfigDict(defer_build=True)

    email: str
    name: str | None
    stage: Stage


class AccountCounts(BaseModel):
    model_config = ConfigDict(defer_build=True)

    people: int
    pages: int
    events: int


class PersonCounts(BaseModel):
    model_config = ConfigDict(defer_build=True)

    pages: int
    events: int


class AccountSummary(BaseModel):
    """An account roll-up: people, pages (most touched first), sources, stage and score."""

    model_config = ConfigDict(defer_build=True)

    domain: str = Field(examples=["acme.com"])
    name: str | None
    stage: Stage
    stage_reached_at: datetime | None = Field(
        description="When the account reached its stage (null: before scores were kept)"
    )
    stage_event: Evidence | None = Field(
        default=None, description="The event that took it to its stage (null: not kept)"
    )
    score: int = Field(ge=0, le=100, description="0-100: stage, recency, frequency, breadth")
    trend: Trend = Field(
        description="The last 7 days against the 28 before; quiet: no touch in 35 days"
    )
    reasons: list[str] = Field(description="The facts that move the score most")
    why: list[Reason] = Field(description="The same reasons, each with the event(s) behind it")
    people: list[PersonBrief]
    pages: list[str]
    sources: list[str]
    counts: AccountCounts
    first_seen: datetime
    last_seen: datetime
    last_recorded_at: datetime


class PersonSummary(BaseModel):
    """A person roll-up."""

    model_config = ConfigDict(defer_build=True)

    email: str = Field(examples=["ada@acme.com"])
    name: str | None
    domain: str | None
    stage: Stage
    stage_reached_at: datetime | None
    stage_event: Evidence | None = None
    score: int = Field(ge=0, le=100)
    trend: Trend
    reasons: list[str]
    why: list[Reason]
    pages: list[str]
    sources: list[str]
    counts: PersonCounts
    first_seen: datetime
    last_seen: datetime
    last_recorded_at: datetime


def _ranked(counts: dict[str, int], cap: int | None) -> list[str]:
    ordered = sorted(counts, key=lambda key: (-counts[key], key))
    return ordered if cap is None else ordered[:cap]


def account_summary(
    account: AccountRollup, *, now: datetime, cap: int | None = LIST_CAP
) -> AccountSummary:
    """The API view of an account at `now`; list views cap each list at 20, lookups pass
    cap=None."""
    # "this week" is the touch counts' last 7 days (UTC days), so the reasons agree.
    active = sum(
        1
        for b in account.people.values()
        if days_back(datetime.fromisoformat(b["last_seen"]), now) < 7
    )
    pages = _ranked(account.pages, 1)
    people = sorted(
        account.people.items(), key=lambda kv: (-RANK[kv[1]["stage"]], -kv[1]["events"], kv[0])
    )
    if cap is not None:
        people = people[:cap]
    stage_event = evidence_view(account.stage_event)
    why = score_why(
        stage=account.stage,
        stage_reached_at=account.stage_reached_at,
        stage_event=stage_event,
        last_seen=account.last_seen,
        last_event=evidence_view(account.last_event),
        days=account.days,
        people_this_week=active,
        top_page=pages[0] if pages else None,
        now=now,
    )
    return AccountSummary(
        domain=account.domain,
        name=account.name,
        stage=account.stage,
        stage_reached_at=account.stage_reached_at,
        stage_event=stage_event,
        score=score_at(account.heat_log, now),
        trend=trend_at(account.days, now),
        reasons=[r.reason for r in why],
        why=why,
        people=[PersonBrief(email=e, name=b["name"], stage=b["stage"]) for e, b in people],
        pages=_ranked(account.pages, cap),
        sources=_ranked(account.sources, cap),
        counts=AccountCounts(
            people=len(account.people), pages=len(account.pages), events=account.events
        ),
        first_seen=account.first_seen,
        last_seen=account.last_seen,
        last_recorded_at=account.last_recorded_at,
    )


def person_summary(
    person: PersonRollup, *, now: datetime, cap: int | None = LIST_CAP
) -> PersonSummary:
    """The API view of a person at `now`."""
    pages = _ranked(person.pages, 1)
    stage_event = evidence_view(person.stage_event)
    why = score_why(
        stage=person.stage,
        stage_reached_at=person.stage_reached_at,
        stage_event=stage_event,
        last_seen=person.last_seen,
        last_event=evidence_view(person.last_event),
        days=person.days,
        people_this_week=None,
        top_page=pages[0] if pages else None,
        now=now,
    )
    return PersonSummary(
        email=person.email,
        name=person.name,
        domain=person.domain,
        stage=person.stage,
        stage_reached_at=person.stage_reached_at,
        stage_event=stage_event,
        score=score_at(person.heat_log, now),
        trend=trend_at(person.days, now),
        reasons=[r.reason for r in why],
        why=why,
        pages=_ranked(person.pages, cap),
        sources=_ranked(person.sources, cap),
        counts=PersonCounts(pages=len(person.pages), events=person.events),
        first_seen=person.first_seen,
        last_seen=person.last_seen,
        last_recorded_at=person.last_recorded_at,
    )
