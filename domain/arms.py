"""An experiment's arms as the allocator sees them: each arm's tally, its standing, and the
stop rule. Plain values apart from domain/allocation.py's draws, so that what only names them
(settings, stores, answers) never loads numpy."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ArmCounts", "ArmStanding", "StopRule"]


@dataclass(frozen=True)
class ArmCounts:
    """One arm's tally: unique visitors served it, and how many of them converted."""

    arm: str
    visitors: int
    conversions: int


@dataclass(frozen=True)
class ArmStanding:
    """One arm's standing: its tally, observed rate, 95% credible interval of its true rate,
    the probability that it is the best arm, and the share of new visitors it is sent."""

    arm: str
    visitors: int
    conversions: int
    rate: float
    interval: tuple[float, float]
    probability_best: float
    share: float


@dataclass(frozen=True)
class StopRule:
    """Ends an experiment when one arm's probability of being best reaches `probability` and
    every arm has at least `min_conversions` conversions."""

    probability: float
    min_conversions: int
