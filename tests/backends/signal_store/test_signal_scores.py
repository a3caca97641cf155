"""Contract: account scores, trends and the accounts list's orders and cursor (both backends),
read at the times a hand-set clock gives."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from backends.ports import AccountPosition, AccountQuery, AccountSort, SignalStore
from schemas.signals.rollups import account_summary
from schemas.signals.scores import heat_log_for_score
from tests.backends.signal_store.conftest import StoreFactory, event
from tests.clock import ManualClock

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def start_clock() -> ManualClock:
    """Sixty days back, so every event of a test lies in the real past too."""
    return ManualClock(datetime.now(UTC).replace(microsecond=0) - timedelta(days=60))


def ranked(store: SignalStore, sort: AccountSort = "score", **query: object) -> list[str]:
    accounts, _ = store.list_accounts(
        AccountQuery(active_since=EPOCH, sort=sort, limit=500, **query)  # type: ignore[arg-type]
    )
    return [a.domain for a in accounts]


def test_an_account_with_recent_hand_raises_outranks_one_with_old_ones(
    make_store: StoreFactory,
) -> None:
    """Scores: recency with a half-life; the stage alone does not keep a cold
    hand-raiser on top, and its summary says when the stage was reached."""
    clock = start_clock()
    store = make_store(clock=clock)
    old = clock.now
    store.store_events(
        [
            event(f"o{i}", type="lead_form", email=f"p{i}@old.example", occurred_at=old)
            for i in (1, 2)
        ]
    )
    clock.now += timedelta(days=40)
    store.store_events(
        [event("n1", type="lead_form", email="p1@new.example", occurred_at=clock.now)]
    )

    cold = account_summary(store.get_account("old.example"), now=clock.now)  # type: ignore[arg-type]
    hot = account_summary(store.get_account("new.example"), now=clock.now)  # type: ignore[arg-type]
    assert ranked(store) == ["new.example", "old.example"]
    assert (cold.stage, hot.stage) == ("hand_raiser", "hand_raiser")
    assert hot.score > cold.score
    assert 40 <= hot.score <= 100
    assert cold.score <= 10
    assert cold.stage_reached_at == old
    assert cold.reasons[0] == "hand raiser since 40 days ago: lead form on /blog/one"


def test_a_trend_turns_from_heating_to_cooling_as_time_passes(make_store: StoreFactory) -> None:
    """The last 7 days against the 28 before."""
    clock = start_clock()
    store = make_store(clock=clock)
    store.store_events(
        [
            event(f"r{i}", email="ada@acme.com", path=f"/p/{i}", occurred_at=clock.now)
            for i in range(5)
        ]
    )

    def trend() -> str:
        return account_summary(store.get_account("acme.com"), now=clock.now).trend  # type: ignore[arg-type]

    heating = trend()
    clock.now += timedelta(days=3)
    still = trend()
    clock.now += timedelta(days=8)
    cooling = trend()

    assert (heating, still, cooling) == ("heating", "heating", "cooling")


def test_min_score_keeps_the_accounts_scoring_at_least_that(make_store: StoreFactory) -> None:
    """`min_score` on the list, in either order."""
    clock = start_clock()
    store = make_store(clock=clock)
    store.store_events(
        [
            event("a", type="book_call", email="a@hot.example", occurred_at=clock.now),
            event("b", type="email_open", email="b@cold.example", occurred_at=clock.now),
        ]
    )
    threshold = heat_log_for_score(30, clock.now)

    by_score = ranked(store, "score", min_heat_log=threshold)
    by_recent = ranked(store, "recent", min_heat_log=threshold)

    assert by_score == by_recent == ["hot.example"]


def test_the_list_walks_with_its_cursor_over_2000_accounts_none_twice_or_missing(
    make_store: StoreFactory,
) -> None:
    """`after` (the API's next_cursor) pages both orders; ties in the sort key are
    broken by domain, so no account repeats or goes missing."""
    clock = start_clock()
    store = make_store(clock=clock)
    rng = random.Random(15)  # noqa: S311  # test data
    domains = [f"a{i:04d}.example" for i in range(2000)]
    kinds = ("email_open", "article_read", "lead_form")
    store.store_events(
        [
            event(
                f"w{i}",
                type=rng.choice(kinds),
                email=f"p@{d}",
                # a few distinct times, so many accounts tie on their sort key
                occurred_at=clock.now - timedelta(days=rng.randrange(3)),
            )
            for i, d in enumerate(domains)
        ]
    )

    for sort in ("score", "recent"):
        seen: list[str] = []
        after: AccountPosition | None = None
        while True:
            page, more = store.list_accounts(
                AccountQuery(active_since=EPOCH, sort=sort, limit=173, after=after)
            )
            seen += [a.domain for a in page]
            if not more:
                break
            after = AccountPosition.of(page[-1], sort)
        assert len(seen) == len(set(seen)) == 2000, sort
        assert set(seen) == set(domains)
