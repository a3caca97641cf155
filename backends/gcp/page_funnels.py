"""The Firestore signal store's page funnels: day documents per page and visitor markers
(schemas/signals/page_funnel.py folds and reads them).

A page's day is PAGE_SHARDS documents, `signal_page_days/{slug}~{day}~{shard}`, so a page in a
rush spreads its writes (Firestore sustains about one write a second per document): an event
goes to the shard its visitor id hashes to (one without, to its person's email's, else its event
id's: one person keeps to one shard, so writers of different people rarely meet), and each
holds additive tallies, summed on read: per value its events, and its visitor-days with their
cumulative counts by gap (schemas/signals/page_funnel.py), so a document's size is bounded by
its values and the gaps a range can span, not by its visitors. A visitor's marker is
`signal_page_visitors/{slug}~{hash}`.
FirestoreSignalStore folds and reads both inside the transaction that stores the events (every
read before any write: the markers, then every day document the fold changes, a later day of a
visitor whose event arrived late included) and writes them for the new events only. A read is
one batched get of the range's documents by id: no query, no index, and no event read.
Day documents written before visits were kept by gap hold one visits row per previous day
instead; they are read as they are and rewritten in the new form when next written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from google.cloud import firestore
from pydantic_core import from_json, to_json

from backends.gcp.deadline import CallDeadline
from backends.gcp.signal_stream import doc_id
from schemas.signals.events import NewEvent, visitor_of
from schemas.signals.page_funnel import (
    FunnelRows,
    Marker,
    MarkerKey,
    PageFold,
    add_gaps,
    fold_page_events,
    gap_between,
    marker_keys,
    page_of,
    returning_within,
)

PAGE_SHARDS = 16
# A day document's state: tallies [dim, value, views, clicks, leads] and visits
# [dim, value, visitor-days, [cumulative counts by gap]] (before: [dim, value, previous day,
# n]), as JSON (values are free text, unfit for field paths).
_State = dict[str, list[list[Any]]]
_Visits = dict[tuple[str, str], tuple[int, list[int]]]  # (dim, value): n, returned


def _shard(event: NewEvent) -> int:
    key = visitor_of(event) or event.person.email or event.id
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big") % PAGE_SHARDS


def _day_key(slug: str, day: int, shard: int) -> str:
    return f"{slug}~{day}~{shard}"


@dataclass
class LoadedFunnels:
    """A transaction's funnel work, read before its writes: each shard's fold and the day
    documents the folds change (a late event changes a later day of its visitor too)."""

    folds: dict[int, PageFold] = field(default_factory=dict)
    days: dict[str, _State] = field(default_factory=dict)


class FirestorePageFunnels:
    """The funnel documents of one store (its collection prefix)."""

    def __init__(self, client: firestore.Client, *, prefix: str, deadline: CallDeadline) -> None:
        self._client = client
        self._deadline = deadline
        self._days = client.collection(f"{prefix}signal_page_days")
        self._visitors = client.collection(f"{prefix}signal_page_visitors")

    def load(self, tx: firestore.Transaction, events: Sequence[NewEvent]) -> LoadedFunnels:
        """Fold `events` against the markers read in `tx`, and read the day documents the
        folds change (markers first: they say which later days a late event moves)."""
        loaded = LoadedFunnels()
        by_shard: dict[int, list[NewEvent]] = {}
        for event in events:
            if page_of(event) is not None:
                by_shard.setdefault(_shard(event), []).append(event)
        if not by_shard:
            return loaded
        markers: dict[MarkerKey, Marker] = {}
        keys = sorted(marker_keys(events))
        refs = [self._visitors.document(doc_id(f"{s}~{v}")) for s, v in keys]
        found = self._client.get_all(refs, transaction=tx, **self._deadline.read) if refs else []
        for snap in found:
            if snap.exists:
                data = snap.to_dict() or {}
                markers[(data["slug"], data["visitor"])] = from_json(data["days"])
        day_keys: set[str] = set()
        for shard, group in sorted(by_shard.items()):
            fold = fold_page_events(group, markers)
            loaded.folds[shard] = fold
            day_keys |= {_day_key(slug, day, shard) for slug, day, *_ in fold.tallies}
            day_keys |= {_day_key(slug, day, shard) for slug, day, *_ in fold.visits}
        refs = [self._days.document(doc_id(k)) for k in sorted(day_keys)]
        for snap in self._client.get_all(refs, transaction=tx, **self._deadline.read):
            if snap.exists:
                data = snap.to_dict() or {}
                loaded.days[data["key"]] = from_json(data["state"])
        return loaded

    def write(self, tx: firestore.Transaction, loaded: LoadedFunnels) -> None:
        """Write what `load` folded: the day documents with its deltas added, the markers."""
        states: dict[str, _State] = {}
        for shard, fold in loaded.folds.items():
            for (slug, day, dim, value), t in fold.tallies.items():
                key = _day_key(slug, day, shard)
                state = states.setdefault(key, _copy(loaded.days.get(key)))
                _add_row(state["tallies"], [dim, value], [t.views, t.clicks, t.leads])
            deltas: dict[str, dict[tuple[str, str], dict[int, int]]] = {}
            for (slug, day, dim, value, gap), n in fold.visits.items():
                by_gap = deltas.setdefault(_day_key(slug, day, shard), {}).setdefault(
                    (dim, value), {}
                )
                by_gap[gap] = by_gap.get(gap, 0) + n
            for key, by_value in deltas.items():
                state = states.setdefault(key, _copy(loaded.days.get(key)))
                visits = _visits(int(key.rsplit("~", 2)[1]), state["visits"])
                for (dim, value), by_gap in by_value.items():
                    n, returned = visits.get((dim, value), (0, []))
                    visits[dim, value] = (n + sum(by_gap.values()), add_gaps(returned, by_gap))
                state["visits"] = [[d, v, n, r] for (d, v), (n, r) in visits.items() if n]
            for (slug, visitor), marker in fold.markers.items():
                tx.set(
                    self._visitors.document(doc_id(f"{slug}~{visitor}")),
                    {"slug": slug, "visitor": visitor, "days": to_json(marker).decode()},
                )
        for key, state in states.items():
            slug, day_text, shard_text = key.rsplit("~", 2)
            tx.set(
                self._days.document(doc_id(key)),
                {
                    "key": key,
                    "slug": slug,
                    "day": int(day_text),
                    "shard": int(shard_text),
                    "state": to_json(state).decode(),
                },
            )

    def read(
        self, slug: str, *, first_day: int, last_day: int, dimension: str | None
    ) -> FunnelRows:
        """The rows of days first_day..last_day: the `all` dimension's and `dimension`'s."""
        dims = {"all"} if dimension in (None, "all", "day") else {"all", dimension}
        refs = [
            self._days.document(doc_id(_day_key(slug, day, shard)))
            for day in range(first_day, last_day + 1)
            for shard in range(PAGE_SHARDS)
        ]
        tallies: dict[tuple[int, str, str], list[int]] = {}
        visits: dict[tuple[int, str, str], list[int]] = {}
        for snap in self._client.get_all(refs, **self._deadline.read):
            if not snap.exists:
                continue
            data = snap.to_dict() or {}
            day, state = data["day"], from_json(data["state"])
            for d, v, *counts in state["tallies"]:
                if d in dims:
                    _add_to(tallies, (day, d, v), counts)
            for (d, v), (n, returned) in _visits(day, state["visits"]).items():
                if d in dims:
                    _add_to(
                        visits, (day, d, v), [n, n - returning_within(returned, day - first_day)]
                    )
        # The shards' rows summed: one row per day and value.
        return FunnelRows(
            tallies=[(*key, a, b, c) for key, (a, b, c) in tallies.items()],
            visits=[(*key, n, new) for key, (n, new) in visits.items()],
        )


def _copy(state: _State | None) -> _State:
    if state is None:
        return {"tallies": [], "visits": []}
    return {
        "tallies": [list(r) for r in state["tallies"]],
        "visits": [list(r) for r in state["visits"]],
    }


def _visits(day: int, rows: list[list[Any]]) -> _Visits:
    """A day document's visits by value, from either form of its rows."""
    found: _Visits = {}
    old: dict[tuple[str, str], dict[int, int]] = {}
    for dim, value, third, fourth in rows:
        if isinstance(fourth, list):
            found[dim, value] = (third, fourth)
        else:  # one row per previous day
            by_gap = old.setdefault((dim, value), {})
            gap = gap_between(third, day)
            by_gap[gap] = by_gap.get(gap, 0) + fourth
    for key, by_gap in old.items():
        n, returned = found.get(key, (0, []))
        found[key] = (n + sum(by_gap.values()), add_gaps(returned, by_gap))
    return found


def _add_to(
    sums: dict[tuple[int, str, str], list[int]], key: tuple[int, str, str], counts: list[int]
) -> None:
    found = sums.setdefault(key, [0] * len(counts))
    for i, n in enumerate(counts):
        found[i] += n


def _add_row(rows: list[list[Any]], key: list[Any], amounts: list[int]) -> None:
    width = len(key)
    for row in rows:
        if row[:width] == key:
            for i, n in enumerate(amounts):
                row[width + i] += n
            return
    rows.append([*key, *amounts])
