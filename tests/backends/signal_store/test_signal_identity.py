"""Contract: anonymous to known. A visitor id links anonymous events to the person the visitor
identifies as; stored events are never rewritten (both backends)."""

from __future__ import annotations

import uuid

import pytest

from backends.ports import SignalStore, StreamQuery
from schemas.signals.events import NewEvent
from tests.backends.signal_store.conftest import event


def visit(row_id: str, visitor: str, path: str) -> NewEvent:
    return event(
        row_id, type="page_view", email=None, path=path, properties={"visitor_id": visitor}
    )


@pytest.fixture
def visitor() -> str:
    return "v" + uuid.uuid4().hex


def test_an_identify_counts_the_visitors_earlier_page_views_for_the_person_and_account(
    store: SignalStore, visitor: str
) -> None:
    """Earlier anonymous events join the person's and account's roll-ups."""
    store.store_events([visit("1", visitor, "/p/a"), visit("2", visitor, "/p/b")])

    store.store_events(
        [
            event(
                "3",
                type="identify",
                email="ana@northbook.example",
                path=None,
                properties={"visitor_id": visitor},
            )
        ]
    )

    person = store.get_person("ana@northbook.example")
    account = store.get_account("northbook.example")
    timeline = store.read_stream(StreamQuery(email="ana@northbook.example")).events
    assert person is not None
    assert account is not None
    assert (person.events, sorted(person.pages)) == (3, ["/p/a", "/p/b"])
    assert (account.events, sorted(account.pages), list(account.people)) == (
        3,
        ["/p/a", "/p/b"],
        ["ana@northbook.example"],
    )
    assert [e.id for e in timeline] == ["crm:3", "crm:2", "crm:1"]
    assert [e.person.email for e in timeline] == ["ana@northbook.example", None, None]


def test_later_page_views_of_an_identified_visitor_count_for_the_person(
    store: SignalStore, visitor: str
) -> None:
    """The link holds for anonymous events stored after it."""
    identify = event(
        "1", type="identify", email="ana@northbook.example", properties={"visitor_id": visitor}
    )
    store.store_events([identify])

    store.store_events([visit("2", visitor, "/p/pricing"), visit("3", visitor, "/p/pricing")])

    account = store.get_account("northbook.example")
    domain_timeline = store.read_stream(StreamQuery(domain="northbook.example")).events
    assert account is not None
    assert (account.events, account.pages["/p/pricing"]) == (3, 2)
    assert [e.id for e in domain_timeline] == ["crm:3", "crm:2", "crm:1"]


def test_erasing_a_person_removes_their_linked_anonymous_events_and_keeps_the_others(
    store: SignalStore, visitor: str
) -> None:
    """Erasure reaches the events linked through the visitor id."""
    stranger = "v" + uuid.uuid4().hex
    store.store_events(
        [
            visit("1", visitor, "/p/a"),
            visit("2", stranger, "/p/a"),
            event("3", email="ana@northbook.example", properties={"visitor_id": visitor}),
            event("4", email="bo@northbook.example"),
        ]
    )

    erased = store.erase_person("ana@northbook.example")

    account = store.get_account("northbook.example")
    remaining = store.read_stream(StreamQuery(limit=10)).events
    assert sorted(erased) == ["crm:1", "crm:3"]
    assert sorted(e.id for e in remaining) == ["crm:2", "crm:4"]
    assert account is not None
    assert (account.events, list(account.people)) == (1, ["bo@northbook.example"])
