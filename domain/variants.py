"""A page's variants and its traffic allocation as stored, and the pure choice of a visitor's arm.

Pure values and arithmetic: the ports (backends/ports/variants.py) store the records,
services/variants.py decides who may change them, api/rest/pages.py serves the chosen arm.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

# The page's own content is the arm named "control"; a variant's id is never "control".
CONTROL = "control"
MAX_VARIANTS = 4  # besides the control
# The shape of a variant id (JSON Schema regexes have no look-ahead: "control" is refused apart).
VARIANT_ID_PATTERN = r"^[a-z0-9][a-z0-9-]{0,31}$"
# fixed: the shares as set; adaptive: Thompson sampling over the arms' conversions
# (services/experiments.py), each arm keeping a floor while the experiment runs.
AllocationMode = Literal["fixed", "adaptive"]
ALLOCATION_MODES: tuple[AllocationMode, ...] = ("fixed", "adaptive")


@dataclass(frozen=True)
class StoredVariant:
    """One variant of a page: a whole page content (a SitePageInput as JSON), versioned.

    `version` starts at 1 and grows by one per write, as a page's does. `start_at`: before it
    the variant gets no traffic (services/variants.py `started_shares`); None: no wait.
    """

    slug: str
    variant_id: str
    version: int
    page_input: Mapping[str, Any]
    created_at: datetime
    updated_at: datetime
    gate_ruleset: str = ""
    editor: str = ""
    editor_key_id: str = ""
    start_at: datetime | None = None


@dataclass(frozen=True)
class StoredAllocation:
    """How a page's traffic is split: `shares` in percent by arm (the control and variant ids),
    summing to 100. `version` grows by one per write."""

    slug: str
    version: int
    mode: AllocationMode
    shares: Mapping[str, float]
    updated_at: datetime
    editor: str = ""
    editor_key_id: str = ""


def pick_arm(assignment_id: str, *, slug: str, shares: Sequence[tuple[str, float]]) -> str:
    """The arm a visitor with this assignment id gets on this page, for these shares.

    The id and slug hash to a point in [0, 1) that falls into one arm's stretch of the
    cumulative shares (fractions, in the order given): the same visitor gets the same arm on
    every visit while the shares stand, and one id says nothing about the visitor's arm on
    another page. Shares that sum to less than 1 leave the rest to the control.
    """
    digest = hashlib.sha256(f"{slug}\x00{assignment_id}".encode()).digest()
    point = int.from_bytes(digest[:8], "big") / 2**64
    reached = 0.0
    for arm, share in shares:
        reached += share
        if point < reached:
            return arm
    return CONTROL
