"""A page's experiment as stored: when it started, the adaptive shares last computed and
when, and how it ended. Pure values: the ExperimentStore port keeps them and
services/experiments.py changes them. Whether a page's traffic is split fixed or adaptive is
its allocation (domain/variants.py); the arms' counts come from the page's stats.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

ExperimentStatus = Literal["running", "ended"]
# Who ended it: a Content API call naming the winner, or the stop rule.
EndedBy = Literal["api", "stop_rule"]


@dataclass(frozen=True)
class Experiment:
    """A page's experiment. `version` starts at 1 and grows by one per write (the store's
    optimistic concurrency). `shares` (arm -> fraction of new visitors) are the adaptive
    allocator's, as computed at `recomputed_at` (a fixed allocation's shares are its own). An
    ended experiment keeps its `winner`, and sends every visitor the page itself until the
    page's allocation is set again.
    """

    slug: str
    version: int
    status: ExperimentStatus
    started_at: datetime
    shares: Mapping[str, float] = field(default_factory=dict)
    recomputed_at: datetime | None = None
    winner: str | None = None
    ended_at: datetime | None = None
    ended_by: EndedBy | None = None
