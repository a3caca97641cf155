"""A Firestore account roll-up kept as SHARDS shard documents, so a hot account (many people of
one company at once) never serializes on one document nor grows one past Firestore's 1 MiB.

An event of a person goes to the shard its email hashes to (so a person's own rules, such as
3 distinct pages, hold within one shard, and `people` never repeats across shards); an event
naming an account but no person goes to shard 0 (the anonymous visitor). Each shard is an
AccountRollup of its own events, folded in the transaction that stores them; reading an account
merges its shards (`merge_shards`). The listing document `signal_accounts/{domain}` holds only
what the accounts list sorts and filters on (stage_rank, heat_log, last_recorded_us and
last_seen_us, when the latest touch happened), written
after the commit with Firestore's `Maximum` transform, which never contends and never goes back.

Limits respected: at most ~1 write a second per shard is sustained by Firestore per document,
so an account takes about SHARDS writes a second; a shard keeps at most MAX_SHARD_PAGES
distinct pages (further pages are counted under OTHER_PAGES, so totals stay exact), and its
people briefs (about 150 bytes each) allow some 3,000 people per shard, ~100,000 per account,
before a shard nears 1 MiB.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from schemas.signals.rollups import RANK, STAGES, AccountRollup
from schemas.signals.scores import DAYS_KEPT

SHARDS = 32
MAX_SHARD_PAGES = 3000
OTHER_PAGES = "(other pages)"


def shard_of(email: str | None) -> int:
    """The shard an event goes to: by its person's email, anonymous ones to 0."""
    if not email:
        return 0
    return int.from_bytes(hashlib.sha256(email.encode()).digest()[:4], "big") % SHARDS


def shard_key(domain: str, shard: int) -> str:
    return f"{domain}~{shard}"


def cap_pages(shard: AccountRollup) -> None:
    """Fold pages past MAX_SHARD_PAGES (the least read) into OTHER_PAGES."""
    if len(shard.pages) <= MAX_SHARD_PAGES:
        return
    keep = sorted(shard.pages, key=lambda p: (-shard.pages[p], p))[: MAX_SHARD_PAGES - 1]
    other = sum(n for p, n in shard.pages.items() if p not in keep)
    shard.pages = {p: shard.pages[p] for p in keep}
    shard.pages[OTHER_PAGES] = shard.pages.get(OTHER_PAGES, 0) + other


def merge_shards(shards: Iterable[AccountRollup]) -> AccountRollup | None:
    """One account from its shards (in shard order); None if it has none."""
    parts = list(shards)
    if not parts:
        return None
    top = max(RANK[p.stage] for p in parts)
    named = [p for p in sorted(parts, key=lambda p: p.last_recorded_at) if p.name]
    reached = [p.stage_reached_at for p in parts if RANK[p.stage] == top and p.stage_reached_at]
    anon = next((p for p in parts if p.anon_stage is not None), None)
    # The evidence of the shard that reached the top stage first, and of the latest touch.
    first_top = min(
        (p for p in parts if RANK[p.stage] == top and p.stage_reached_at),
        key=lambda p: (p.stage_reached_at, _recorded(p.stage_event)),
        default=None,
    )
    latest = max(parts, key=lambda p: (p.last_seen, _recorded(p.last_event)))
    return AccountRollup(
        domain=parts[0].domain,
        name=named[-1].name if named else None,
        stage=STAGES[top],
        first_seen=min(p.first_seen for p in parts),
        last_seen=max(p.last_seen for p in parts),
        last_recorded_at=max(p.last_recorded_at for p in parts),
        events=sum(p.events for p in parts),
        people=_people(p.people for p in parts),
        pages=_sum(p.pages for p in parts),
        sources=_sum(p.sources for p in parts),
        anon_stage=anon.anon_stage if anon else None,
        anon_pages=list(anon.anon_pages) if anon else [],
        heat_log=merge_heat(p.heat_log for p in parts),
        stage_reached_at=min(reached) if reached else None,
        days=_days(p.days for p in parts),
        stage_event=first_top.stage_event if first_top else None,
        last_event=latest.last_event,
    )


def _recorded(record: dict[str, Any] | None) -> str:
    """When a kept evidence record's event was stored (ISO, UTC: sorts as text); '' if none."""
    return str(record.get("rec", "")) if record else ""


def merge_heat(logs: Iterable[float | None]) -> float | None:
    """log2 of the sum of 2^x over the shards' heat_logs."""
    values = sorted(x for x in logs if x is not None)
    if not values:
        return None
    high = values[-1]
    return high + math.log2(sum(2.0 ** (x - high) for x in values))


def _people(maps: Iterable[dict[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """People briefs; a person in two shards (only after an old account became shard 0)
    counts both shards' events, at the higher stage."""
    out: dict[str, dict[str, Any]] = {}
    for found in maps:
        for email, brief in found.items():
            seen = out.get(email)
            if seen is None:
                out[email] = dict(brief)
                continue
            seen["events"] += brief["events"]
            seen["last_seen"] = max(seen["last_seen"], brief["last_seen"])
            seen["name"] = seen["name"] or brief["name"]
            if RANK[brief["stage"]] > RANK[seen["stage"]]:
                seen["stage"] = brief["stage"]
    return out


def _sum(maps: Iterable[dict[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for found in maps:
        for key, n in found.items():
            out[key] = out.get(key, 0) + n
    return out


def _days(maps: Iterable[dict[str, int]]) -> dict[str, int]:
    days = _sum(maps)
    if days:
        newest = max(int(k) for k in days)
        days = {k: n for k, n in days.items() if int(k) > newest - DAYS_KEPT}
    return days


def listing_fields(account: AccountRollup) -> tuple[int, float | None, datetime, datetime]:
    """What the listing document holds: stage rank, heat_log, last_recorded_at, last_seen."""
    return RANK[account.stage], account.heat_log, account.last_recorded_at, account.last_seen
