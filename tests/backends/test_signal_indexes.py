"""Every query FirestoreSignalStore makes is covered by a declared composite index.

The emulator never asks for indexes (notes/gcp-emulators.md), so the adapter records the shape
of each query it runs and this test compares them with domain/indexes.py.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from backends.gcp.signal_stream import QueryShape
from backends.ports import AccountQuery, StreamQuery
from domain.indexes import FIRESTORE_INDEXES
from schemas.signals.events import NewEvent, Position, normalize_event

pytestmark = pytest.mark.emulator


def needs(shape: QueryShape) -> tuple[frozenset[str], tuple[tuple[str, str], ...]] | None:
    """The composite index a query needs (equality fields, then orders), or None."""
    fields = set(shape.equality) | set(shape.ranges) | {name for name, _ in shape.orders}
    if len(fields) <= 1 or (not shape.orders and not shape.ranges):
        return None  # single-field indexes (merged for equality-only queries) serve it
    return frozenset(shape.equality), shape.orders


def covered(shape: QueryShape) -> bool:
    need = needs(shape)
    if need is None:
        return True
    equality, orders = need
    for index in FIRESTORE_INDEXES:
        head, tail = index.fields[: len(equality)], index.fields[len(equality) :]
        if (
            index.collection == shape.collection
            and {name for name, _ in head} == equality
            and all(order == "ASCENDING" for _, order in head)
            and tuple(tail) == orders
        ):
            return True
    return False


@pytest.mark.spec("signals.indexes")
def test_every_query_the_firestore_signal_store_makes_has_a_declared_index(
    firestore_emulator: object,
) -> None:
    """DESIGN Signals (Firestore): a declared index for each query shape, checked statically."""
    from backends.gcp.firestore import firestore_client
    from backends.gcp.signals import FirestoreSignalStore

    store = FirestoreSignalStore(
        firestore_client(project="demo-frontdoor"),
        prefix=f"t{uuid.uuid4().hex[:10]}_",
        settle=timedelta(0),
    )
    now = datetime.now(UTC)
    raw = {
        "source": "crm",
        "row_id": "1",
        "type": "book_call",
        "occurred_at": now.isoformat(),
        "person": {"email": "ada@acme.com"},
        "properties": {"visitor_id": "v-0123456789"},  # a linked visitor joins the timelines
    }
    event = normalize_event(raw, now=now)
    assert isinstance(event, NewEvent)
    store.store_events([event])
    after = Position(recorded_at=now - timedelta(days=1))
    filters: list[dict[str, object]] = [
        {},
        {"types": ("book_call",)},
        {"domain": "acme.com"},
        {"email": "ada@acme.com"},
        {"words": ("ada",)},
        {"domain": "acme.com", "types": ("book_call",), "words": ("acme",)},
    ]
    for forward in (True, False):
        for extra in filters:
            store.read_stream(StreamQuery(after=after, forward=forward, **extra))  # type: ignore[arg-type]
    store.read_stream(StreamQuery(domain="acme.com"))
    store.list_accounts(AccountQuery(active_since=after.recorded_at))
    store.list_accounts(AccountQuery(active_since=after.recorded_at, stages=("hand_raiser",)))
    for stages in ((), ("hand_raiser",)):
        store.list_accounts(
            AccountQuery(
                active_since=after.recorded_at, stages=stages, sort="score", min_heat_log=1.0
            )
        )
    store.erase_person("ada@acme.com")

    missing = [shape for shape in store.query_shapes if not covered(shape)]

    assert len(store.query_shapes) >= 8
    assert any("properties.visitor_id" in shape.equality for shape in store.query_shapes)
    assert missing == []
