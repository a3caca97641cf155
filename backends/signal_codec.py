"""Roll-up state as JSON, shared by the SQLite and Firestore signal stores (no rules here)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic_core import from_json, to_json

from schemas.signals.rollups import AccountRollup, PersonRollup

_TIMES = ("first_seen", "last_seen", "last_recorded_at")


def dump_rollup(rollup: AccountRollup | PersonRollup) -> str:
    """The roll-up as one JSON document (pydantic-core's encoder: several times json's speed)."""
    return to_json(vars(rollup)).decode()


def _times(doc: dict[str, Any]) -> dict[str, Any]:
    for name in _TIMES:
        doc[name] = datetime.fromisoformat(doc[name])
    if doc.get("stage_reached_at"):  # absent from roll-ups stored before scores
        doc["stage_reached_at"] = datetime.fromisoformat(doc["stage_reached_at"])
    return doc


def load_account(text: str) -> AccountRollup:
    """An account roll-up from dump_rollup's JSON."""
    return AccountRollup(**_times(from_json(text)))


def load_person(text: str) -> PersonRollup:
    """A person roll-up from dump_rollup's JSON."""
    return PersonRollup(**_times(from_json(text)))
