"""Roll-up state as JSON, shared by the SQLite and Firestore signal stores (no rules here)."""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime
from typing import Any

from schemas.signal_rollups import AccountRollup, PersonRollup

_TIMES = ("first_seen", "last_seen", "last_recorded_at")


def dump_rollup(rollup: AccountRollup | PersonRollup) -> str:
    """The roll-up as one JSON document."""
    doc = asdict(rollup)
    for name in _TIMES:
        doc[name] = doc[name].isoformat()
    return json.dumps(doc, separators=(",", ":"))


def _times(doc: dict[str, Any]) -> dict[str, Any]:
    for name in _TIMES:
        doc[name] = datetime.fromisoformat(doc[name])
    return doc


def load_account(text: str) -> AccountRollup:
    """An account roll-up from dump_rollup's JSON."""
    return AccountRollup(**_times(json.loads(text)))


def load_person(text: str) -> PersonRollup:
    """A person roll-up from dump_rollup's JSON."""
    return PersonRollup(**_times(json.loads(text)))
