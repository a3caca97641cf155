"""A page's experiment as stored: how its traffic is allocated, the adaptive shares last
computed and when, and how it ended. Pure values: the ExperimentStore port keeps them and
services/experiments.py changes them; the arms' counts come from the page's stats.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

Allocation = Literal["fixed", "adaptive"]
ALLOCATIONS: tuple[Allocation, ...] = ("fixed", "adaptive")
ExperimentStatus = Literal["running", "ended"]
# Who ended it: a Content API call naming the winner, or the stop rule.
EndedBy = Literal["api", "stop_rule"]
CONTROL = "control"  # the arm that is the page itself (its current version)


@dataclass(frozen=True)
class Experiment:
    """A page's experiment. `version` starts at 1 and grows by one per write (the store's
    optimistic concurrency). `shares` (arm -> share of new visitors) are the adaptive
    allocator's, as computed at `recomputed_at`; a fixed allocation's shares are the variants'
    own. An ended experiment keeps its `winner`, and sends every visitor the page itself.
    """

    slug: str
    version: int
    allocation: Allocation
    status: ExperimentStatus
    started_at: datetime
    shares: Mapping[str, float] = field(default_factory=dict)
    recomputed_at: datetime | None = None
    winner: str | None = None
    ended_at: datetime | None = None
    ended_by: EndedBy | None = None
