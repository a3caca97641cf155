"""A batch of stored events folded into the fixed-size part of its roll-ups, plus tallies.

Pure. The embedded store keeps a roll-up as one small row per person and per account (the
state below) and its unbounded maps (pages, an account's people) as tally rows keyed by their
own pair, so storing an event costs a fixed number of row writes however big the roll-up has
grown. The rules are `fold_event`'s (schemas/signal_rollups.py), restated for this split:

- the 3+ distinct pages rule only needs the first ENGAGED_PAGES distinct paths, kept in the
  state (`first_pages`); the full page counts are tallies added to blindly;
- stages only rise, so an account's stage is the higher of itself and each new brief or
  anonymous stage (fold_event takes the highest over all people: the same value).

tests/backends/test_signals.py checks that both folds give the same roll-ups.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from schemas.signal_rollups import ENGAGED_PAGES, Stage, event_stage, higher
from schemas.signals import Event


@dataclass
class PersonState:
    """One person's roll-up without its page counts."""

    email: str
    name: str | None
    domain: str | None
    stage: Stage
    first_seen: datetime
    last_seen: datetime
    last_recorded_at: datetime
    events: int = 0
    first_pages: list[str] = field(default_factory=list)  # the first 3 distinct paths
    sources: dict[str, int] = field(default_factory=dict)  # a handful of source names


@dataclass
class AccountState:
    """One account's roll-up without its page counts and people."""

    domain: str
    name: str | None
    stage: Stage
    first_seen: datetime
    last_seen: datetime
    last_recorded_at: datetime
    events: int = 0
    anon_stage: Stage | None = None  # touches with no person count as one visitor
    anon_pages: list[str] = field(default_factory=list)
    sources: dict[str, int] = field(default_factory=dict)


@dataclass
class Brief:
    """A person as one account sees them after a batch; `events` counts this batch's only."""

    stage: Stage
    events: int
    last_seen: datetime


@dataclass
class BatchFold:
    """What a batch changed: the touched states (final) and the tallies to add."""

    people: dict[str, PersonState] = field(default_factory=dict)
    accounts: dict[str, AccountState] = field(default_factory=dict)
    person_pages: dict[tuple[str, str], int] = field(default_factory=dict)  # (email, path)
    account_pages: dict[tuple[str, str], int] = field(default_factory=dict)  # (domain, path)
    briefs: dict[tuple[str, str], Brief] = field(default_factory=dict)  # (domain, email)


def fold_batch(
    people: dict[str, PersonState], accounts: dict[str, AccountState], events: Iterable[Event]
) -> BatchFold:
    """Fold events, in stream order, into `people` and `accounts` (updated in place, created
    when absent) and count what the batch adds to the tallies."""
    out = BatchFold()
    for event in events:
        email, domain, path = event.person.email, event.account.domain, event.page.path
        person = None
        if email is not None:
            person = people.get(email) or _new_person(email, event)
            people[email] = out.people[email] = person
            _touch(person, event)
            person.name = event.person.name or person.name
            person.domain = domain or person.domain
            _first(person.first_pages, path)
            person.stage = higher(person.stage, event_stage(event, len(person.first_pages)))
            if path:
                _add(out.person_pages, (email, path))
        if domain is None:
            continue
        account = accounts.get(domain) or _new_account(domain, event)
        accounts[domain] = out.accounts[domain] = account
        _touch(account, event)
        account.name = event.account.name or account.name
        if path:
            _add(out.account_pages, (domain, path))
        if person is not None:
            brief = out.briefs.get((domain, person.email))
            added = brief.events + 1 if brief else 1
            out.briefs[domain, person.email] = Brief(person.stage, added, person.last_seen)
            account.stage = higher(account.stage, person.stage)
        else:
            _first(account.anon_pages, path)
            stage = event_stage(event, len(account.anon_pages))
            account.anon_stage = (
                stage if account.anon_stage is None else higher(account.anon_stage, stage)
            )
            account.stage = higher(account.stage, account.anon_stage)
    return out


def _new_person(email: str, event: Event) -> PersonState:
    return PersonState(
        email=email,
        name=None,
        domain=None,
        stage="aware",
        first_seen=event.occurred_at,
        last_seen=event.occurred_at,
        last_recorded_at=event.recorded_at,
    )


def _new_account(domain: str, event: Event) -> AccountState:
    return AccountState(
        domain=domain,
        name=None,
        stage="aware",
        first_seen=event.occurred_at,
        last_seen=event.occurred_at,
        last_recorded_at=event.recorded_at,
    )


def _touch(state: PersonState | AccountState, event: Event) -> None:
    state.events += 1
    if event.occurred_at < state.first_seen:
        state.first_seen = event.occurred_at
    if event.occurred_at > state.last_seen:
        state.last_seen = event.occurred_at
    if event.recorded_at > state.last_recorded_at:
        state.last_recorded_at = event.recorded_at
    state.sources[event.source] = state.sources.get(event.source, 0) + 1


def _first(paths: list[str], path: str | None) -> None:
    if path and len(paths) < ENGAGED_PAGES and path not in paths:
        paths.append(path)


def _add(tally: dict[tuple[str, str], int], key: tuple[str, str]) -> None:
    tally[key] = tally.get(key, 0) + 1
