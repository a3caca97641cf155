"""schemas/signals/scores.py reasons, read through the account summary: each reason is true and
none contradicts another (signals-api.md "Scores and trends")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from schemas.signals.events import Event, NewEvent, normalize_event, stamp_event
from schemas.signals.rollups import account_summary, fold_events

# Early in a UTC day, so "7 days ago" by the clock and by the calendar can differ.
NOW = datetime(2026, 11, 28, 5, 0, tzinfo=UTC)


def stored(row_id: str, kind: str, email: str, occurred_at: datetime) -> Event:
    raw = {
        "source": "crm",
        "row_id": row_id,
        "type": kind,
        "occurred_at": occurred_at.isoformat(),
        "person": {"email": email},
    }
    new = normalize_event(raw, now=NOW)
    assert isinstance(new, NewEvent), new
    return stamp_event(new, NOW)


def reasons(*events: Event) -> list[str]:
    accounts, _ = fold_events(events)
    return account_summary(accounts["acme.com"], now=NOW).reasons


def test_a_touch_outside_the_last_7_days_is_not_called_this_weeks_activity() -> None:
    """Scores and trends: a touch 6 days 23 hours ago fell on the UTC day 7 days back, so it
    is counted before the last 7 days; the other reasons say the same of it."""
    touched = NOW - timedelta(days=6, hours=23)

    said = reasons(stored("1", "book_call", "ada@acme.com", touched))

    assert said == [
        "hand raiser since 7 days ago: book call",
        "0 touches in the last 7 days, 1 in the 28 days before",
        "last touch 7 days ago: book call",
    ]


def test_a_touch_of_yesterday_evening_reads_in_hours_and_is_this_weeks() -> None:
    """Scores and trends: under a day back a touch is told in hours."""
    touched = NOW - timedelta(hours=7)

    said = reasons(stored("1", "article_read", "ada@acme.com", touched))

    assert said == [
        "engaged since 7 hours ago: article read",
        "1 touch in the last 7 days, 0 in the 28 days before",
        "1 person was active this week",
        "last touch 7 hours ago: article read",
    ]


def test_a_touch_of_the_last_hour_reads_as_less_than_an_hour_ago() -> None:
    """Scores and trends: reasons read as sentences, also in the first hour."""
    said = reasons(stored("1", "lead_form", "ada@acme.com", NOW - timedelta(minutes=5)))

    assert said[0] == "hand raiser since less than an hour ago: lead form"
    assert said[-1] == "last touch less than an hour ago: lead form"


def test_the_example_scores_of_the_reference_are_the_scores_given() -> None:
    """Scores and trends: a new person's hand-raise today scores 55; three people reading an
    article and one of them booking a call today, 66."""
    readers = [stored(str(i), "article_read", f"p{i}@acme.com", NOW) for i in range(3)]
    booked = stored("call", "book_call", "p0@acme.com", NOW)

    alone, _ = fold_events([stored("1", "book_call", "ada@acme.com", NOW)])
    team, _ = fold_events([*readers, booked])

    assert account_summary(alone["acme.com"], now=NOW).score == 55
    assert account_summary(team["acme.com"], now=NOW).score == 66


def test_a_backfill_sent_oldest_first_dates_the_stage_from_its_first_hand_raise() -> None:
    """Sending events: roll-ups fold events in the order they are stored, so history sent
    oldest first dates the stage from the first touch that reached it; newest first, from
    the first one stored."""
    october = stored("1", "lead_form", "ada@acme.com", NOW - timedelta(days=40))
    november = stored("2", "lead_form", "ada@acme.com", NOW - timedelta(days=5))

    oldest_first, _ = fold_events([october, november])
    newest_first, _ = fold_events([november, october])

    assert oldest_first["acme.com"].stage_reached_at == october.occurred_at
    assert newest_first["acme.com"].stage_reached_at == november.occurred_at
