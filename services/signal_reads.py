"""The Signal API's reads as use cases: an account's story, a person's story, the accounts list
and the newest touches. The REST views and the staff tools on /mcp both answer with these, so a
tool's structured result is the REST body of the same data. Keyword-only functions over the
signal store; parsing a request into a query stays with each surface.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from backends.ports import AccountPosition, AccountQuery, SignalStore, StreamQuery
from schemas.signals.bodies import AccountBody, PersonBody, StreamBody
from schemas.signals.events import Position, encode_cursor
from schemas.signals.rollups import AccountSummary, account_summary, person_summary

__all__ = [
    "TIMELINE_LIMIT",
    "account_story",
    "latest_touches",
    "list_accounts",
    "person_story",
]

TIMELINE_LIMIT = 1000  # events a story carries, newest first
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
PEOPLE_LIMIT = 100  # people an account's story carries, highest stage and most events first


def account_story(*, signals: SignalStore, domain: str, now: datetime) -> AccountBody:
    """An account's summary, its people and its timeline; `seen: false` if never seen."""
    account = signals.get_account(domain)
    if account is None:
        return AccountBody(seen=False, domain=domain)
    summary = account_summary(account, now=now, cap=None)
    people = [signals.get_person(b.email) for b in summary.people[:PEOPLE_LIMIT]]
    timeline = signals.read_stream(StreamQuery(domain=domain, limit=TIMELINE_LIMIT))
    return AccountBody(
        seen=True,
        domain=domain,
        account=summary,
        people=[person_summary(p, now=now, cap=None) for p in people if p is not None],
        timeline=timeline.events,
        timeline_truncated=timeline.has_more,
    )


def person_story(*, signals: SignalStore, email: str, now: datetime) -> PersonBody:
    """A person's summary and timeline; `seen: false` if never seen."""
    person = signals.get_person(email)
    if person is None:
        return PersonBody(seen=False, email=email)
    timeline = signals.read_stream(StreamQuery(email=email, limit=TIMELINE_LIMIT))
    return PersonBody(
        seen=True,
        email=email,
        person=person_summary(person, now=now, cap=None),
        timeline=timeline.events,
        timeline_truncated=timeline.has_more,
    )


def list_accounts(
    *, signals: SignalStore, query: AccountQuery, now: datetime
) -> tuple[list[AccountSummary], bool, AccountPosition | None]:
    """One page of the accounts list: the summaries, whether more follow, and the position a
    next page continues from (None at the end)."""
    accounts, has_more = signals.list_accounts(query)
    summaries = [account_summary(a, now=now) for a in accounts]
    last = AccountPosition.of(accounts[-1], query.sort) if has_more and accounts else None
    return summaries, has_more, last


def latest_touches(*, signals: SignalStore, query: StreamQuery) -> StreamBody:
    """The newest `query.limit` events in the query's window, newest first; `next_since` is the
    newest one's position, so a poll of the stream from it gets only what comes after."""
    page = signals.read_stream(replace(query, forward=False))
    start = query.after or Position(recorded_at=EPOCH)
    newest = page.events[0] if page.events else None
    cursor = Position(recorded_at=newest.recorded_at, event_id=newest.id) if newest else start
    return StreamBody(events=page.events, next_since=encode_cursor(cursor), has_more=page.has_more)
