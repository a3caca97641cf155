"""Experiment use cases (content-api.md "Experiments") over the real embedded stores: the
adaptive shares are recomputed lazily at most once per interval, the stop rule ends an
experiment only when it is on, and ending makes the winner's content the page's next version
through the gate."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from api.app import page_unit
from backends.bundle import Backends
from domain.arms import ArmCounts, StopRule
from frontdoor.settings import Settings
from frontdoor.wiring import build_backends
from gate.check import ruleset
from schemas.content.pages import SitePageInput
from services.experiments import (
    AllocatorSettings,
    ExperimentEndedError,
    UnknownArmError,
    end_experiment,
    experiment_standing,
    refresh_experiment,
)
from services.page_writes import promote_content
from services.pages import Editor, GateRefusedError, find_page, list_history, replace_page
from services.variants import create_variant, current_shares, set_allocation
from tests.api.content_client import page_body

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
EDITOR = Editor(partner="acme", key_id="k1")
ARMS = ("control", "b")
SETTINGS = AllocatorSettings(min_share=0.1, recompute_every=timedelta(hours=1))
WITH_STOP = AllocatorSettings(
    min_share=0.1,
    recompute_every=timedelta(hours=1),
    stop_rule=StopRule(probability=0.999, min_conversions=100),
    auto_stop=True,
)
B_CONTENT = page_body(title="A growth audit that pays for itself")


@pytest.fixture
def backends(tmp_path: Path) -> Iterator[Backends]:
    built = build_backends(Settings(data_dir=tmp_path), start_workers=False)
    yield built
    built.close()


class Tally:
    """The arms' counts a test sets, and how often the service asked for them."""

    def __init__(self, *counts: ArmCounts) -> None:
        self.counts: Sequence[ArmCounts] = counts
        self.asked: list[datetime] = []

    def __call__(self, since: datetime) -> Sequence[ArmCounts]:
        self.asked.append(since)
        return self.counts


def stored_page(backends: Backends) -> None:
    """The page and its variant `b`."""
    replace_page(
        pages=backends.pages,
        page=SitePageInput.model_validate(page_body()),
        editor=EDITOR,
        changed=backends.page_changes,
        ruleset=ruleset(backends.catalog.brand),
        clock=lambda: NOW,
    )
    create_variant(
        dataclasses.replace(page_unit(backends), clock=lambda: NOW),
        variants=backends.variants,
        slug="growth-audit",
        payload=B_CONTENT,
        variant_id="b",
        editor=EDITOR,
    )


def allocate(backends: Backends, mode: str, shares: dict[str, float] | None = None) -> Any:
    return set_allocation(
        pages=backends.pages,
        variants=backends.variants,
        slug="growth-audit",
        mode=mode,
        shares=shares or {},
        editor=EDITOR,
        now=NOW,
        changed=backends.page_changes,
    )


def served(backends: Backends, experiment: Any) -> list[tuple[str, float]]:
    return current_shares(
        allocation=backends.variants.get_allocation("growth-audit"),
        variant_ids={"b"},
        experiment=experiment,
    )


def promoter(backends: Backends, contents: dict[str, dict[str, Any]]) -> Any:
    def promote(arm: str) -> None:
        if arm == "control":
            return
        promote_content(
            page_unit(backends), slug="growth-audit", content=contents[arm], editor=EDITOR
        )

    return promote


def refresh(backends: Backends, tally: Tally, *, at: datetime, settings: AllocatorSettings) -> Any:
    return refresh_experiment(
        experiments=backends.experiments,
        slug="growth-audit",
        allocation=backends.variants.get_allocation("growth-audit"),
        counts_of=tally,
        settings=settings,
        promote=promoter(backends, {"b": B_CONTENT}),
        now=at,
        rng=np.random.default_rng(5),
    )


def test_adaptive_shares_are_recomputed_at_most_once_per_interval(backends: Backends) -> None:
    stored_page(backends)
    allocate(backends, "adaptive")
    tally = Tally(ArmCounts("control", 5_000, 100), ArmCounts("b", 5_000, 200))
    before = served(backends, None)

    first = refresh(backends, tally, at=NOW + timedelta(minutes=1), settings=SETTINGS)
    again = refresh(backends, tally, at=NOW + timedelta(minutes=30), settings=SETTINGS)
    later = refresh(backends, tally, at=NOW + timedelta(minutes=61), settings=SETTINGS)

    assert before == [("control", 0.5), ("b", 0.5)]  # equal until first computed
    assert tally.asked == [NOW, NOW]  # counted from the allocation's setting, twice
    assert first.shares == pytest.approx({"control": 0.1, "b": 0.9}, abs=0.001)
    assert again == first
    assert later.recomputed_at == NOW + timedelta(minutes=61)
    (control, control_share), (b, b_share) = served(backends, later)
    assert (control, b) == ("control", "b")
    assert (control_share, b_share) == pytest.approx((0.1, 0.9), abs=0.001)


def test_a_fixed_allocation_serves_the_fixed_shares_and_is_never_recomputed(
    backends: Backends,
) -> None:
    stored_page(backends)
    allocate(backends, "fixed", {"control": 70, "b": 30})
    tally = Tally(ArmCounts("control", 5_000, 100), ArmCounts("b", 5_000, 200))

    after = refresh(backends, tally, at=NOW + timedelta(days=1), settings=WITH_STOP)

    assert after is None
    assert tally.asked == []
    assert served(backends, after) == [("control", 0.7), ("b", 0.3)]


def test_the_stop_rule_ends_the_experiment_and_promotes_the_winner_only_when_on(
    backends: Backends,
) -> None:
    stored_page(backends)
    allocate(backends, "adaptive")
    tally = Tally(ArmCounts("control", 20_000, 400), ArmCounts("b", 20_000, 600))

    off = refresh(backends, tally, at=NOW + timedelta(hours=1), settings=SETTINGS)
    on = refresh(backends, tally, at=NOW + timedelta(hours=2), settings=WITH_STOP)

    assert off.status == "running"
    assert (on.status, on.winner, on.ended_by) == ("ended", "b", "stop_rule")
    page = find_page(pages=backends.pages, slug="growth-audit", editor=EDITOR)
    assert page.version == 2
    assert page.page_input["title"] == "A growth audit that pays for itself"
    assert served(backends, on) == [("control", 1.0)]


def end(backends: Backends, winner: str, *, content: dict[str, Any] = B_CONTENT) -> Any:
    return end_experiment(
        experiments=backends.experiments,
        slug="growth-audit",
        allocation=backends.variants.get_allocation("growth-audit"),
        winner=winner,
        arms=ARMS,
        promote=promoter(backends, {"b": content}),
        now=NOW + timedelta(days=2),
    )


def test_ending_with_a_variant_makes_it_the_next_version_and_history_keeps_the_control(
    backends: Backends,
) -> None:
    stored_page(backends)
    allocate(backends, "fixed", {"control": 50, "b": 50})

    ended = end(backends, "b")
    again = end(backends, "b")

    assert (ended.winner, ended.ended_by, ended.started_at) == ("b", "api", NOW)
    assert again == ended
    history = list_history(pages=backends.pages, slug="growth-audit", editor=EDITOR)
    assert [v.version for v in history.versions] == [2, 1]
    assert history.versions[1].page_input["title"] == "A growth audit in two weeks"
    assert served(backends, ended) == [("control", 1.0)]


def test_setting_the_allocation_after_an_end_starts_the_next_experiment(
    backends: Backends,
) -> None:
    stored_page(backends)
    allocate(backends, "fixed", {"control": 50, "b": 50})
    ended = end(backends, "control")
    later = NOW + timedelta(days=3)
    set_allocation(
        pages=backends.pages,
        variants=backends.variants,
        slug="growth-audit",
        mode="adaptive",
        shares={},
        editor=EDITOR,
        now=later,
        changed=backends.page_changes,
    )
    tally = Tally(ArmCounts("control", 0, 0), ArmCounts("b", 0, 0))

    renewed = refresh(backends, tally, at=later, settings=SETTINGS)

    assert ended.status == "ended"
    assert (renewed.status, renewed.started_at, renewed.version) == ("running", later, 4)
    assert tally.asked == [later]


def test_ending_with_another_winner_or_an_unknown_arm_is_refused(backends: Backends) -> None:
    stored_page(backends)
    end(backends, "control")

    with pytest.raises(ExperimentEndedError):
        end(backends, "b")
    with pytest.raises(UnknownArmError):
        end(backends, "z")


def test_a_winner_the_gate_refuses_leaves_the_page_and_the_experiment_as_they_were(
    backends: Backends,
) -> None:
    stored_page(backends)
    allocate(backends, "adaptive")
    refresh(backends, Tally(), at=NOW, settings=SETTINGS)

    with pytest.raises(GateRefusedError):
        end(backends, "b", content=page_body(cta_href="javascript:alert(1)"))

    assert find_page(pages=backends.pages, slug="growth-audit", editor=EDITOR).version == 1
    experiment = backends.experiments.get_experiment("growth-audit")
    assert experiment is not None
    assert experiment.status == "running"


def test_the_standing_gives_each_arm_its_figures_and_the_share_it_is_served() -> None:
    counts = [ArmCounts("control", 1_000, 20), ArmCounts("b", 1_000, 30)]

    result = experiment_standing(
        experiment=None,
        counts=counts,
        served=[("control", 0.5), ("b", 0.5)],
        min_share=0.1,
        rng=np.random.default_rng(5),
    )

    control, b = result.arms
    assert (control.visitors, control.conversions, control.rate) == (1_000, 20, 0.02)
    assert (control.share, b.share) == (0.5, 0.5)
    assert b.probability_best == pytest.approx(0.92, abs=0.03)
    assert control.probability_best + b.probability_best == pytest.approx(1.0)
