"""Sticky erasure: the events of an erased address are refused until an operator lifts it.

Erasing a person holds their address in the suppression list (a keyed hash, never the
address: backends/ports/suppressions.py). The Signal API's ingest refuses a held address's
events by name (`person.email` / `suppressed`); the ingest worker drops any that reach it
(events queued before the erasure, and the site's own forms, whose answer must not tell a
stranger that an address was erased). Lifting is the operator CLI's, logged by the digest.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from backends.ports import SuppressionStore
from schemas.errors import Issue
from schemas.signals.events import NewEvent

__all__ = ["SUPPRESSED", "held_events", "lift_suppression", "without_suppressed"]

logger = logging.getLogger(__name__)

SUPPRESSED = Issue(
    field="person.email",
    code="suppressed",
    message="this address was erased; its events are refused until an operator lifts that",
)


def held_events(events: Sequence[NewEvent], *, suppressions: SuppressionStore) -> set[int]:
    """The indexes of `events` whose person's address is held (one lookup for all)."""
    emails = {e.person.email for e in events if e.person.email}
    held = suppressions.suppressed(emails) if emails else set()
    return {i for i, e in enumerate(events) if e.person.email in held}


def without_suppressed(
    events: Sequence[NewEvent], *, suppressions: SuppressionStore
) -> list[NewEvent]:
    """`events` less those of held addresses (the ingest worker's last check), logged by count."""
    held = held_events(events, suppressions=suppressions)
    if held:
        logger.warning(
            "dropped %d events of erased addresses (suppressed)",
            len(held),
            extra={"suppressed_events": len(held)},
        )
    return [e for i, e in enumerate(events) if i not in held]


def lift_suppression(*, suppressions: SuppressionStore, email: str, digest: str) -> bool:
    """Accept this address's events again; whether it was held. Logged by `digest`."""
    lifted = suppressions.lift(email)
    logger.warning(
        "suppression of %s %s by an operator",
        digest[:16],
        "lifted" if lifted else "not found (nothing to lift)",
        extra={"person_digest": digest[:16], "lifted": lifted},
    )
    return lifted
