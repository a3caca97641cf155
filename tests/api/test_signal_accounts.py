"""Over HTTP: the accounts list by score or recent activity, min_score, and its cursor."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

from backends.bundle import Backends
from backends.embedded.queues import DurableQueue
from tests.conftest import INGEST_KEY, SIGNALS_KEY

BASE = "/api/public/v1/signals"
READ = {"x-api-key": SIGNALS_KEY}


def send(client: FlaskClient, backends: Backends, events: list[dict[str, Any]]) -> None:
    response = client.post(
        f"{BASE}/events", json={"events": events}, headers={"x-api-key": INGEST_KEY}
    )
    assert response.status_code == 202, response.get_json()
    assert isinstance(backends.signal_queue, DurableQueue)
    assert backends.signal_queue.drain(timeout=10)


def touch(row_id: str, kind: str, email: str, days_ago: float) -> dict[str, Any]:
    when = datetime.now(UTC) - timedelta(days=days_ago)
    return {
        "source": "crm",
        "row_id": row_id,
        "type": kind,
        "occurred_at": when.isoformat(),
        "person": {"email": email},
    }


@pytest.mark.spec("signals.accounts")
def test_accounts_sort_by_score_filter_by_min_score_and_page_with_next_cursor(
    client: FlaskClient, backends: Backends
) -> None:
    """sort=score, min_score, cursor in and next_cursor/has_more out."""
    send(
        client,
        backends,
        [
            touch("1", "book_call", "a@hot.example", 0.1),
            touch("2", "article_read", "b@warm.example", 0.2),
            touch("3", "email_open", "c@cool.example", 0.0),
        ],
    )

    first = client.get(f"{BASE}/accounts", query_string={"sort": "score", "limit": 2}, headers=READ)
    body = first.get_json()
    rest = client.get(
        f"{BASE}/accounts",
        query_string={"sort": "score", "limit": 2, "cursor": body["next_cursor"]},
        headers=READ,
    ).get_json()
    hot = client.get(f"{BASE}/accounts", query_string={"min_score": 40}, headers=READ).get_json()

    assert [a["domain"] for a in body["accounts"]] == ["hot.example", "warm.example"]
    assert body["has_more"] is True
    assert [a["domain"] for a in rest["accounts"]] == ["cool.example"]
    assert (rest["has_more"], rest["next_cursor"]) == (False, None)
    assert [a["domain"] for a in hot["accounts"]] == ["hot.example"]
    top = body["accounts"][0]
    assert top["stage"] == "hand_raiser"
    assert top["trend"] == "heating"
    assert top["score"] >= 40
    assert top["reasons"][0].startswith("hand raiser since")


@pytest.mark.spec("signals.errors")
def test_a_cursor_of_another_sort_or_a_bad_sort_answers_400(
    client: FlaskClient, backends: Backends
) -> None:
    """A cursor belongs to its sort; bad values name their parameter."""
    send(client, backends, [touch(str(i), "email_open", f"p@d{i}.example", 0) for i in range(3)])
    recent = client.get(f"{BASE}/accounts", query_string={"limit": 1}, headers=READ).get_json()

    wrong = client.get(
        f"{BASE}/accounts",
        query_string={"sort": "score", "cursor": recent["next_cursor"], "min_score": "101"},
        headers=READ,
    )
    bad_sort = client.get(f"{BASE}/accounts", query_string={"sort": "size"}, headers=READ)

    assert wrong.status_code == 400
    assert {i["field"] for i in wrong.get_json()["issues"]} == {"cursor", "min_score"}
    assert bad_sort.get_json()["issues"][0]["field"] == "sort"


@pytest.mark.spec("signals.accounts")
def test_min_score_100_lists_the_accounts_that_score_100(
    client: FlaskClient, backends: Backends
) -> None:
    """min_score is 0 to 100 and keeps the accounts scoring at least that, 100
    included (a score rounds to 100 from a heat of 4,975)."""
    send(
        client,
        backends,
        [touch(str(i), "book_call", f"p{i}@busy.example", 0) for i in range(200)]
        + [touch("cold", "book_call", "p@quiet.example", 0)],
    )

    top = client.get(
        f"{BASE}/accounts", query_string={"sort": "score", "min_score": 100}, headers=READ
    ).get_json()

    assert [(a["domain"], a["score"]) for a in top["accounts"]] == [("busy.example", 100)]


def walk(client: FlaskClient, **query: Any) -> list[dict[str, Any]]:
    """Every page of the accounts list, following next_cursor."""
    accounts: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = client.get(
            f"{BASE}/accounts",
            query_string={**query, **({"cursor": cursor} if cursor else {})},
            headers=READ,
        ).get_json()
        accounts += page["accounts"]
        cursor = page["next_cursor"]
        if not page["has_more"]:
            return accounts


@pytest.mark.spec("signals.accounts")
def test_an_account_touched_during_a_walk_is_listed_by_the_next_walk_since_the_last_one(
    client: FlaskClient, backends: Backends
) -> None:
    """signals-api.md Accounts: a walk lists each account at most once; one that changed while
    it ran (it moved ahead of the cursor) is what `since` = the newest `last_recorded_at` of
    the walk before lists."""
    send(client, backends, [touch(d, "email_open", f"p@{d}.example", 0) for d in "abc"])
    first = client.get(f"{BASE}/accounts", query_string={"limit": 1}, headers=READ).get_json()
    newest_seen = first["accounts"][0]["last_recorded_at"]

    send(client, backends, [touch("a2", "book_call", "p@a.example", 0)])
    rest = walk(client, limit=1, cursor=first["next_cursor"])
    changed = walk(client, since=newest_seen)

    walked = [a["domain"] for a in first["accounts"] + rest]
    assert walked == ["c.example", "b.example"]
    assert [a["domain"] for a in changed] == ["a.example", "c.example"]
