"""schemas/signals/fold.py: a batch folded into roll-up states and tallies, against fold_event."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from schemas.signals.events import EVENT_TYPES, Event, NewEvent, normalize_event, stamp_event
from schemas.signals.fold import AccountState, PersonState, fold_batch, to_us
from schemas.signals.rollups import STAGES, fold_events

START = datetime(2026, 11, 1, tzinfo=UTC)


def events(seed: int, count: int) -> list[Event]:
    """Stored events over two accounts, a free-mail person and anonymous visits."""
    rng = random.Random(seed)  # noqa: S311  # test data
    out = []
    for i in range(count):
        email = rng.choice(["ada@acme.com", "bob@acme.com", "cy@beta.example", "di@gmail.com"])
        anonymous = rng.random() < 0.2
        kind = "email_open" if rng.random() < 0.8 else rng.choice(EVENT_TYPES)
        raw = {
            "source": rng.choice(["crm", "site"]),
            "row_id": str(i),
            # an identify names its person (anonymous ones are refused)
            "type": "page_view" if kind == "identify" and anonymous else kind,
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
    accounts, persons = fold_events(stream)

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
        assert (STAGES[got.rank], got.events, got.name, got.domain) == (
            want.stage,
            want.events,
            want.name,
            want.domain,
        )
        assert (got.first_us, got.last_us, got.rec_us, got.sources) == (
            to_us(want.first_seen),
            to_us(want.last_seen),
            to_us(want.last_recorded_at),
            want.sources,
        )
        assert got.first_pages == list(want.pages)[:3]
        assert {p: n for (e, p), n in person_pages.items() if e == email} == want.pages
    for domain, acct in accounts.items():
        state = states[domain]
        anon = None if state.anon_rank is None else STAGES[state.anon_rank]
        assert (STAGES[state.rank], state.events, anon, state.anon_pages) == (
            acct.stage,
            acct.events,
            acct.anon_stage,
            acct.anon_pages,
        )
        assert (state.first_us, state.last_us, state.rec_us, state.sources) == (
            to_us(acct.first_seen),
            to_us(acct.last_seen),
            to_us(acct.last_recorded_at),
            acct.sources,
        )
        assert {p: n for (d, p), n in account_pages.items() if d == domain} == acct.pages
        assert {
            e: (STAGES[briefs[d, e].rank], n, briefs[d, e].last_us)
            for (d, e), n in brief_events.items()
            if d == domain
        } == {
            e: (b["stage"], b["events"], to_us(datetime.fromisoformat(b["last_seen"])))
            for e, b in acct.people.items()
        }
    assert "gmail.com" not in states


def test_to_us_is_exact_microseconds_since_the_epoch() -> None:
    """Exact integers, also far from the epoch and before it, where floats would round."""
    for when, want in [
        (datetime(1970, 1, 1, tzinfo=UTC), 0),
        (datetime(2026, 11, 1, 12, 0, 0, 999_999, tzinfo=UTC), 1_793_534_400_999_999),
        (datetime(1969, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC), -1),
        (datetime(9999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC), 253_402_300_799_999_999),
    ]:
        assert to_us(when) == want
