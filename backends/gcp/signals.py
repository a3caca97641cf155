"""FirestoreSignalStore: signal events and roll-ups as documents, streamed through a settle window.

Gapless by a settle window, not a global lock: each transaction stamps its new events'
recorded_at from the clock just before its writes, and the stream serves only events with
recorded_at <= now - settle (2 s), so every write that can still commit behind a cursor has
committed before any reader is shown events after it. A commit slower than the window is
logged as an error. A shared counter document would serialize every ingest transaction on one
document instead (Firestore sustains about one write per second per document).

Every query goes through `_run`, which records its shape, so a test can check that
domain/indexes.py declares an index for each one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any

from google.api_core import exceptions as gexc
from google.cloud import firestore

from backends.bundle import utc_now
from backends.gcp.signal_stream import QueryShape, doc_id, event_doc, event_from_doc, read_stream
from backends.ports import AccountQuery, StoreResult, StreamPage, StreamQuery, UnavailableError
from backends.signal_codec import dump_rollup, load_account, load_person
from schemas.signal_rollups import RANK, AccountRollup, PersonRollup, fold_event, rebuild_account
from schemas.signals import Event, NewEvent, stamp_event

logger = logging.getLogger(__name__)
SETTLE = timedelta(seconds=2)
_SCAN_PAGE = 200
_SCAN_CAP = 2000  # documents one read may examine for filters applied in memory
_ERASE_PASSES = 3  # the last finds nothing unless events keep arriving for the person


class FirestoreSignalStore:
    """SignalStore on Firestore."""

    def __init__(
        self,
        client: firestore.Client,
        *,
        prefix: str = "",
        clock: Callable[[], datetime] = utc_now,
        settle: timedelta = SETTLE,
        chunk: int = 100,
        max_attempts: int = 10,
    ) -> None:
        self._client = client
        self._prefix = prefix
        self._clock = clock
        self._settle = settle
        self._chunk = chunk
        self._max_attempts = max_attempts
        self._events = client.collection(f"{prefix}signal_events")
        self._accounts = client.collection(f"{prefix}signal_accounts")
        self._people = client.collection(f"{prefix}signal_people")
        self.query_shapes: set[QueryShape] = set()

    # --- writes ------------------------------------------------------------------------------

    def store_events(self, events: Sequence[NewEvent]) -> StoreResult:
        unique = list({e.id: e for e in reversed(events)}.values())[::-1]
        stored: dict[str, Event] = {}
        new_ids: set[str] = set()
        for start in range(0, len(unique), self._chunk):
            chunk_stored, chunk_new = self._store_chunk(unique[start : start + self._chunk])
            stored.update(chunk_stored)
            new_ids |= chunk_new
        return StoreResult(events=[stored[e.id] for e in unique], new_ids=frozenset(new_ids))

    def _store_chunk(self, chunk: list[NewEvent]) -> tuple[dict[str, Event], set[str]]:
        stamped: list[float] = []

        @firestore.transactional
        def write(tx: firestore.Transaction) -> tuple[dict[str, Event], set[str]]:
            stamped.clear()  # a retried attempt stamps afresh
            refs = [self._events.document(doc_id(e.id)) for e in chunk]
            snaps = {s.id: s for s in self._client.get_all(refs, transaction=tx)}
            out: dict[str, Event] = {}
            fresh: list[NewEvent] = []
            for event in chunk:
                snap = snaps.get(doc_id(event.id))
                if snap is not None and snap.exists:
                    out[event.id] = event_from_doc(_data(snap))
                else:
                    fresh.append(event)
            if not fresh:
                return out, set()
            people = self._load(tx, self._people, {e.person.email for e in fresh}, load_person)
            accounts = self._load(
                tx, self._accounts, {e.account.domain for e in fresh}, load_account
            )
            base = self._clock()
            stamped.append(time.monotonic())
            for i, new in enumerate(fresh):
                event = stamp_event(new, base + timedelta(microseconds=i))
                out[event.id] = event
                tx.set(self._events.document(doc_id(event.id)), event_doc(event))
                email, domain = event.person.email, event.account.domain
                account, person = fold_event(
                    accounts.get(domain) if domain else None,
                    people.get(email) if email else None,
                    event,
                )
                if person is not None:
                    people[person.email] = person
                if account is not None:
                    accounts[account.domain] = account
            for person in people.values():
                tx.set(self._people.document(doc_id(person.email)), _person_doc(person))
            for account in accounts.values():
                tx.set(self._accounts.document(doc_id(account.domain)), _account_doc(account))
            return out, {e.id for e in fresh}

        try:
            result: tuple[dict[str, Event], set[str]] = write(
                self._client.transaction(max_attempts=self._max_attempts)
            )
        except (gexc.ServiceUnavailable, gexc.DeadlineExceeded, gexc.Aborted, ValueError) as err:
            # ValueError: the client gave up after max_attempts contended commits.
            raise UnavailableError("firestore signal write") from err
        if (
            self._settle
            and stamped
            and time.monotonic() - stamped[-1] > self._settle.total_seconds()
        ):
            logger.error("signal commit outlasted the settle window; a poller may have missed it")
        return result

    def _load(
        self,
        tx: firestore.Transaction,
        collection: Any,
        keys: set[str | None],
        load: Callable[[str], Any],
    ) -> dict[str, Any]:
        wanted = sorted(k for k in keys if k)
        refs = [collection.document(doc_id(k)) for k in wanted]
        found: dict[str, Any] = {}
        for snap in self._client.get_all(refs, transaction=tx) if refs else []:
            if snap.exists:
                rollup = load(_data(snap)["state"])
                found[getattr(rollup, "email", None) or rollup.domain] = rollup
        return found

    def erase_person(self, email: str) -> list[str]:
        """Safe to retry and to repeat: each pass rebuilds the person's accounts without their
        events and deletes the person document before it deletes any event, so a pass that
        fails part way leaves events that still name the person, and the retry finds them.
        Passes repeat (up to _ERASE_PASSES) while events of the person turn up, so one stored
        by a concurrent ingest before the last pass is erased too."""
        erased: list[str] = []
        for _ in range(_ERASE_PASSES):
            query = self._events.where(filter=firestore.FieldFilter("person.email", "==", email))
            docs = list(self._run(query, "signal_events", equality=("person.email",)))
            domains = {_data(d)["account"]["domain"] for d in docs} - {None}
            for domain in sorted(domains):
                self._rebuild_account(domain, without=email)
            self._people.document(doc_id(email)).delete()
            for start in range(0, len(docs), 200):
                batch = self._client.batch()
                for snap in docs[start : start + 200]:
                    batch.delete(snap.reference)
                batch.commit()
            erased += [_data(d)["id"] for d in docs]
            if not docs:
                break
        return erased

    def _rebuild_account(self, domain: str, *, without: str) -> None:
        """Erasure alone rebuilds an account: from its events, less those of `without`."""
        remaining = (
            self._events.where(filter=firestore.FieldFilter("account.domain", "==", domain))
            .order_by("recorded_at")
            .order_by("id")
        )
        snaps = self._run(
            remaining,
            "signal_events",
            equality=("account.domain",),
            orders=(("recorded_at", "ASCENDING"), ("id", "ASCENDING")),
        )
        kept = (e for e in map(event_from_doc, map(_data, snaps)) if e.person.email != without)
        account = rebuild_account(kept)
        ref = self._accounts.document(doc_id(domain))
        if account is None:
            ref.delete()
        else:
            ref.set(_account_doc(account))

    # --- reads -------------------------------------------------------------------------------

    def read_stream(self, query: StreamQuery) -> StreamPage:
        return read_stream(
            query, events=self._events, run=self._run, horizon=self._clock() - self._settle
        )

    def get_account(self, domain: str) -> AccountRollup | None:
        snap = self._accounts.document(doc_id(domain)).get()
        return load_account(_data(snap)["state"]) if snap.exists else None

    def get_person(self, email: str) -> PersonRollup | None:
        snap = self._people.document(doc_id(email)).get()
        return load_person(_data(snap)["state"]) if snap.exists else None

    def list_accounts(self, query: AccountQuery) -> tuple[list[AccountRollup], bool]:
        q = self._accounts.where(
            filter=firestore.FieldFilter("last_recorded_at", ">=", query.active_since)
        )
        equality: tuple[str, ...] = ()
        if query.stages:
            q = q.where(filter=firestore.FieldFilter("stage", "in", list(query.stages)))
            equality = ("stage",)
        q = q.order_by("last_recorded_at", direction=firestore.Query.DESCENDING).limit(
            query.limit + 1
        )
        snaps = list(
            self._run(
                q,
                "signal_accounts",
                equality=equality,
                ranges=("last_recorded_at",),
                orders=(("last_recorded_at", "DESCENDING"),),
            )
        )
        accounts = [load_account(_data(s)["state"]) for s in snaps[: query.limit]]
        return accounts, len(snaps) > query.limit

    def _run(
        self,
        query: Any,
        collection: str,
        *,
        equality: tuple[str, ...] = (),
        ranges: tuple[str, ...] = (),
        orders: tuple[tuple[str, str], ...] = (),
    ) -> Iterator[Any]:
        """Every query of this adapter: its shape recorded for the index check, then streamed."""
        self.query_shapes.add(QueryShape(collection, tuple(sorted(equality)), ranges, orders))
        try:
            yield from query.stream()
        except (gexc.ServiceUnavailable, gexc.DeadlineExceeded) as err:
            raise UnavailableError("firestore signal read") from err


def _person_doc(person: PersonRollup) -> dict[str, Any]:
    return {"email": person.email, "domain": person.domain, "state": dump_rollup(person)}


def _account_doc(account: AccountRollup) -> dict[str, Any]:
    return {
        "domain": account.domain,
        "stage": account.stage,
        "stage_rank": RANK[account.stage],
        "last_recorded_at": account.last_recorded_at,
        "state": dump_rollup(account),
    }


def _data(snap: Any) -> dict[str, Any]:
    data: dict[str, Any] = snap.to_dict() or {}
    return data
