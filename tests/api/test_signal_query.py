"""How the stream's and the accounts list's `since` and `days` combine (signals-api.md "The
stream and polling", "Accounts"; the OpenAPI's `days`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from api.rest.signal_query import EPOCH, parse_account_query, parse_stream_query

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


@pytest.mark.spec("signals.stream")
def test_days_alone_is_the_window_and_with_an_older_since_it_starts_n_days_ago() -> None:
    """A since inside the window stands; one older than `days` is moved up to it."""
    alone = parse_stream_query({"days": "3"}, now=NOW).start.recorded_at
    older = parse_stream_query({"since": "2026-01-01T00:00:00Z", "days": "3"}, now=NOW)
    newer = parse_stream_query({"since": "2026-11-24T00:00:00Z", "days": "3"}, now=NOW)
    default = parse_stream_query({}, now=NOW).start.recorded_at

    assert alone == older.start.recorded_at == NOW - timedelta(days=3)
    assert newer.start.recorded_at == datetime(2026, 11, 24, tzinfo=UTC)
    assert default == NOW - timedelta(days=7)


@pytest.mark.spec("signals.accounts")
def test_the_accounts_list_by_score_has_no_default_window_but_takes_an_explicit_one() -> None:
    """With sort=score there is no default window; `since` or `days` given still narrow it."""
    by_score = parse_account_query({"sort": "score"}, now=NOW)
    by_score_days = parse_account_query({"sort": "score", "days": "2"}, now=NOW)
    recent = parse_account_query({}, now=NOW)
    older = parse_account_query({"since": "2026-01-01T00:00:00Z", "days": "2"}, now=NOW)

    assert by_score.active_since == EPOCH
    assert by_score_days.active_since == NOW - timedelta(days=2)
    assert recent.active_since == NOW - timedelta(days=7)
    assert older.active_since == NOW - timedelta(days=2)
