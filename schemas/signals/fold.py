"""A batch of stored events folded into the fixed-size part of its roll-ups, plus tallies.

Pure. The embedded store keeps a roll-up as one small row per person and per account (the
state below) and its unbounded maps (pages, an account's people) as tally rows keyed by their
own pair, so storing an event costs a fixed number of row writes however big the roll-up has
grown. The rules are `fold_event`'s (schemas/signals/rollups.py), restated for this split:

- the 3+ distinct pages rule only needs the first ENGAGED_PAGES distinct paths, kept in the
  state (`first_pages`); the full page counts are tallies added to blindly;
- stages only rise, so an account's stage is the higher of itself and each new brief or
  anonymous stage (fold_event takes the highest over all people: the same value);
- the evidence of the stage and of the latest touch is kept as the event itself while folding
  (no record built per event) and becomes its record (schemas/signals/evidence.py) when the
  row is written.

tests/backends/signal_store/test_signal_rollups.py checks that both folds give the same roll-ups.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from schemas.signals.events import Event
from schemas.signals.evidence import EvidenceRecord
from schemas.signals.rollups import ENGAGED_PAGES, RANK, TYPE_STAGE
from schemas.signals.scores import add_day, add_heat, event_weight

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_TYPE_RANK = {kind: RANK[stage] for kind, stage in TYPE_STAGE.items()}
_ENGAGED = RANK["engaged"]  # what 3+ distinct pages show at least (event_stage's rule)


def to_us(when: datetime) -> int:
    """Microseconds since the epoch (exact; no float rounding)."""
    return (when - _EPOCH) // _MICROSECOND


@dataclass(slots=True)
class PersonState:
    """One person's roll-up without its page counts; times in µs since the epoch, the stage as
    its rank (the row's own encoding, so writing a state converts nothing)."""

    email: str
    name: str | None
    domain: str | None
    rank: int
    first_us: int
    last_us: int
    rec_us: int
    events: int = 0
    first_pages: list[str] = field(default_factory=list)  # the first 3 distinct paths
    sources: dict[str, int] = field(default_factory=dict)  # a handful of source names
    heat_log: float | None = None  # schemas/signals/scores.py
    stage_us: int | None = None  # when the stage was reached
    days: dict[str, int] = field(default_factory=dict)  # daily counts, 35 days
    stage_ev: Event | EvidenceRecord | None = None  # the event that reached the stage
    last_ev: Event | EvidenceRecord | None = None  # the latest touch (by occurred_at)


@dataclass(slots=True)
class AccountState:
    """One account's roll-up without its page counts and people (encoded as PersonState)."""

    domain: str
    name: str | None
    rank: int
    first_us: int
    last_us: int
    rec_us: int
    events: int = 0
    anon_rank: int | None = None  # touches with no person count as one visitor
    anon_pages: list[str] = field(default_factory=list)
    sources: dict[str, int] = field(default_factory=dict)
    heat_log: float | None = None
    stage_us: int | None = None
    days: dict[str, int] = field(default_factory=dict)
    stage_ev: Event | EvidenceRecord | None = None
    last_ev: Event | EvidenceRecord | None = None


@dataclass(slots=True)
class Brief:
    """A person as one account sees them after a batch; `events` counts this batch's only."""

    rank: int
    events: int
    last_us: int


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
    when absent) and count what the batch adds to the tallies.

    Written flat (no helper calls per event): it runs for every stored event.
    """
    out = BatchFold()
    out_people, out_accounts, briefs = out.people, out.accounts, out.briefs
    person_pages, account_pages = out.person_pages, out.account_pages
    for event in events:
        email, domain, path = event.person.email, event.account.domain, event.page.path
        occurred, recorded = to_us(event.occurred_at), to_us(event.recorded_at)
        source = event.source
        rank = _TYPE_RANK[event.type]
        person = None
        new_person = True
        new_page = False
        if email is not None:
            person = people.get(email)
            if person is None:
                person = people[email] = PersonState(
                    email,
                    None,
                    None,
                    0,
                    occurred,
                    occurred,
                    recorded,
                    stage_us=occurred,
                    stage_ev=event,
                )
            else:
                new_person = person.domain is None
            out_people[email] = person
            person.events += 1
            if occurred < person.first_us:
                person.first_us = occurred
            if occurred >= person.last_us:  # the latest touch (a later one of a tie)
                person.last_us = occurred
                person.last_ev = event
            if recorded > person.rec_us:
                person.rec_us = recorded
            person.sources[source] = person.sources.get(source, 0) + 1
            person.name = event.person.name or person.name
            person.domain = domain or person.domain
            pages = person.first_pages
            if path:
                if len(pages) < ENGAGED_PAGES and path not in pages:
                    pages.append(path)
                    new_page = True
                person_pages[email, path] = person_pages.get((email, path), 0) + 1
            shown = max(rank, _ENGAGED) if len(pages) >= ENGAGED_PAGES else rank
            if shown > person.rank:
                person.rank = shown
                person.stage_us = occurred
                person.stage_ev = event
            person.heat_log = add_heat(
                person.heat_log, event_weight(rank, new_person=False, new_page=new_page), occurred
            )
            add_day(person.days, occurred)
        if domain is None:
            continue
        account = accounts.get(domain)
        if account is None:
            account = accounts[domain] = AccountState(
                domain, None, 0, occurred, occurred, recorded, stage_us=occurred, stage_ev=event
            )
        out_accounts[domain] = account
        account_rank = account.rank
        account.events += 1
        if occurred < account.first_us:
            account.first_us = occurred
        if occurred >= account.last_us:
            account.last_us = occurred
            account.last_ev = event
        if recorded > account.rec_us:
            account.rec_us = recorded
        account.sources[source] = account.sources.get(source, 0) + 1
        account.name = event.account.name or account.name
        if path:
            account_pages[domain, path] = account_pages.get((domain, path), 0) + 1
        if person is not None:
            brief = briefs.get((domain, person.email))
            if brief is None:
                briefs[domain, person.email] = Brief(person.rank, 1, person.last_us)
            else:
                brief.rank, brief.last_us = person.rank, person.last_us
                brief.events += 1
            if person.rank > account.rank:
                account.rank = person.rank
        else:
            new_person = False
            pages = account.anon_pages
            if path and len(pages) < ENGAGED_PAGES and path not in pages:
                pages.append(path)
                new_page = True
            shown = max(rank, _ENGAGED) if len(pages) >= ENGAGED_PAGES else rank
            if account.anon_rank is None or shown > account.anon_rank:
                account.anon_rank = shown
            if account.anon_rank > account.rank:
                account.rank = account.anon_rank
        if account.rank > account_rank:
            account.stage_us = occurred
            account.stage_ev = event
        weight = event_weight(rank, new_person=new_person, new_page=new_page)
        account.heat_log = add_heat(account.heat_log, weight, occurred)
        add_day(account.days, occurred)
    return out
