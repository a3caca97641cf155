"""Signals (the Signal API): the event stream, roll-ups, the ingest queue.

Protocols and value types only; nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

from schemas.signals.events import Event, NewEvent, Position
from schemas.signals.fold import to_us
from schemas.signals.page_funnel import FunnelRows
from schemas.signals.rollups import AccountRollup, PersonRollup, Stage


@dataclass(frozen=True)
class StreamQuery:
    """One read of the stream, bounds on `recorded_at` already resolved by the caller.

    `forward`: walk up from `after` and return the oldest `limit` events after it (newest
    first); otherwise the newest `limit` events at or after `after` (a days window, or all).
    """

    after: Position | None = None
    until: datetime | None = None  # exclusive
    forward: bool = False
    types: tuple[str, ...] = ()
    domain: str | None = None
    email: str | None = None
    words: tuple[str, ...] = ()  # every word must match
    # (name, value) pairs every event's properties must hold: utm_campaign, utm_source
    properties: tuple[tuple[str, str], ...] = ()
    path: str | None = None  # the page's path, exactly
    limit: int = 100


@dataclass(frozen=True)
class StreamPage:
    """Events newest first; `last` is where a poller continues (None: stay at `after`)."""

    events: list[Event]
    has_more: bool
    last: Position | None = None


AccountSort = Literal["recent", "score"]


@dataclass(frozen=True)
class AccountPosition:
    """Where a page of the accounts list ended: the last account's sort key and domain
    (`recent`: last_recorded_at in µs since the epoch; `score`: its heat_log)."""

    key: float
    domain: str

    @classmethod
    def of(cls, account: AccountRollup, sort: AccountSort) -> AccountPosition:
        """The position just past `account` in a list of this sort."""
        if sort == "score":
            return cls(key=account.heat_log or 0.0, domain=account.domain)
        return cls(key=to_us(account.last_recorded_at), domain=account.domain)


@dataclass(frozen=True)
class AccountQuery:
    """The accounts list: recently active (by `last_recorded_at`) at or above a stage, most
    recent first or highest score (heat_log, schemas/signals/scores.py) first, then by domain
    descending; `after` continues past a position."""

    active_since: datetime
    stages: tuple[Stage, ...] = ()  # empty: any stage
    # Accounts whose latest touch happened (occurred_at, `last_seen`) at or after this time.
    seen_since: datetime | None = None
    limit: int = 50
    sort: AccountSort = "recent"
    min_heat_log: float | None = None
    after: AccountPosition | None = None


@dataclass(frozen=True)
class StoreResult:
    """The stored form of every event of a batch (recorded_at set) and which ones are new."""

    events: list[Event]
    new_ids: frozenset[str]


class SignalStore(Protocol):
    """Signal events once by id, the gapless stream over them, and their roll-ups."""

    def store_events(self, events: Sequence[NewEvent]) -> StoreResult:
        """Store each event once by id and fold it into its roll-ups in the same transaction.

        Raises: UnavailableError when the backend cannot commit now (retry the whole batch).
        """

    def read_stream(self, query: StreamQuery) -> StreamPage:
        """Settled events only, ordered by recorded_at then id."""

    def get_account(self, domain: str) -> AccountRollup | None:
        """One account's roll-up, if seen."""

    def list_accounts(self, query: AccountQuery) -> tuple[list[AccountRollup], bool]:
        """Accounts in the query's order, and whether more matched than `limit`."""

    def get_person(self, email: str) -> PersonRollup | None:
        """One person's roll-up, if seen."""

    def erase_person(self, email: str) -> list[str]:
        """Remove a person's events and roll-up contributions; the ids of the events removed."""

    def read_page_funnel(
        self, slug: str, *, first_day: int, last_day: int, dimension: str | None
    ) -> FunnelRows:
        """A page's funnel rows for days first_day..last_day (days since 1970-01-01): the `all`
        dimension's, and `dimension`'s (source, campaign or variant) when given; `day` asks
        for the `all` rows of each day (otherwise they may come summed over the range). Folded as
        events are stored (schemas/signals/page_funnel.py), never counted from the events."""


class SignalQueue(Protocol):
    """Carries encoded IngestMessages from the API to the ingest worker (Pub/Sub in gcp)."""

    def publish(self, data: bytes) -> None:
        """Queue one message. Raises: UnavailableError."""


class SignalDeliveries(Protocol):
    """The seam to outbound webhooks: called by the ingest worker for each stored event.

    Called again for the same event when a message is redelivered or a source re-sends an
    id, so it must be idempotent per event id.
    """

    def enqueue_for_event(self, event: Event) -> None:
        """Queue deliveries of this event to every matching endpoint."""

    def enqueue_for_events(self, events: Sequence[Event]) -> None:
        """As enqueue_for_event for each, reading the endpoints once (none: no work at all)."""
