"""schemas/signal_fold.py: a batch folded into roll-up states and tallies, against fold_event."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from schemas.signal_fold import AccountState, PersonState, fold_batch
from schemas.signal_rollups import AccountRollup, PersonRollup, fold_event
from schemas.signals import EVENT_TYPES, Event, NewEvent, normalize_event, stamp_event

START = datetime(2026, 11, 1, tzinfo=UTC)


def events(seed: int, count: int) -> list[Event]:
    """Stored events over two accounts, a free-mail person and anonymous visits."""
    rng = random.Random(seed)  # noqa: S311  # test data
    out = []
    for i in range(count):
        email = rng.choice(["ada@acme.com", "bob@acme.com", "cy@beta.example", "di@gmail.com"])
        anonymous = rng.random() < 0.2
        raw = {
            "source": rng.choice(["crm", "site"]),
            "row_id": str(i),
            "type": "email_open" if rng.random() < 0.8 else rng.choice(EVENT_TYPES),
            "occurred_at": (START + timedelta(hours=rng.randrange(0, 200))).isoformat(),
            "person": {} if anonymous else {"email": email, "name": email[:2].title()},
            "account": {"domain": rng.choice(["acme.com", "gamma.example"])} if anonymous else {},
            "page": {"path": rng.choice(["/a", "/b", "/c", "/d"])} if rng.random() < 0.7 else {},
        }
        new = normalize_event(raw, now=START + timedelta(days=30))
        assert isinstance(new, NewEvent), new
        out.append(stamp_event(new, START + timedelta(days=20, microseconds=i)))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_batches_folded_give_what_fold_event_gives_event_by_event(seed: int) -> None:
    """DESIGN Signals: stages (3+ distinct pages is engaged; an account's stage is the highest
    of its people and its anonymous visits), counts, times, sources, pages and people."""
    stream = events(seed, 150)
    accounts: dict[str, AccountRollup] = {}
    persons: dict[str, PersonRollup] = {}
    for e in stream:
        domain, email = e.account.domain, e.person.email
        account, person = fold_event(
            accounts.get(domain) if domain else None, persons.get(email) if email else None, e
        )
        if account is not None:
            accounts[account.domain] = account
        if person is not None:
            persons[person.email] = person

    people: dict[str, PersonState] = {}
    states: dict[str, AccountState] = {}
    person_pages: Counter[tuple[str, str]] = Counter()
    account_pages: Counter[tuple[str, str]] = Counter()
    brief_events: Counter[tuple[str, str]] = Counter()
    briefs = {}
    for first in range(0, len(stream), 17):
        done = fold_batch(people, states, stream[first : first + 17])
        person_pages.update(done.person_pages)
        account_pages.update(done.account_pages)
        for key, brief in done.briefs.items():
            brief_events[key] += brief.events
            briefs[key] = brief

    for email, want in persons.items():
        got = people[email]
        assert (got.stage, got.events, got.name, got.domain) == (
            want.stage,
            want.events,
            want.name,
            want.domain,
        )
        assert (got.first_seen, got.last_seen, got.last_recorded_at, got.sources) == (
            want.first_seen,
            want.last_seen,
            want.last_recorded_at,
            want.sources,
        )
        assert got.first_pages == list(want.pages)[:3]
        assert {p: n for (e, p), n in person_pages.items() if e == email} == want.pages
    for domain, acct in accounts.items():
        state = states[domain]
        assert (state.stage, state.events, state.anon_stage, state.anon_pages) == (
            acct.stage,
            acct.events,
            acct.anon_stage,
            acct.anon_pages,
        )
        assert (state.first_seen, state.last_seen, state.sources) == (
            acct.first_seen,
            acct.last_seen,
            acct.sources,
        )
        assert {p: n for (d, p), n in account_pages.items() if d == domain} == acct.pages
        assert {
            e: (briefs[d, e].stage, n) for (d, e), n in brief_events.items() if d == domain
        } == {e: (b["stage"], b["events"]) for e, b in acct.people.items()}
    assert "gmail.com" not in states
