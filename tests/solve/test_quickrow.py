"""The quick rows (plain Python over Effect.resolve) give the kernels' values and choices, for every variant."""

from __future__ import annotations

import pytest

from pigdice.rules import find_variant
from pigdice.rules.registry import all_variants
from pigdice.rules.variant import Decision
from pigdice.solve import solve
from pigdice.solve.quickrow import action_values, option_names

TURN_BASED = [v.name for v in all_variants() if not v.is_simultaneous]


@pytest.mark.parametrize("name", TURN_BASED)
def test_quick_rows_equal_the_solver_kernels(name: str) -> None:
    variant = find_variant(name, goal=24).first_to_goal()
    policy = solve(variant)
    names = option_names(variant)
    for i in range(0, 24, 5):
        for j in range(0, 24, 7):
            totals = [0] if variant.decision is Decision.DICE_PER_TURN else range(0, 24 - i + 4, 3)
            for k in totals:
                expected = policy.action_values(i, j, k)
                values, best = action_values(variant, policy.values, i, j, k)
                assert list(values) == list(expected)
                for option, value in expected.items():
                    assert values[option] == pytest.approx(value, abs=1e-12), (i, j, k, option)
                code = policy.best_choice(i, j, k)
                assert best == ("hold" if code == 0 else names[code - 1]), (i, j, k)
