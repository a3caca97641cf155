"""Which arm of a page's experiment a visitor of /p/{slug} is served, and how it stays the same.

Stickiness is a first-party cookie (`fd_aid`, HttpOnly, SameSite=Lax, Path=/p/{slug}: one per
page, sent to that page alone) holding a random assignment id (128 random bits) and the arm it
was first served, `{id}.{arm}`: the first arm is a hash of the id and the slug against the
page's shares then (domain/variants.py `pick_arm`), and a returning visitor keeps the recorded
arm while it still has a share, however the shares move since (an adaptive recompute, a new
fixed allocation); only an arm gone (deleted, or given no share) sends them to the hash again,
and the cookie is rewritten with the arm they get. The cookie says nothing about the visitor
and links no two pages; the arm it names is what the page already shows them. It is set only
when a page has an experiment running, and never for a visitor who sends Global Privacy
Control (`Sec-GPC: 1`) or Do Not Track (`DNT: 1`); where consent is required
(BEACON_CONSENT=required) the server never sets a new one: the beacon sets the id when the
visitor says yes, and the server then records the arm in it (not HttpOnly there, so the
beacon can still remove it). Visitors without one get the control.

Responses of such pages differ by visitor, so they are `Cache-Control: private` (no shared
cache, Cloud CDN included, keeps them) and vary on Cookie, Sec-GPC and DNT.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from backends.ports import StoredAllocation, StoredVariant, VariantStore
from domain.variants import CONTROL, pick_arm
from services.variants import current_shares, started_shares

__all__ = [
    "ASSIGNMENT_COOKIE",
    "EXPERIMENT_CACHE_CONTROL",
    "EXPERIMENT_VARY",
    "Assignment",
    "Experiment",
    "ExperimentLookup",
    "Split",
    "assign",
    "assignment_cookie",
]

ASSIGNMENT_COOKIE = "fd_aid"
ASSIGNMENT_MAX_AGE = 180 * 24 * 3600  # 180 days: long enough for an experiment to finish
# secrets.token_urlsafe(16), then the arm recorded (absent in an id the beacon set on a yes).
_ASSIGNMENT = re.compile(r"^([A-Za-z0-9_-]{22})(?:\.([a-z0-9][a-z0-9-]{0,31}))?$")
# Each visitor's own answer: the browser may keep it (and revalidates), no shared cache may.
EXPERIMENT_CACHE_CONTROL = "private, no-cache"
EXPERIMENT_VARY = "Cookie, Sec-GPC, DNT"


@dataclass(frozen=True)
class Experiment:
    """A page's running experiment: the arms' shares (control first) and the variants."""

    shares: tuple[tuple[str, float], ...]
    variants: dict[str, StoredVariant]


@dataclass(frozen=True)
class Assignment:
    """The arm served, and the assignment id to record it under in the cookie (None: set
    nothing)."""

    arm: str
    new_assignment_id: str | None = None


# The shares a page's visitors are split by, given its allocation and variant ids (control
# first): services/page_experiments.py's `serving_split`, which brings an adaptive allocation's
# shares up to date first.
Split = Callable[[str, StoredAllocation, set[str]], list[tuple[str, float]]]


def _allocation_split(
    _slug: str, allocation: StoredAllocation, variant_ids: set[str]
) -> list[tuple[str, float]]:
    return current_shares(allocation=allocation, variant_ids=variant_ids)


class ExperimentLookup:
    """Each page's experiment (or None) through a memo kept `freshness` seconds, as the page
    lookup (api/rest/page_cache.py); `forget_all` empties it after a write in this process."""

    def __init__(
        self,
        variants: VariantStore,
        *,
        clock: Callable[[], datetime],
        freshness: float = 1.0,
        monotonic: Callable[[], float] = time.monotonic,
        capacity: int = 4096,
        split: Split | None = None,
    ) -> None:
        self._variants = variants
        self._clock = clock
        self._split = split or _allocation_split
        self._freshness = freshness
        self._monotonic = monotonic
        self._capacity = capacity
        self._memo: dict[str, tuple[Experiment | None, float]] = {}

    def get(self, slug: str) -> Experiment | None:
        """The page's experiment as read at most `freshness` seconds ago; None when every
        visitor gets the control (no allocation, or no variant with a share)."""
        now = self._monotonic()
        hit = self._memo.get(slug)
        if hit is not None and hit[1] > now:
            return hit[0]
        found = self._read(slug)
        if self._freshness > 0:
            memo = self._memo if len(self._memo) < self._capacity else {}
            memo[slug] = (found, now + self._freshness)
            self._memo = memo
        return found

    def _read(self, slug: str) -> Experiment | None:
        allocation = self._variants.get_allocation(slug)
        if allocation is None:
            return None
        variants = {v.variant_id: v for v in self._variants.list_variants(slug)}
        shares = started_shares(
            self._split(slug, allocation, set(variants)),
            variants=variants.values(),
            now=self._clock(),
        )
        if all(share <= 0 for arm, share in shares if arm != CONTROL):
            return None
        return Experiment(shares=tuple(shares), variants=variants)

    def forget_all(self) -> None:
        """Drop every remembered lookup (after a write through this process)."""
        self._memo = {}


def assign(
    experiment: Experiment,
    *,
    slug: str,
    cookie: str | None,
    opted_out: bool,
    consent_required: bool,
) -> Assignment:
    """The arm this visitor gets, and whether to (re)write their cookie.

    GPC or DNT: the control, nothing set. A valid cookie whose recorded arm still has a share:
    that arm, nothing set. A valid cookie without one (or whose arm is gone): the arm its id
    hashes to under today's shares, recorded in it. Otherwise, where consent is required, the
    control with nothing set (the beacon sets the id on a yes); elsewhere a new random id and
    its arm, set as a cookie.
    """
    if opted_out:
        return Assignment(CONTROL)
    found = _ASSIGNMENT.match(cookie) if cookie is not None else None
    if found is not None:
        assignment_id, recorded = found[1], found[2]
        if recorded is not None and _has_share(experiment, recorded):
            return Assignment(recorded)
        arm = pick_arm(assignment_id, slug=slug, shares=experiment.shares)
        return Assignment(arm, assignment_id)
    if consent_required:
        return Assignment(CONTROL)
    new_id = secrets.token_urlsafe(16)
    return Assignment(pick_arm(new_id, slug=slug, shares=experiment.shares), new_id)


def _has_share(experiment: Experiment, arm: str) -> bool:
    return any(name == arm and share > 0 for name, share in experiment.shares)


def assignment_cookie(
    assignment_id: str, *, arm: str, slug: str, secure: bool, http_only: bool = True
) -> str:
    """The Set-Cookie value recording an assignment id's arm for the page of `slug`
    (`http_only=False` where the beacon set the id and must be able to remove it)."""
    parts = [
        f"{ASSIGNMENT_COOKIE}={assignment_id}.{arm}",
        f"Max-Age={ASSIGNMENT_MAX_AGE}",
        f"Path=/p/{slug}",
        "SameSite=Lax",
    ]
    if http_only:
        parts.append("HttpOnly")
    if secure:
        parts.append("Secure")
    return "; ".join(parts)
