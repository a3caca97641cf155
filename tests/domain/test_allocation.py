"""The adaptive allocator as pure logic (content-api.md "Experiments"): Beta posteriors, Thompson
shares with a floor, each arm's standing, and the stop rule; then a seeded simulation of many
experiments that shows what the stop rule's settings buy."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from domain.allocation import (
    floored_shares,
    probability_best,
    standing,
    stop_winner,
    winner_by_rule,
)
from domain.arms import ArmCounts, StopRule

# The settings the simulation vouches for (README "Experiments"; frontdoor/settings.py defaults).
MIN_SHARE = 0.1
RULE = StopRule(probability=0.999, min_conversions=100)
# One look (a recompute of the shares and a check of the stop rule) per 4,000 visitors, 50 looks:
# 200,000 visitors per experiment.
VISITORS_PER_LOOK = 4_000
LOOKS = 50
RUNS = 200
DRAWS = 1_000


def test_an_arm_with_no_visitors_has_the_priors_interval_and_an_equal_chance() -> None:
    arms = [ArmCounts("control", 0, 0), ArmCounts("b", 0, 0)]

    result = standing(arms, min_share=MIN_SHARE, rng=np.random.default_rng(7))

    for arm in result:
        # Beta(1, 1) is uniform: its 95% interval is (0.025, 0.975).
        assert arm.interval == pytest.approx((0.025, 0.975), abs=0.01)
        assert arm.probability_best == pytest.approx(0.5, abs=0.02)
        assert arm.share == pytest.approx(0.5, abs=0.02)
        assert arm.rate == 0.0


def test_an_arms_interval_holds_its_rate_and_narrows_with_visitors() -> None:
    few = [ArmCounts("control", 100, 3)]
    many = [ArmCounts("control", 10_000, 300)]

    (small,) = standing(few, min_share=0.0, rng=np.random.default_rng(7))
    (large,) = standing(many, min_share=0.0, rng=np.random.default_rng(7))

    assert small.rate == 0.03
    assert large.rate == 0.03
    assert small.interval[0] < 0.03 < small.interval[1]
    assert large.interval[0] < 0.03 < large.interval[1]
    # Beta(301, 9701): mean 0.0301, sd 0.0017, so the interval is about 0.0301 +- 0.0033.
    assert large.interval == pytest.approx((0.0268, 0.0335), abs=0.0005)
    assert large.interval[1] - large.interval[0] < (small.interval[1] - small.interval[0]) / 5


def test_a_clearly_better_arm_is_best_with_high_probability_and_the_other_keeps_its_floor() -> None:
    arms = [ArmCounts("control", 5_000, 100), ArmCounts("b", 5_000, 200)]

    control, better = standing(arms, min_share=MIN_SHARE, rng=np.random.default_rng(7))

    assert better.probability_best > 0.999
    assert control.share == pytest.approx(MIN_SHARE, abs=0.001)
    assert better.share == pytest.approx(1 - MIN_SHARE, abs=0.001)


def test_floored_shares_sum_to_one_and_refuse_floors_that_do_not_fit() -> None:
    shares = floored_shares([0.7, 0.2, 0.1, 0.0], min_share=0.1)

    assert shares.sum() == pytest.approx(1.0)
    assert shares.min() == pytest.approx(0.1)
    with pytest.raises(ValueError, match="does not fit"):
        floored_shares([0.5] * 5, min_share=0.25)


def test_the_stop_rule_waits_for_the_minimum_conversions_on_every_arm() -> None:
    sure_but_few = standing(
        [ArmCounts("control", 20_000, 99), ArmCounts("b", 20_000, 400)],
        min_share=MIN_SHARE,
        rng=np.random.default_rng(7),
    )
    sure_and_enough = standing(
        [ArmCounts("control", 20_000, 100), ArmCounts("b", 20_000, 400)],
        min_share=MIN_SHARE,
        rng=np.random.default_rng(7),
    )
    enough_but_unsure = standing(
        [ArmCounts("control", 20_000, 400), ArmCounts("b", 20_000, 410)],
        min_share=MIN_SHARE,
        rng=np.random.default_rng(7),
    )

    assert winner_by_rule(sure_but_few, rule=RULE) is None
    assert winner_by_rule(sure_and_enough, rule=RULE) == "b"
    assert winner_by_rule(enough_but_unsure, rule=RULE) is None


def test_counts_with_more_conversions_than_visitors_are_refused() -> None:
    with pytest.raises(ValueError, match="between 0 and the visitors"):
        probability_best([5], [4], rng=np.random.default_rng(7), draws=10)


def simulate(rates: tuple[float, ...], *, seed: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """RUNS experiments at once, each LOOKS looks of VISITORS_PER_LOOK visitors split by the
    current shares; returns the visitors each arm was sent per run and each run's stop-rule
    winner (-1: still running after the last look)."""
    rng = np.random.default_rng(seed)
    arms = len(rates)
    visitors = np.zeros((RUNS, arms), dtype=np.int64)
    conversions = np.zeros((RUNS, arms), dtype=np.int64)
    shares = np.full((RUNS, arms), 1.0 / arms)
    winners = np.full(RUNS, -1, dtype=np.int64)
    for _ in range(LOOKS):
        running = np.flatnonzero(winners < 0)
        if running.size == 0:
            break
        served = rng.multinomial(VISITORS_PER_LOOK, shares[running])
        visitors[running] += served
        conversions[running] += rng.binomial(served, rates)
        p_best = probability_best(conversions[running], visitors[running], rng=rng, draws=DRAWS)
        shares[running] = floored_shares(p_best, min_share=MIN_SHARE)
        winners[running] = stop_winner(p_best, conversions[running], rule=RULE)
    return visitors, winners


def test_simulated_experiments_at_2_and_3_percent_send_most_visitors_to_3_and_pick_it() -> None:
    """Seeded: 200 experiments, true rates 2% (control) and 3%.

    Measured: every run stops within its 200,000 visitors (half of them by 36,000), every stop
    picks the 3% arm, and it is sent 84% of all visitors. Why: after one look (about 2,000
    visitors an arm) 2% against 3% already gives the better arm P(best) about 0.98, so Thompson
    sends it nearly all it may, 1 - MIN_SHARE = 90% (the worse arm keeps its floor); the worse
    arm still reaches 100 conversions (5,000 visitors at 2%) within a dozen looks, and by then
    the evidence puts P(best) far past 0.999. A wrong pick needs the 2% arm to look better at
    0.999 with 100 conversions on each arm: under 1 in 1,000 per look. We assert the issue's bar
    (95% of stops right), at least 90% of runs stopping, and the better arm's share at 75% or
    more (a fixed split sends 50%; the floor caps it at 90%).
    """
    visitors, winners = simulate((0.02, 0.03), seed=2026)

    stopped = winners >= 0
    better_share = visitors[:, 1].sum() / visitors.sum()
    assert stopped.mean() >= 0.90
    assert (winners[stopped] == 1).mean() >= 0.95
    assert 0.75 <= better_share <= 1 - MIN_SHARE


def test_simulated_experiments_with_equal_rates_rarely_stop_on_a_false_winner() -> None:
    """Seeded: 200 experiments, both arms truly 2%; any stop names a false winner.

    Measured: 3% of runs (6 of 200) stop within their 200,000 visitors. Why: a look stops only
    when one arm is best with probability 0.999 (a 1-in-1,000 tail each way at a single look)
    and every arm has 100 conversions (5,000 visitors at 2%, so from about the 3rd look); the up
    to 48 looks after that are strongly correlated (each adds 4,000 visitors to tens of
    thousands), so the chance of ever crossing is a few times one look's 2 in 1,000, not 48
    times it. We assert the issue's bar: at most 5% of runs. More looks over a longer experiment
    raise it (content-api.md "Experiments").
    """
    _, winners = simulate((0.02, 0.02), seed=2027)

    assert (winners >= 0).mean() <= 0.05
