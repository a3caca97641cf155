"""Experiment use cases: a page's traffic allocation (fixed or adaptive), the adaptive shares
kept fresh, the experiment's standing, and ending it with a winner through the gate.

The shares are recomputed lazily, not by a worker: whoever needs them (serving /p/{slug}, or
reading the standing) and finds them older than the recompute interval computes them from the
page's stats and saves them with the time, at the version read; a lost race keeps the other
writer's shares. So there is nothing to schedule or to survive a restart on either backend: the
stored time is the schedule. The stop rule is checked at each recompute.

The arms' counts come in as a function (`counts_of(since)`, control first), so this module
needs no stats store; the variants' content comes in as a function too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from backends.ports import ConflictError, ExperimentStore
from domain.arms import ArmCounts, ArmStanding, StopRule
from domain.experiments import EndedBy, Experiment
from domain.variants import CONTROL, StoredAllocation
from services.pages import GateRefusedError

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "AllocatorSettings",
    "ExperimentEndedError",
    "ExperimentStanding",
    "UnknownArmError",
    "current_experiment",
    "end_experiment",
    "experiment_standing",
    "experiment_start",
    "refresh_experiment",
    "serving_fractions",
]

logger = logging.getLogger(__name__)
# The defaults of EXPERIMENT_STOP_PROBABILITY and EXPERIMENT_STOP_MIN_CONVERSIONS.
DEFAULT_STOP_RULE = StopRule(probability=0.999, min_conversions=100)

# Counts of every arm (control first) from a moment on: the page's stats by variant.
CountsOf = Callable[[datetime], Sequence[ArmCounts]]
# Makes an arm's content the page's next version (through the gate); the control is a no-op.
Promote = Callable[[str], None]


@dataclass(frozen=True)
class AllocatorSettings:
    """The EXPERIMENT_* settings: each arm's floor, how often shares are recomputed, and the
    stop rule, applied only when `auto_stop` is on."""

    min_share: float = 0.1
    recompute_every: timedelta = timedelta(hours=1)
    stop_rule: StopRule = DEFAULT_STOP_RULE
    auto_stop: bool = False


@dataclass(frozen=True)
class ExperimentStanding:
    """A page's experiment as it stands: the stored record (None: never set, so fixed) and
    every arm's figures, each with the share it is served now."""

    experiment: Experiment | None
    arms: tuple[ArmStanding, ...]


class UnknownArmError(Exception):
    """The winner named is neither the control nor one of the page's variants."""

    def __init__(self, arm: str, arms: Sequence[str]) -> None:
        super().__init__(arm)
        self.arm = arm
        self.arms = tuple(arms)


class ExperimentEndedError(Exception):
    """The experiment already ended, with another winner."""

    def __init__(self, experiment: Experiment) -> None:
        super().__init__(experiment.slug)
        self.experiment = experiment


def _applies(stored: Experiment | None, allocation: StoredAllocation | None) -> bool:
    """Whether the stored experiment is the page's current one: an experiment that ended
    before the allocation was last set is over, and the next one starts with that setting."""
    if stored is None:
        return False
    if stored.status != "ended" or allocation is None or stored.ended_at is None:
        return True
    return stored.ended_at >= allocation.updated_at


def current_experiment(
    stored: Experiment | None, allocation: StoredAllocation | None
) -> Experiment | None:
    """The page's current experiment, if the stored one is still it."""
    return stored if _applies(stored, allocation) else None


def experiment_start(
    experiment: Experiment | None, allocation: StoredAllocation | None
) -> datetime | None:
    """From when the arms' counts are taken: the experiment's start, else the allocation's last
    setting; None while the page has neither (no arm but the control was ever served)."""
    if experiment is not None:
        return experiment.started_at
    return allocation.updated_at if allocation is not None else None


def serving_fractions(
    experiment: Experiment | None,
    *,
    allocation: StoredAllocation | None,
    variant_ids: Sequence[str],
) -> list[tuple[str, float]] | None:
    """The fractions an experiment decides, control first then variants by id: every visitor
    to the control once it ended; the adaptive shares (over the variants the page still has,
    equal until first computed). None when the allocation's own fixed shares decide."""
    current = current_experiment(experiment, allocation)
    if current is not None and current.status == "ended":
        return [(CONTROL, 1.0)]
    if allocation is None or allocation.mode != "adaptive":
        return None
    arms = [CONTROL, *sorted(variant_ids)]
    stored = current.shares if current is not None else {}
    kept = {arm: float(stored.get(arm, 0.0)) for arm in arms}
    total = sum(kept.values())
    if total <= 0:
        return [(arm, 1.0 / len(arms)) for arm in arms]
    return [(arm, share / total) for arm, share in kept.items()]


def refresh_experiment(
    *,
    experiments: ExperimentStore,
    slug: str,
    allocation: StoredAllocation | None,
    counts_of: CountsOf,
    settings: AllocatorSettings,
    promote: Promote,
    now: datetime,
    rng: np.random.Generator | None = None,
) -> Experiment | None:
    """The page's current experiment: with an adaptive allocation, started if none runs, its
    shares recomputed first if they are older than the recompute interval, and ended by the
    stop rule if it is on and says so. Nothing is written for a fixed allocation."""
    stored = experiments.get_experiment(slug)
    current = current_experiment(stored, allocation)
    if allocation is None or allocation.mode != "adaptive":
        return current
    try:
        if current is None:
            current = experiments.save_experiment(
                _started(slug, stored, at=allocation.updated_at),
                expected_version=stored.version if stored else 0,
            )
        due = _due(current, settings=settings, now=now)
        if due is None:
            return current
        return _recomputed(
            experiments,
            due,
            counts_of=counts_of,
            settings=settings,
            promote=promote,
            now=now,
            rng=rng,
        )
    except ConflictError:
        # Another reader started or recomputed it first: theirs stands.
        return current_experiment(experiments.get_experiment(slug), allocation)


def _started(slug: str, stored: Experiment | None, *, at: datetime) -> Experiment:
    return Experiment(
        slug=slug,
        version=(stored.version if stored else 0) + 1,
        status="running",
        started_at=at,
    )


def _recomputed(
    experiments: ExperimentStore,
    current: Experiment,
    *,
    counts_of: CountsOf,
    settings: AllocatorSettings,
    promote: Promote,
    now: datetime,
    rng: np.random.Generator | None = None,
) -> Experiment:
    from domain.allocation import winner_by_rule  # numpy, as _standing loads it

    standings = _standing(counts_of(current.started_at), min_share=settings.min_share, rng=rng)
    fresh = replace(
        current,
        version=current.version + 1,
        shares={arm.arm: arm.share for arm in standings},
        recomputed_at=now,
    )
    saved = experiments.save_experiment(fresh, expected_version=current.version)
    rule = settings.stop_rule
    winner = winner_by_rule(standings, rule=rule) if settings.auto_stop else None
    if winner is None:
        return saved
    try:
        return _ended(
            experiments, saved, winner=winner, promote=promote, now=now, ended_by="stop_rule"
        )
    except GateRefusedError:
        # Today's gate refuses the winner's content (the rules changed since it was written):
        # the experiment runs on until a person ends it or edits the variant.
        logger.warning("stop rule picked %s on %s; the gate refused it", winner, current.slug)
        return saved


def _due(
    current: Experiment | None, *, settings: AllocatorSettings, now: datetime
) -> Experiment | None:
    """The experiment if its adaptive shares are due for a recompute, else None."""
    if current is None or current.status != "running":
        return None
    last = current.recomputed_at
    return current if last is None or now - last >= settings.recompute_every else None


def _standing(
    counts: Sequence[ArmCounts], *, min_share: float, rng: np.random.Generator | None
) -> tuple[ArmStanding, ...]:
    """Each arm's standing (domain/allocation.py), drawn from `rng` or a fresh generator.

    numpy is loaded here, at the first experiment read or recompute, not when the service
    starts: it is about 15 MB of each process and 0.1 s of every start (a cold start on
    Cloud Run included), and most processes never serve an adaptive experiment.
    """
    from numpy.random import default_rng

    from domain.allocation import standing

    return standing(counts, min_share=min_share, rng=rng if rng is not None else default_rng())


def experiment_standing(
    *,
    experiment: Experiment | None,
    counts: Sequence[ArmCounts],
    served: Sequence[tuple[str, float]],
    min_share: float,
    rng: np.random.Generator | None = None,
) -> ExperimentStanding:
    """Every arm's figures (visitors, conversions, rate, 95% credible interval, probability of
    being best) and the fraction of new visitors it is `served` now."""
    fractions = dict(served)
    figures = _standing(counts, min_share=min_share, rng=rng)
    return ExperimentStanding(
        experiment=experiment,
        arms=tuple(replace(arm, share=round(fractions.get(arm.arm, 0.0), 4)) for arm in figures),
    )


def end_experiment(
    *,
    experiments: ExperimentStore,
    slug: str,
    allocation: StoredAllocation | None,
    winner: str,
    arms: Sequence[str],
    promote: Promote,
    now: datetime,
) -> Experiment:
    """End the page's experiment with `winner`: its content becomes the page's next version
    (through the gate; history keeps the one before), then every visitor gets the page. Ending
    again with the same winner changes nothing; a page with no experiment gets one, ended.

    Raises: UnknownArmError, ExperimentEndedError (ended with another winner), and what
    `promote` raises (GateRefusedError: nothing changed).
    """
    if winner not in arms:
        raise UnknownArmError(winner, arms)
    stored = experiments.get_experiment(slug)
    current = current_experiment(stored, allocation)
    if current is None:
        start = experiment_start(None, allocation) or now
        current = experiments.save_experiment(
            _started(slug, stored, at=start), expected_version=stored.version if stored else 0
        )
    if current.status == "ended":
        if current.winner == winner:
            return current
        raise ExperimentEndedError(current)
    return _ended(experiments, current, winner=winner, promote=promote, now=now, ended_by="api")


def _ended(
    experiments: ExperimentStore,
    current: Experiment,
    *,
    winner: str,
    promote: Promote,
    now: datetime,
    ended_by: EndedBy,
) -> Experiment:
    # The page first: if the gate refuses the winner, the experiment keeps running. A crash
    # between the two writes leaves it running with the page already changed; ending again
    # promotes nothing new (the page holds that content) and records the end.
    promote(winner)
    ended = replace(
        current,
        version=current.version + 1,
        status="ended",
        winner=winner,
        ended_at=now,
        ended_by=ended_by,
    )
    return experiments.save_experiment(ended, expected_version=current.version)
