"""The Firestore stream read: one indexed filter pushed down, the rest applied while scanning.

At most one equality filter goes to Firestore (email, else domain, else type), so the declared
indexes stay one per filter and direction; other filters and `q` words are applied in memory,
examining at most _SCAN_CAP documents per read. A forward read that stops at the cap returns
what matched with has_more and a position past what it examined, so polling still advances.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote

from google.cloud import firestore

from backends.ports import StreamPage, StreamQuery
from schemas.signals.events import Event, Position, event_words

_SCAN_PAGE = 200
_SCAN_CAP = 2000

Runner = Callable[..., Iterator[Any]]


@dataclass(frozen=True)
class QueryShape:
    """What an index must cover: collection, equality (or `in`) fields, range fields, orders."""

    collection: str
    equality: tuple[str, ...]
    ranges: tuple[str, ...]
    orders: tuple[tuple[str, str], ...]


def doc_id(key: str) -> str:
    """A document id for an event id, email or domain (`/` is not allowed in ids)."""
    return quote(key, safe="@:+-_.~")


def event_doc(event: Event) -> dict[str, Any]:
    """An event as stored: its fields plus the `words` that `q` matches."""
    doc = event.model_dump()
    doc["words"] = event_words(event)
    return doc


def event_from_doc(doc: dict[str, Any]) -> Event:
    doc.pop("words", None)
    return Event.model_validate(doc)


def read_stream(
    query: StreamQuery,
    *,
    events: Any,
    run: Runner,
    horizon: datetime,
    visitors: list[str] | None = None,
) -> StreamPage:
    """One page of settled events (recorded_at <= horizon), ordered by recorded_at then id.

    With `visitors`: the anonymous events of those visitor ids (backends/gcp/signal_identity.py).
    """
    direction = "ASCENDING" if query.forward else "DESCENDING"
    pushed: str | None
    if visitors:
        pushed = "properties.visitor_id"
        q = events.where(filter=firestore.FieldFilter(pushed, "in", visitors))
    else:
        q, pushed = _push_down(events, query)
    q = q.where(filter=firestore.FieldFilter("recorded_at", "<=", horizon))
    if query.until is not None:
        q = q.where(filter=firestore.FieldFilter("recorded_at", "<", query.until))
    after = query.after
    if after is not None:
        q = q.where(filter=firestore.FieldFilter("recorded_at", ">=", after.recorded_at))
    q = q.order_by("recorded_at", direction=direction).order_by("id", direction=direction)
    if after is not None and query.forward:
        q = q.start_after({"recorded_at": after.recorded_at, "id": after.event_id})
    local = _local_filter(query, pushed, anonymous_only=bool(visitors))
    page_size = query.limit + 1 if local is None else max(query.limit + 1, _SCAN_PAGE)
    shape = {"equality": (pushed,) if pushed else (), "ranges": ("recorded_at",)}
    orders = (("recorded_at", direction), ("id", direction))
    matched: list[Event] = []
    examined: Event | None = None
    scanned, capped, page_q = 0, False, q.limit(page_size)
    while True:
        snaps = list(run(page_q, "signal_events", orders=orders, **shape))
        for snap in snaps:
            examined = event_from_doc(snap.to_dict())
            if _after(examined, after) and (local is None or local(examined)):
                matched.append(examined)
                if len(matched) > query.limit:
                    break
        scanned += len(snaps)
        if len(matched) > query.limit or len(snaps) < page_size:
            break
        if scanned >= _SCAN_CAP:
            capped = True
            break
        page_q = q.start_after(snaps[-1]).limit(page_size)
    return _page(query, matched, examined, capped)


def _page(
    query: StreamQuery, matched: list[Event], examined: Event | None, capped: bool
) -> StreamPage:
    overflow = len(matched) > query.limit
    matched = matched[: query.limit]
    if not query.forward:
        last = _position(matched[0]) if matched else None
        return StreamPage(events=matched, has_more=overflow or capped, last=last)
    # Forward: everything up to the last examined event was seen, matching or not.
    newest = matched[-1] if overflow else examined
    return StreamPage(
        events=matched[::-1],
        has_more=overflow or capped,
        last=_position(newest) if newest is not None else None,
    )


def _position(event: Event) -> Position:
    return Position(recorded_at=event.recorded_at, event_id=event.id)


def _after(event: Event, after: Position | None) -> bool:
    if after is None or event.recorded_at != after.recorded_at:
        return True
    return event.id > after.event_id


def _push_down(events: Any, query: StreamQuery) -> tuple[Any, str | None]:
    if query.email is not None:
        return events.where(filter=firestore.FieldFilter("person.email", "==", query.email)), (
            "person.email"
        )
    if query.domain is not None:
        return events.where(filter=firestore.FieldFilter("account.domain", "==", query.domain)), (
            "account.domain"
        )
    if query.types:
        return events.where(filter=firestore.FieldFilter("type", "in", list(query.types))), "type"
    return events, None


def _local_filter(
    query: StreamQuery, pushed: str | None, *, anonymous_only: bool = False
) -> Callable[[Event], bool] | None:
    checks: list[Callable[[Event], bool]] = []
    if anonymous_only:
        checks.append(lambda e: e.person.email is None and e.account.domain is None)
    if query.domain is not None and pushed != "account.domain":
        checks.append(lambda e: e.account.domain == query.domain)
    if query.types and pushed != "type":
        checks.append(lambda e: e.type in query.types)
    if query.words:
        checks.append(lambda e: set(query.words) <= set(event_words(e)))
    if query.properties:
        checks.append(lambda e: all(e.properties.get(k) == v for k, v in query.properties))
    if query.path is not None:
        checks.append(lambda e: e.page.path == query.path)
    if not checks:
        return None
    return lambda event: all(check(event) for check in checks)
