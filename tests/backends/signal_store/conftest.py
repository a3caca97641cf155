"""The signal store contract suite (both backends): its fixtures and event builders."""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from backends.clock import utc_now
from backends.embedded.signals import SqliteSignalStore
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import SignalStore, StreamQuery
from schemas.signals.events import EVENT_TYPES, NewEvent, Position, normalize_event

EPOCH = Position(recorded_at=datetime(2000, 1, 1, tzinfo=UTC))
StoreFactory = Callable[..., SignalStore]


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """A factory, so a test can ask Firestore for a settle window of its own."""
    if request.param == "sqlite":
        db = SqliteDatabase(tmp_path / "signals.sqlite3")
        yield lambda clock=utc_now, **_: SqliteSignalStore(db, clock=clock)
        return
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.firestore import firestore_client
    from backends.gcp.signals import FirestoreSignalStore

    client = firestore_client(project="demo-frontdoor")
    prefix = f"t{uuid.uuid4().hex[:10]}_"

    def build(
        settle: timedelta = timedelta(0), clock: Callable[[], datetime] = utc_now, **_: Any
    ) -> SignalStore:
        return FirestoreSignalStore(
            client, prefix=prefix, settle=settle, clock=clock, max_attempts=40
        )

    yield build


@pytest.fixture
def store(make_store: StoreFactory) -> SignalStore:
    return make_store()


def event(
    row_id: str,
    *,
    type: str = "article_read",  # the field's own name
    email: str | None = "ada@acme.com",
    domain: str | None = None,
    path: str | None = "/blog/one",
    occurred_at: datetime | None = None,
    source: str = "crm",
    **extra: Any,
) -> NewEvent:
    now = datetime.now(UTC)
    raw = {
        "source": source,
        "row_id": row_id,
        "type": type,
        "occurred_at": (occurred_at or now).isoformat(),
        "person": {"email": email, "name": "Ada"} if email else {},
        "account": {"domain": domain} if domain else {},
        "page": {"path": path, "title": "Field notes"} if path else {},
        **extra,
    }
    result = normalize_event(raw, now=now)
    assert isinstance(result, NewEvent), result
    return result


def walk(
    store: SignalStore, after: Position = EPOCH, *, limit: int = 4
) -> tuple[list[str], Position]:
    """Follow the stream forward until has_more is false; every id seen, in stream order."""
    seen: list[str] = []
    while True:
        page = store.read_stream(StreamQuery(after=after, forward=True, limit=limit))
        assert [e.recorded_at for e in page.events] == sorted(
            (e.recorded_at for e in page.events), reverse=True
        )
        seen += [e.id for e in reversed(page.events)]
        after = page.last or after
        if not page.has_more:
            return seen, after


def random_events(rng: random.Random, count: int) -> list[NewEvent]:
    """Events over a few accounts, people (one on free mail), anonymous visits and pages."""
    emails = [f"p{i}@{d}" for i, d in enumerate(["acme.com", "beta.example", "acme.com"] * 9)]
    emails.append("ada@gmail.com")
    base = datetime.now(UTC) - timedelta(days=3)
    out = []
    for i in range(count):
        email = rng.choice([*emails, None])
        # mostly opens (aware), so the 3-pages rule decides many stages
        kind = "email_open" if rng.random() < 0.9 else rng.choice(EVENT_TYPES)
        out.append(
            event(
                f"r{i}",
                type="page_view" if kind == "identify" and email is None else kind,
                email=email,
                domain=rng.choice(["acme.com", "gamma.example", None]) if email is None else None,
                path=rng.choice(["/a", "/b", "/c", "/d", "/blog/e", None, None, None]),
                occurred_at=base + timedelta(minutes=rng.randrange(0, 4000)),
                source=rng.choice(["crm", "site", "mail"]),
            )
        )
    return out
