"""Anonymous to known in the Firestore signal store (the rules: schemas/signals/identity.py).

Links are documents of `signal_visitors` (id: the visitor id; fields email, domain). Events
are never rewritten: a person's or account's timeline is its own pushed-down read merged with
reads of its linked visitors' events (`properties.visitor_id in [...]`, 30 ids per read, the
`in` limit), anonymous ones only. At most MAX_TIMELINE_VISITORS visitors join one timeline.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from google.cloud import firestore

from backends.gcp.deadline import CallDeadline
from backends.gcp.signal_stream import doc_id, event_from_doc
from backends.ports import StreamPage, StreamQuery
from schemas.signals.events import Event, Position
from schemas.signals.identity import Link, is_anonymous

IN_LIMIT = 30
MAX_TIMELINE_VISITORS = 300
PageReader = Callable[[StreamQuery, list[str] | None], StreamPage]


def load_links(
    client: firestore.Client,
    tx: firestore.Transaction,
    visitors: Any,
    wanted: set[str],
    *,
    deadline: CallDeadline,
) -> dict[str, Link]:
    """The links of these visitor ids, read in the transaction."""
    refs = [visitors.document(doc_id(v)) for v in sorted(wanted)]
    found: dict[str, Link] = {}
    for snap in client.get_all(refs, transaction=tx, **deadline.read) if refs else []:
        if snap.exists:
            data = snap.to_dict() or {}
            found[data["visitor_id"]] = (data["email"], data.get("domain"))
    return found


def anonymous_events_of(
    events: Any, visitor: str, *, deadline: CallDeadline, tx: Any = None
) -> list[Any]:
    """The snapshots of a visitor's anonymous events (any order)."""
    query = events.where(filter=firestore.FieldFilter("properties.visitor_id", "==", visitor))
    snaps = query.stream(transaction=tx, **deadline.read)
    return [s for s in snaps if is_anonymous(event_from_doc(s.to_dict() or {}))]


def linked_visitors(visitors: Any, field: str, value: str, *, deadline: CallDeadline) -> list[str]:
    """Visitor ids linked to a person (`email`) or an account (`domain`)."""
    query = visitors.where(filter=firestore.FieldFilter(field, "==", value)).limit(
        MAX_TIMELINE_VISITORS
    )
    return [(s.to_dict() or {})["visitor_id"] for s in query.stream(**deadline.read)]


def merged_read(query: StreamQuery, visitors: Sequence[str], read: PageReader) -> StreamPage:
    """The query's own page merged with its linked visitors' anonymous events."""
    plain = replace(query, email=None, domain=None)
    chunks = [list(visitors[i : i + IN_LIMIT]) for i in range(0, len(visitors), IN_LIMIT)]
    return merge_pages(query, [read(query, None), *(read(plain, c) for c in chunks)])


def merge_pages(query: StreamQuery, pages: Sequence[StreamPage]) -> StreamPage:
    """Pages of disjoint sources as one page of the same query.

    Forward: no event past the least position a source with more stopped at (its events after
    that are unseen), and the oldest `limit` of the rest; otherwise the newest `limit`.
    """
    unique = {e.id: e for page in pages for e in page.events}
    ordered = sorted(unique.values(), key=_key)
    more = any(page.has_more for page in pages)
    if not query.forward:
        newest = ordered[::-1]
        kept = newest[: query.limit]
        last = _position(kept[0]) if kept else None
        return StreamPage(events=kept, has_more=more or len(newest) > query.limit, last=last)
    stops = [page.last for page in pages if page.has_more and page.last is not None]
    bound = min(stops, key=lambda p: (p.recorded_at, p.event_id)) if stops else None
    if bound is not None:
        ordered = [e for e in ordered if _key(e) <= (bound.recorded_at, bound.event_id)]
    kept = ordered[: query.limit]
    if len(ordered) > query.limit or bound is None:
        last = _position(kept[-1]) if kept else None
    else:
        last = bound
    if last is None:  # nothing matched anywhere: every source examined up to its own last
        lasts = [page.last for page in pages if page.last is not None]
        last = min(lasts, key=lambda p: (p.recorded_at, p.event_id)) if lasts else None
    return StreamPage(events=kept[::-1], has_more=more or len(ordered) > query.limit, last=last)


def _key(event: Event) -> tuple[Any, str]:
    return (event.recorded_at, event.id)


def _position(event: Event) -> Position:
    return Position(recorded_at=event.recorded_at, event_id=event.id)
