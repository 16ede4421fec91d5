"""Each level's exact chance against the perfect player: turn-by-turn games and Swine Herd's sit tables."""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.players.specs import parse_strategy
from pigdice.rules import find_variant
from pigdice.solve.exact import exact_policy
from pigdice.study.analysis.swineherd import equilibrium_table
from pigdice.study.evaluate import compare
from pigdice.study.herdlevels import alone_options, level_sit_table, stage_options
from pigdice.study.levels import level_ladder


def test_a_ladder_is_exact_and_agrees_with_compare() -> None:
    variant = find_variant("hog", goal=40)
    ladder = level_ladder(variant)
    assert ladder.is_increasing() and ladder.note is None
    assert ladder.levels[-1].average == pytest.approx(0.5, abs=1e-12)
    third = compare(variant, parse_strategy("level:3", variant), parse_strategy("optimal", variant)).exact
    assert third is not None
    assert (third.a_first, third.b_first) == pytest.approx((ladder.levels[2].first, ladder.levels[2].second), abs=1e-12)


def test_the_allowances_can_be_tried_but_the_top_stays_perfect() -> None:
    from pigdice.errors import BadParameterError

    with pytest.raises(BadParameterError, match="the last one 0"):
        level_ladder(find_variant("pig", goal=20), allowances=[0.1] * 8)


def test_swine_herd_levels_read_the_equilibriums_own_option_values() -> None:
    variant = find_variant("swine-herd", goal=30)
    policy = exact_policy(variant, 2).solved  # type: ignore[attr-defined]
    a_sits, a_stands, b_sits, _ = stage_options(policy)
    rng = np.random.default_rng(5)
    for _ in range(300):
        a, b = (int(x) for x in rng.integers(0, 30, 2))
        t = int(rng.integers(1, 31 - min(a, b)))
        stage = policy.stage(a, b, t)
        (ss, sy), (ys, yy) = stage.payoffs
        assert a_sits[a, b, t] == pytest.approx(stage.sit_b * ss + (1 - stage.sit_b) * sy, abs=1e-14)
        assert a_stands[a, b, t] == pytest.approx(stage.sit_b * ys + (1 - stage.sit_b) * yy, abs=1e-14)
        assert b_sits[a, b, t] == pytest.approx(1 - (stage.sit_a * ss + (1 - stage.sit_a) * ys), abs=1e-14)
    for seat in (0, 1):
        hold, roll, _ = alone_options(policy, seat)
        for _ in range(300):
            mine, other, total = int(rng.integers(0, 30)), int(rng.integers(0, 60)), int(rng.integers(1, 61))
            if other >= 30 and other - mine - total >= 30:
                continue
            a, b = (mine, other) if seat == 0 else (other, mine)
            assert (hold[mine, other, total], roll[mine, other, total]) == pytest.approx(
                policy.alone(a, b, total, seat), abs=1e-14
            )
        # with no allowance a lone player holds exactly where the equilibrium does
        assert (level_sit_table(policy, seat, 0.0).hold_alone == equilibrium_table(policy, seat).hold_alone).all()
    ladder = level_ladder(variant)
    assert ladder.levels[-1].average == pytest.approx(0.5, abs=1e-12)
    assert all(level.average <= 0.5 + 1e-12 for level in ladder.levels)
