"""What a limited signals key may see, and its stream read through that limit.

A signals key issued with limits (event types, sources, the pages its partner owns:
`frontdoor keys issue --scope signals --type ... --source ... --own-pages`) reads only the
events they allow. The stream narrows the store's own type filter and filters sources and
pages as it walks forward, reading on until it has `limit` events or has read
`MAX_STORE_READS` store pages (then it answers `has_more` with a cursor past what it read,
so a poller never misses an event and never waits on an endless scan). Roll-ups and webhooks
are not served to a limited key (api/rest/signal_access.py): they fold or send every event.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from backends.ports import KeyLimits, PageStore, SignalStore, StreamPage, StreamQuery
from schemas.signals.events import Event, Position

__all__ = ["MAX_STORE_READS", "Visibility", "read_visible_stream", "visibility_of"]

MAX_STORE_READS = 10
_PAGE_LIST = 200


@dataclass(frozen=True)
class Visibility:
    """The events a limited key may see: each set None when that kind is not limited."""

    types: frozenset[str] | None
    sources: frozenset[str] | None
    paths: frozenset[str] | None

    def allows(self, event: Event) -> bool:
        """Whether the key may see this event."""
        return (
            (self.types is None or event.type in self.types)
            and (self.sources is None or event.source in self.sources)
            and (self.paths is None or event.page.path in self.paths)
        )


def visibility_of(*, limits: KeyLimits, partner: str, pages: PageStore) -> Visibility | None:
    """A key's visibility (None: it sees everything); `--own-pages` reads its partner's pages,
    whatever their status, as `/p/{slug}` paths."""
    if not limits.limited:
        return None
    paths = (
        frozenset(f"/p/{slug}" for slug in _owned_slugs(pages, partner))
        if limits.own_pages
        else None
    )
    return Visibility(
        types=frozenset(limits.types) or None,
        sources=frozenset(limits.sources) or None,
        paths=paths,
    )


def _owned_slugs(pages: PageStore, partner: str) -> list[str]:
    slugs: list[str] = []
    cursor: str | None = None
    while True:
        listed = pages.list_pages(owner=partner, cursor=cursor, limit=_PAGE_LIST)
        slugs += [page.slug for page in listed.pages]
        cursor = listed.next_cursor
        if not cursor:
            return slugs


def read_visible_stream(
    *, signals: SignalStore, query: StreamQuery, visibility: Visibility
) -> StreamPage:
    """The stream page a limited key gets for a forward `query` (the stream's own walk)."""
    types = visibility.types
    if types is not None:
        narrowed = [t for t in query.types if t in types] if query.types else sorted(types)
        if not narrowed:  # asked only for types it may not see
            return StreamPage(events=[], has_more=False, last=None)
        query = dataclasses.replace(query, types=tuple(narrowed))
    found: list[Event] = []
    last: Position | None = None
    for _ in range(MAX_STORE_READS):
        page = signals.read_stream(dataclasses.replace(query, after=last or query.after))
        oldest_first = list(reversed(page.events))
        for index, event in enumerate(oldest_first):
            if not visibility.allows(event):
                continue
            found.append(event)
            if len(found) == query.limit:
                more = index < len(oldest_first) - 1 or page.has_more
                here = Position(recorded_at=event.recorded_at, event_id=event.id)
                return StreamPage(events=found[::-1], has_more=more, last=here)
        last = page.last or last
        if not page.has_more:
            return StreamPage(events=found[::-1], has_more=False, last=last)
    return StreamPage(events=found[::-1], has_more=True, last=last)
