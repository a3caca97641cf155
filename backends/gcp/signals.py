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

from google.cloud import firestore

from backends.clock import utc_now
from backends.gcp.account_shards import (
    SHARDS,
    cap_pages,
    listing_fields,
    merge_shards,
    shard_key,
    shard_of,
)
from backends.gcp.deadline import DEFAULT_DEADLINE, CallDeadline
from backends.gcp.firestore_errors import run_transaction, unavailable_when_transient
from backends.gcp.page_funnels import FirestorePageFunnels
from backends.gcp.signal_identity import (
    anonymous_events_of,
    linked_visitors,
    load_links,
    merged_read,
)
from backends.gcp.signal_stream import QueryShape, doc_id, event_doc, event_from_doc, read_stream
from backends.ports import AccountQuery, StoreResult, StreamPage, StreamQuery
from backends.signal_codec import dump_rollup, load_account, load_person
from schemas.signals.events import Event, NewEvent, attributed, stamp_event, visitor_of
from schemas.signals.fold import to_us
from schemas.signals.identity import as_linked, new_links
from schemas.signals.page_funnel import FunnelRows
from schemas.signals.rollups import RANK, AccountRollup, PersonRollup, fold_event, rebuild_account
from schemas.signals.scores import STAGE_WEIGHTS, add_heat

logger = logging.getLogger(__name__)
SETTLE = timedelta(seconds=2)
_SCAN_PAGE = 200
_SCAN_CAP = 2000  # documents one read may examine for filters applied in memory
_ERASE_PASSES = 3  # the last finds nothing unless events keep arriving for the person
# Rounds of max_attempts transaction attempts, with jittered back-off between them: 20 writers
# of one hot account (a burst of views) meet on its shards, where one long run of attempts
# keeps them meeting.
CONTENTION_ROUNDS = 5


class FirestoreSignalStore:
    """SignalStore on Firestore; a transient failure in any operation is UnavailableError."""

    def __init__(
        self,
        client: firestore.Client,
        *,
        prefix: str = "",
        clock: Callable[[], datetime] = utc_now,
        settle: timedelta = SETTLE,
        chunk: int = 100,
        max_attempts: int = 10,  # per round: shorter than TRANSACTION_ATTEMPTS, as rounds follow
        deadline: CallDeadline = DEFAULT_DEADLINE,
    ) -> None:
        self._client = client
        self._deadline = deadline
        self._prefix = prefix
        self._clock = clock
        self._settle = settle
        self._chunk = chunk
        self._max_attempts = max_attempts
        self._events = client.collection(f"{prefix}signal_events")
        self._accounts = client.collection(f"{prefix}signal_accounts")
        self._people = client.collection(f"{prefix}signal_people")
        self._visitors = client.collection(f"{prefix}signal_visitors")
        self._shards = client.collection(f"{prefix}signal_account_shards")
        self._funnels = FirestorePageFunnels(client, prefix=prefix, deadline=deadline)
        self._sharded: set[str] = set()  # domains known to need no conversion
        self.query_shapes: set[QueryShape] = set()

    # --- writes ------------------------------------------------------------------------------

    @unavailable_when_transient()
    def store_events(self, events: Sequence[NewEvent]) -> StoreResult:
        unique = list({e.id: e for e in reversed(events)}.values())[::-1]
        stored: dict[str, Event] = {}
        new_ids: set[str] = set()
        self._shard_old_accounts({e.account.domain for e in unique if e.account.domain})
        for start in range(0, len(unique), self._chunk):
            chunk_stored, chunk_new = self._store_chunk(unique[start : start + self._chunk])
            stored.update(chunk_stored)
            new_ids |= chunk_new
        return StoreResult(events=[stored[e.id] for e in unique], new_ids=frozenset(new_ids))

    def _store_chunk(self, chunk: list[NewEvent]) -> tuple[dict[str, Event], set[str]]:
        stamped: list[float] = []
        touched: set[str] = set()

        def write(tx: firestore.Transaction) -> tuple[dict[str, Event], set[str]]:
            stamped.clear()  # a retried attempt stamps afresh
            touched.clear()
            refs = [self._events.document(doc_id(e.id)) for e in chunk]
            snaps = {
                s.id: s for s in self._client.get_all(refs, transaction=tx, **self._deadline.read)
            }
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
            base = self._clock()
            batch = [stamp_event(e, base + timedelta(microseconds=i)) for i, e in enumerate(fresh)]
            # Every read before any write (a Firestore transaction's rule).
            visitors = {v for e in batch if (v := visitor_of(e))}
            links = (
                load_links(self._client, tx, self._visitors, visitors, deadline=self._deadline)
                if visitors
                else {}
            )
            made = new_links(batch, links)
            earlier = [
                attributed(
                    event_from_doc(snap.to_dict() or {}), email=made[v][0], domain=made[v][1]
                )
                for v in sorted(made)
                for snap in anonymous_events_of(self._events, v, tx=tx, deadline=self._deadline)
            ]
            to_fold = earlier + [as_linked(e, links) for e in batch]
            people = self._load(tx, self._people, {e.person.email for e in to_fold}, load_person)
            accounts = self._load_shards(
                tx,
                {
                    shard_key(domain, shard_of(e.person.email))
                    for e in to_fold
                    if (domain := e.account.domain)
                },
            )
            funnels = self._funnels.load(tx, batch)
            stamped.append(time.monotonic())
            for visitor, (linked_email, linked_domain) in made.items():
                tx.set(
                    self._visitors.document(doc_id(visitor)),
                    {"visitor_id": visitor, "email": linked_email, "domain": linked_domain},
                )
            for event in batch:
                out[event.id] = event
                tx.set(self._events.document(doc_id(event.id)), event_doc(event))
            self._funnels.write(tx, funnels)
            for event in to_fold:
                email, domain = event.person.email, event.account.domain
                key = shard_key(domain, shard_of(email)) if domain else ""
                account, person = fold_event(
                    accounts.get(key) if domain else None,
                    people.get(email) if email else None,
                    event,
                )
                if person is not None:
                    people[person.email] = person
                if account is not None:
                    accounts[key] = account
            for person in people.values():
                tx.set(self._people.document(doc_id(person.email)), _person_doc(person))
            for key, shard in accounts.items():
                cap_pages(shard)
                tx.set(
                    self._shards.document(doc_id(key)),
                    {"domain": shard.domain, "key": key, "state": dump_rollup(shard)},
                )
            touched.update(a.domain for a in accounts.values())
            return out, {e.id for e in fresh}

        # Two writers of one shard contend: rounds of attempts, backing off between them.
        result: tuple[dict[str, Event], set[str]] = run_transaction(
            self._client,
            write,
            deadline=self._deadline,
            max_attempts=self._max_attempts,
            rounds=CONTENTION_ROUNDS,
        )
        if (
            self._settle
            and stamped
            and time.monotonic() - stamped[-1] > self._settle.total_seconds()
        ):
            logger.error("signal commit outlasted the settle window; a poller may have missed it")
        for domain in sorted(touched):
            self._refresh_listing(domain)
        return result

    @unavailable_when_transient()
    def read_page_funnel(
        self, slug: str, *, first_day: int, last_day: int, dimension: str | None
    ) -> FunnelRows:
        return self._funnels.read(slug, first_day=first_day, last_day=last_day, dimension=dimension)

    def _shard_old_accounts(self, domains: set[str]) -> None:
        """Accounts stored whole in their listing document (before shards) become shard 0,
        once, before any event is folded into a shard of theirs."""
        wanted = sorted(domains - self._sharded)
        refs = [self._accounts.document(doc_id(d)) for d in wanted]
        for snap in self._client.get_all(refs, **self._deadline.read) if refs else []:
            if snap.exists and "state" in _data(snap):
                self._convert_old_account(snap.reference)
        if len(self._sharded) > 100_000:
            self._sharded.clear()
        self._sharded.update(wanted)

    def _convert_old_account(self, ref: Any) -> None:
        def convert(tx: firestore.Transaction) -> str | None:
            data = _data(ref.get(transaction=tx, **self._deadline.read))
            if "state" not in data:
                return None  # converted meanwhile
            account = load_account(data["state"])
            if account.heat_log is None:  # stored before scores: its stage at its last touch
                account.heat_log = add_heat(
                    None, STAGE_WEIGHTS[RANK[account.stage]], to_us(account.last_seen)
                )
            key = shard_key(account.domain, 0)
            old = self._client.get_all(
                [self._shards.document(doc_id(key))], transaction=tx, **self._deadline.read
            )
            current = next((load_account(_data(s)["state"]) for s in old if s.exists), None)
            shard = merge_shards([account, current] if current else [account])
            assert shard is not None  # noqa: S101  # one part at least
            tx.set(
                self._shards.document(doc_id(key)),
                {"domain": account.domain, "key": key, "state": dump_rollup(shard)},
            )
            tx.set(ref, {"domain": account.domain})
            return account.domain

        domain = run_transaction(
            self._client,
            convert,
            deadline=self._deadline,
            max_attempts=self._max_attempts,
            rounds=CONTENTION_ROUNDS,
        )
        if domain is not None:
            self._refresh_listing(domain, replace=True)

    def _load_shards(self, tx: firestore.Transaction, keys: set[str]) -> dict[str, AccountRollup]:
        refs = [self._shards.document(doc_id(k)) for k in sorted(keys)]
        found: dict[str, AccountRollup] = {}
        for snap in (
            self._client.get_all(refs, transaction=tx, **self._deadline.read) if refs else []
        ):
            if snap.exists:
                data = _data(snap)
                found[data["key"]] = load_account(data["state"])
        return found

    def _merged(self, domains: Sequence[str]) -> dict[str, AccountRollup]:
        """Accounts merged from their shards (one batched read)."""
        refs = [
            self._shards.document(doc_id(shard_key(d, k))) for d in domains for k in range(SHARDS)
        ]
        parts: dict[str, list[AccountRollup]] = {}
        for snap in self._client.get_all(refs, **self._deadline.read) if refs else []:
            if snap.exists:
                data = _data(snap)
                parts.setdefault(data["domain"], []).append(load_account(data["state"]))
        merged = {d: merge_shards(p) for d, p in parts.items()}
        return {d: a for d, a in merged.items() if a is not None}

    def _refresh_listing(self, domain: str, *, replace: bool = False) -> None:
        """The listing document from the merged shards: with `Maximum` transforms (blind, never
        contended, never lowered by a slower writer), or replaced outright (erasure)."""
        account = self._merged([domain]).get(domain)
        ref = self._accounts.document(doc_id(domain))
        if account is None:
            ref.delete(**self._deadline.write)
            return
        rank, heat, last, seen = listing_fields(account)
        us, seen_us = to_us(last), to_us(seen)
        if replace:
            ref.set(
                {
                    "domain": domain,
                    "stage_rank": rank,
                    "heat_log": heat,
                    "last_recorded_us": us,
                    "last_seen_us": seen_us,
                },
                **self._deadline.write,
            )
            return
        fields: dict[str, Any] = {
            "domain": domain,
            "stage_rank": firestore.Maximum(rank),
            "last_recorded_us": firestore.Maximum(us),
            "last_seen_us": firestore.Maximum(seen_us),
        }
        if heat is not None:
            fields["heat_log"] = firestore.Maximum(heat)
        ref.set(fields, merge=True, **self._deadline.write)

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
        for snap in (
            self._client.get_all(refs, transaction=tx, **self._deadline.read) if refs else []
        ):
            if snap.exists:
                rollup = load(_data(snap)["state"])
                found[getattr(rollup, "email", None) or rollup.domain] = rollup
        return found

    @unavailable_when_transient()
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
            links = self._visitors.where(filter=firestore.FieldFilter("email", "==", email))
            for link in links.stream(**self._deadline.read):
                data = _data(link)
                docs += anonymous_events_of(
                    self._events, data["visitor_id"], deadline=self._deadline
                )
                domains |= {data.get("domain")} - {None}
            for domain in sorted(domains):
                self._rebuild_account(domain, without=email)
            self._people.document(doc_id(email)).delete(**self._deadline.write)
            for start in range(0, len(docs), 200):
                batch = self._client.batch()
                for snap in docs[start : start + 200]:
                    batch.delete(snap.reference)
                batch.commit(**self._deadline.write)
            erased += [_data(d)["id"] for d in docs]
            for link in links.stream(**self._deadline.read):
                link.reference.delete(
                    **self._deadline.write
                )  # after its events: a retry still finds them
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
        kept = [e for e in map(event_from_doc, map(_data, snaps)) if e.person.email != without]
        # The anonymous events of visitors linked to the account's other people count too.
        for visitor in linked_visitors(self._visitors, "domain", domain, deadline=self._deadline):
            link = _data(self._visitors.document(doc_id(visitor)).get(**self._deadline.read))
            if link.get("email") in (None, without):
                continue
            kept += [
                attributed(event_from_doc(_data(s)), email=link["email"], domain=domain)
                for s in anonymous_events_of(self._events, visitor, deadline=self._deadline)
            ]
        kept.sort(key=lambda e: (e.recorded_at, e.id))
        groups: dict[int, list[Event]] = {}
        for event in kept:
            groups.setdefault(shard_of(event.person.email), []).append(event)
        batch = self._client.batch()
        for k in range(SHARDS):
            shard = rebuild_account(groups.get(k, []))
            ref = self._shards.document(doc_id(shard_key(domain, k)))
            if shard is None:
                batch.delete(ref)
            else:
                cap_pages(shard)
                key = shard_key(domain, k)
                batch.set(ref, {"domain": domain, "key": key, "state": dump_rollup(shard)})
        batch.commit(**self._deadline.write)
        self._refresh_listing(domain, replace=True)

    # --- reads -------------------------------------------------------------------------------

    @unavailable_when_transient()
    def read_stream(self, query: StreamQuery) -> StreamPage:
        horizon = self._clock() - self._settle

        def read(q: StreamQuery, visitors: list[str] | None) -> StreamPage:
            return read_stream(
                q, events=self._events, run=self._run, horizon=horizon, visitors=visitors
            )

        # A person's or account's events include the anonymous ones linked by a visitor id.
        if query.email is not None:
            linked = linked_visitors(self._visitors, "email", query.email, deadline=self._deadline)
        elif query.domain is not None:
            linked = linked_visitors(
                self._visitors, "domain", query.domain, deadline=self._deadline
            )
        else:
            linked = []
        return merged_read(query, linked, read) if linked else read(query, None)

    @unavailable_when_transient()
    def get_account(self, domain: str) -> AccountRollup | None:
        return self._merged([domain]).get(domain)

    @unavailable_when_transient()
    def get_person(self, email: str) -> PersonRollup | None:
        snap = self._people.document(doc_id(email)).get(**self._deadline.read)
        return load_person(_data(snap)["state"]) if snap.exists else None

    @unavailable_when_transient()
    def list_accounts(self, query: AccountQuery) -> tuple[list[AccountRollup], bool]:
        """Over the listing documents (backends/gcp/account_shards.py). `recent`: a range on
        last_recorded_us, so min_score is applied while scanning; `score`: a range on heat_log,
        so an old active_since is applied while scanning (the API sends the epoch unless a
        window is asked for); seen_since (last_seen_us) is applied while scanning in either.
        The accounts of the page are then merged from their shards."""
        score = query.sort == "score"
        key = "heat_log" if score else "last_recorded_us"
        since_us = to_us(query.active_since)
        q: Any = self._accounts
        equality: tuple[str, ...] = ()
        if query.stages:
            ranks = [RANK[stage] for stage in query.stages]
            q = q.where(filter=firestore.FieldFilter("stage_rank", "in", ranks))
            equality = ("stage_rank",)
        if score and query.min_heat_log is not None:
            q = q.where(filter=firestore.FieldFilter("heat_log", ">=", query.min_heat_log))
        if not score:
            q = q.where(filter=firestore.FieldFilter(key, ">=", since_us))
        q = q.order_by(key, direction=firestore.Query.DESCENDING).order_by(
            "domain", direction=firestore.Query.DESCENDING
        )
        if query.after is not None:
            after_key: Any = query.after.key if score else int(query.after.key)
            q = q.start_after({key: after_key, "domain": query.after.domain})

        seen_us = None if query.seen_since is None else to_us(query.seen_since)

        def wanted(doc: dict[str, Any]) -> bool:
            # A listing written before last_seen_us was kept goes by its last recorded event
            # until its account's next write.
            seen = doc.get("last_seen_us", doc.get("last_recorded_us", 0))
            if seen_us is not None and seen < seen_us:
                return False
            if score:
                return bool(doc.get("last_recorded_us", 0) >= since_us)
            low, heat = query.min_heat_log, doc.get("heat_log")
            return low is None or (heat is not None and heat >= low)

        size = query.limit + 1
        found: list[str] = []
        scanned, page = 0, q.limit(size)
        while True:
            snaps = list(
                self._run(
                    page,
                    "signal_accounts",
                    equality=equality,
                    ranges=(key,),
                    orders=((key, "DESCENDING"), ("domain", "DESCENDING")),
                )
            )
            found += [d["domain"] for d in map(_data, snaps) if wanted(d)]
            scanned += len(snaps)
            if len(found) > query.limit or len(snaps) < size or scanned >= _SCAN_CAP:
                break
            page = q.start_after(snaps[-1]).limit(size)
        merged = self._merged(found[: query.limit])
        accounts = [merged[d] for d in found[: query.limit] if d in merged]
        return accounts, len(found) > query.limit or scanned >= _SCAN_CAP

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
        with unavailable_when_transient():
            yield from query.stream(**self._deadline.read)


def _person_doc(person: PersonRollup) -> dict[str, Any]:
    return {"email": person.email, "domain": person.domain, "state": dump_rollup(person)}


def _data(snap: Any) -> dict[str, Any]:
    data: dict[str, Any] = snap.to_dict() or {}
    return data
