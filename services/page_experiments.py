"""A page's experiment as the Content API and /p/{slug} use it: the standing of a visible page,
ending it with a winner, and the shares a visitor is split by. Keyword-only functions over the
page, variant and experiment stores; the rules themselves are services/experiments.py's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from backends.ports import (
    ExperimentStore,
    SignalStore,
    StoredAllocation,
    VariantStore,
)
from domain.arms import ArmCounts
from domain.experiments import Experiment
from domain.variants import CONTROL
from schemas.signals.page_funnel import day_number, read_funnel
from services.experiments import (
    AllocatorSettings,
    ExperimentStanding,
    end_experiment,
    experiment_standing,
    experiment_start,
    refresh_experiment,
)
from services.page_writes import promote_content
from services.pages import Editor, Pages, find_page
from services.variants import current_shares, started_shares

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "ExperimentPorts",
    "PageExperiment",
    "end_page_experiment",
    "page_experiment",
    "serving_split",
    "stats_tally",
]

# What a page's history shows as the key id of a version the stop rule wrote.
STOP_RULE_KEY_ID = "stop-rule"
# Unique visitors and conversions per arm of a page from a moment on (its stats by variant).
ArmTally = Callable[[str, Sequence[str], datetime], Sequence[ArmCounts]]


@dataclass(frozen=True)
class PageExperiment:
    """A page's allocation, its experiment (None: never run) and each arm's standing."""

    allocation: StoredAllocation | None
    standing: ExperimentStanding
    counted_from: datetime | None


def _arms(variants: VariantStore, slug: str) -> list[str]:
    return [CONTROL, *sorted(v.variant_id for v in variants.list_variants(slug))]


def _promoter(
    *, pages: Pages, variants: VariantStore, slug: str, editor: Editor | None
) -> Callable[[str], None]:
    """Makes an arm's content the page's next version, written by `editor` (None: the stop
    rule, as the page's owner with key id `stop-rule`)."""

    def promote(arm: str) -> None:
        if arm == CONTROL:
            return  # the page already holds the control's content
        variant = variants.get_variant(slug, arm)
        page = pages.store.get_page(slug)
        if variant is None or page is None:
            return  # deleted since: nothing to promote
        writer = editor or Editor(partner=page.owner, key_id=STOP_RULE_KEY_ID, admin=True)
        promote_content(pages, slug=slug, content=variant.page_input, editor=writer)

    return promote


@dataclass(frozen=True)
class ExperimentPorts:
    """The stores and settings every experiment use case needs, bundled for the callers."""

    pages: Pages
    variants: VariantStore
    experiments: ExperimentStore
    settings: AllocatorSettings
    tally: ArmTally


def _refreshed(
    ports: ExperimentPorts, *, slug: str, now: datetime, rng: np.random.Generator | None = None
) -> tuple[StoredAllocation | None, Experiment | None, list[str]]:
    allocation = ports.variants.get_allocation(slug)
    arms = _arms(ports.variants, slug)
    experiment = _refresh(ports, slug=slug, allocation=allocation, arms=arms, now=now, rng=rng)
    return allocation, experiment, arms


def _refresh(
    ports: ExperimentPorts,
    *,
    slug: str,
    allocation: StoredAllocation | None,
    arms: list[str],
    now: datetime,
    rng: np.random.Generator | None = None,
) -> Experiment | None:
    """The page's experiment, its adaptive shares recomputed first when due (and the stop rule
    applied when on, writing the winner as the page's owner)."""
    return refresh_experiment(
        experiments=ports.experiments,
        slug=slug,
        allocation=allocation,
        counts_of=lambda since: ports.tally(slug, arms, since),
        settings=ports.settings,
        promote=_promoter(pages=ports.pages, variants=ports.variants, slug=slug, editor=None),
        now=now,
        rng=rng,
    )


def page_experiment(
    ports: ExperimentPorts,
    *,
    slug: str,
    editor: Editor,
    now: datetime,
    rng: np.random.Generator | None = None,
) -> PageExperiment:
    """A visible page's allocation, experiment and each arm's standing (the shares recomputed
    first when due). Raises: NotFoundError."""
    find_page(pages=ports.pages.store, slug=slug, editor=editor)
    allocation, experiment, arms = _refreshed(ports, slug=slug, now=now, rng=rng)
    since = experiment_start(experiment, allocation)
    counts = (
        ports.tally(slug, arms, since) if since is not None else [ArmCounts(a, 0, 0) for a in arms]
    )
    # What /p/{slug} serves now: a variant waiting for its start gets no share yet.
    served = started_shares(
        current_shares(allocation=allocation, variant_ids=set(arms[1:]), experiment=experiment),
        variants=ports.variants.list_variants(slug),
        now=now,
    )
    standing = experiment_standing(
        experiment=experiment,
        counts=counts,
        served=served,
        min_share=ports.settings.min_share,
        rng=rng,
    )
    return PageExperiment(allocation=allocation, standing=standing, counted_from=since)


def end_page_experiment(
    ports: ExperimentPorts,
    *,
    slug: str,
    winner: str,
    editor: Editor,
    now: datetime,
) -> Experiment:
    """End a visible page's experiment with `winner` (the control or a variant id): the
    winner's content becomes the page's next version through the gate.

    Raises: NotFoundError, UnknownArmError, ExperimentEndedError, GateRefusedError, BusyError.
    """
    find_page(pages=ports.pages.store, slug=slug, editor=editor)
    return end_experiment(
        experiments=ports.experiments,
        slug=slug,
        allocation=ports.variants.get_allocation(slug),
        winner=winner,
        arms=_arms(ports.variants, slug),
        promote=_promoter(pages=ports.pages, variants=ports.variants, slug=slug, editor=editor),
        now=now,
    )


def serving_split(
    ports: ExperimentPorts,
    *,
    slug: str,
    allocation: StoredAllocation,
    variant_ids: set[str],
    now: datetime,
    rng: np.random.Generator | None = None,
) -> list[tuple[str, float]]:
    """The fractions /p/{slug} splits new visitors by, control first: the allocation's, the
    adaptive shares recomputed first when due (and the stop rule applied when on, writing the
    winner as the page's owner, key id `stop-rule`)."""
    arms = [CONTROL, *sorted(variant_ids)]
    experiment = _refresh(ports, slug=slug, allocation=allocation, arms=arms, now=now, rng=rng)
    return current_shares(allocation=allocation, variant_ids=variant_ids, experiment=experiment)


def stats_tally(signals: SignalStore, *, clock: Callable[[], datetime]) -> ArmTally:
    """Each arm's counts from the page's stats by variant (the roll-ups kept as events are
    stored), from the UTC day of `since` to today: unique visitors, and lead forms as
    conversions, at most one per visitor (a visitor who sends two forms converted once)."""

    def tally(slug: str, arms: Sequence[str], since: datetime) -> list[ArmCounts]:
        first, last = day_number(since.date()), day_number(clock().date())
        rows = signals.read_page_funnel(
            slug, first_day=first, last_day=max(first, last), dimension="variant"
        )
        _, by_variant = read_funnel(rows, first=first, last=max(first, last), by="variant")
        figures = dict(by_variant)
        counts = []
        for arm in arms:
            found = figures.get(arm)
            visitors = found.visitors if found is not None else 0
            leads = min(found.leads, visitors) if found is not None else 0
            counts.append(ArmCounts(arm, visitors, leads))
        return counts

    return tally
