"""Which arm of a page's experiment a visitor of /p/{slug} is served, and how it stays the same.

Stickiness is a first-party cookie holding only a random assignment id (`fd_aid`, 128 random
bits, HttpOnly, SameSite=Lax, Path=/p/{slug}: one per page, sent to that page alone): the arm is
a hash of that id and the slug against the page's current shares (domain/variants.py
`pick_arm`), so the cookie says nothing about the visitor, links no two pages, and names no
arm. It is set only when a page has an experiment running, and never for a visitor who sends
Global Privacy Control (`Sec-GPC: 1`) or Do Not Track (`DNT: 1`), nor, where consent is
required (BEACON_CONSENT=required), by the server at all: there the beacon sets it when the
visitor says yes. Those visitors get the control.

Responses of such pages differ by visitor, so they are `Cache-Control: private` (no shared
cache, Cloud CDN included, keeps them) and vary on Cookie, Sec-GPC and DNT.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from backends.ports import StoredAllocation, StoredVariant, VariantStore
from domain.variants import CONTROL, pick_arm
from services.variants import current_shares

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
_ASSIGNMENT_ID = re.compile(r"^[A-Za-z0-9_-]{22}$")  # secrets.token_urlsafe(16)
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
    """The arm served, and the assignment id to set as a cookie (None: set nothing)."""

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
        freshness: float = 1.0,
        monotonic: Callable[[], float] = time.monotonic,
        capacity: int = 4096,
        split: Split | None = None,
    ) -> None:
        self._variants = variants
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
        shares = self._split(slug, allocation, set(variants))
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
    """The arm this visitor gets, and whether to give them an assignment id.

    GPC or DNT: the control, nothing set. A valid assignment id: its arm. Otherwise, where
    consent is required, the control with nothing set (the beacon sets the id on a yes);
    elsewhere a new random id, set as a cookie, and its arm.
    """
    if opted_out:
        return Assignment(CONTROL)
    if cookie is not None and _ASSIGNMENT_ID.match(cookie):
        return Assignment(pick_arm(cookie, slug=slug, shares=experiment.shares))
    if consent_required:
        return Assignment(CONTROL)
    new_id = secrets.token_urlsafe(16)
    return Assignment(pick_arm(new_id, slug=slug, shares=experiment.shares), new_id)


def assignment_cookie(assignment_id: str, *, slug: str, secure: bool) -> str:
    """The Set-Cookie value of a new assignment id for the page of `slug`."""
    parts = [
        f"{ASSIGNMENT_COOKIE}={assignment_id}",
        f"Max-Age={ASSIGNMENT_MAX_AGE}",
        f"Path=/p/{slug}",
        "SameSite=Lax",
        "HttpOnly",
    ]
    if secure:
        parts.append("Secure")
    return "; ".join(parts)
