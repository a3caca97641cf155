"""Firestore composite indexes and TTL policies the adapters' queries need, as data.

Terraform (`google_firestore_index`, `google_firestore_field` ttl_config) is generated from these
lists, so a query added to an adapter adds its index here. The emulator enforces none of them.
Collection names are the unprefixed ones (tests add a prefix of their own).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Order = Literal["ASCENDING", "DESCENDING"]


@dataclass(frozen=True)
class CompositeIndex:
    """One composite index: a collection and its (field, order) list, in query order."""

    collection: str
    fields: tuple[tuple[str, Order], ...]


@dataclass(frozen=True)
class TtlPolicy:
    """Documents of `collection` are deleted by Firestore some time after `field` passes."""

    collection: str
    field: str


FIRESTORE_INDEXES: list[CompositeIndex] = [
    # pages: list newest first, optionally filtered by status (backends/gcp/pages.py)
    CompositeIndex("pages", (("updated_at", "DESCENDING"), ("slug", "DESCENDING"))),
    CompositeIndex(
        "pages", (("status", "ASCENDING"), ("updated_at", "DESCENDING"), ("slug", "DESCENDING"))
    ),
    # ... and of one owner (a partner's own list: it sees only its pages)
    CompositeIndex(
        "pages", (("owner", "ASCENDING"), ("updated_at", "DESCENDING"), ("slug", "DESCENDING"))
    ),
    CompositeIndex(
        "pages",
        (
            ("owner", "ASCENDING"),
            ("status", "ASCENDING"),
            ("updated_at", "DESCENDING"),
            ("slug", "DESCENDING"),
        ),
    ),
    # signals: the stream and timelines, at most one equality filter pushed down, both
    # directions (backends/gcp/signal_stream.py); the accounts list by stage
    CompositeIndex("signal_events", (("recorded_at", "ASCENDING"), ("id", "ASCENDING"))),
    CompositeIndex("signal_events", (("recorded_at", "DESCENDING"), ("id", "DESCENDING"))),
    CompositeIndex(
        "signal_events", (("type", "ASCENDING"), ("recorded_at", "ASCENDING"), ("id", "ASCENDING"))
    ),
    CompositeIndex(
        "signal_events",
        (("type", "ASCENDING"), ("recorded_at", "DESCENDING"), ("id", "DESCENDING")),
    ),
    CompositeIndex(
        "signal_events",
        (("account.domain", "ASCENDING"), ("recorded_at", "ASCENDING"), ("id", "ASCENDING")),
    ),
    CompositeIndex(
        "signal_events",
        (("account.domain", "ASCENDING"), ("recorded_at", "DESCENDING"), ("id", "DESCENDING")),
    ),
    CompositeIndex(
        "signal_events",
        (("person.email", "ASCENDING"), ("recorded_at", "ASCENDING"), ("id", "ASCENDING")),
    ),
    CompositeIndex(
        "signal_events",
        (("person.email", "ASCENDING"), ("recorded_at", "DESCENDING"), ("id", "DESCENDING")),
    ),
    # a person's or account's linked visitors' events (`in` on the visitor id: one query)
    CompositeIndex(
        "signal_events",
        (
            ("properties.visitor_id", "ASCENDING"),
            ("recorded_at", "ASCENDING"),
            ("id", "ASCENDING"),
        ),
    ),
    CompositeIndex(
        "signal_events",
        (
            ("properties.visitor_id", "ASCENDING"),
            ("recorded_at", "DESCENDING"),
            ("id", "DESCENDING"),
        ),
    ),
    # the accounts list: most recent or highest score first, optionally by stage, over the
    # listing documents (backends/gcp/account_shards.py: hot accounts)
    *(
        CompositeIndex("signal_accounts", (*head, (key, "DESCENDING"), ("domain", "DESCENDING")))
        for key in ("last_recorded_us", "heat_log")
        for head in ((), (("stage_rank", "ASCENDING"),))
    ),
    # webhook deliveries of one endpoint, newest first, optionally by status
    # (backends/gcp/webhooks.py)
    CompositeIndex(
        "webhook_deliveries",
        (("endpoint_id", "ASCENDING"), ("created_at", "DESCENDING"), ("delivery_id", "DESCENDING")),
    ),
    CompositeIndex(
        "webhook_deliveries",
        (
            ("endpoint_id", "ASCENDING"),
            ("status", "ASCENDING"),
            ("created_at", "DESCENDING"),
            ("delivery_id", "DESCENDING"),
        ),
    ),
]

FIRESTORE_TTL_POLICIES: list[TtlPolicy] = [
    # idempotency keys are kept 24 h; expired ones are ignored on read before TTL removes them
    TtlPolicy("idempotency_keys", "expires_at"),
    # the built-in authorization server (backends/gcp/oauth.py): sign-ins, codes, tokens,
    # rate-limit counters, registered clients unused for 30 days and cached metadata documents
    # end. Readers treat expired documents as absent, so TTL only has to catch up eventually.
    *(
        TtlPolicy(f"oauth_{kind}", "expires_at")
        for kind in ("clients", "pending", "codes", "tokens", "hits")
    ),
]
