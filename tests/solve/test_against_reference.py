"""The fast solver agrees with the simple reference solver at every state, for every variant."""

from __future__ import annotations

import pytest

from pigdice.rules import find_variant, variant_names
from pigdice.rules.variant import Decision
from pigdice.solve import solve_uncached

from .reference_solver import reference_values

# small goals keep the pure-Python reference quick; parameters shrink the biggest tables
CASES = {name: {"goal": 12} for name in variant_names() if name != "swine-herd"}
CASES["hog"] = {"goal": 15, "max_dice": 8}
CASES["hog-reroll"] = {"goal": 10, "max_dice": 4}
CASES["pig-dice"] = {"goal": 14}
CASES["big-pig-knizia"] = {"goal": 26}  # the 1-1 'set 25' must land inside the table
CASES["pass-the-pigs"] = {"goal": 12, "oinker": "1/50"}
CASES["two-dice-pig-bust"] = {"goal": 12}


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n == "big-pig-knizia" else n for n in sorted(CASES)]
)
def test_fast_solver_matches_reference_everywhere(name):
    params = dict(CASES[name])
    if name == "two-dice-pig-bust":
        variant = find_variant("two-dice-pig", double_ones="bust", **params)
    else:
        variant = find_variant(name, **params)
    policy = solve_uncached(variant)
    expected = reference_values(variant)
    worst = 0.0
    for state, value in expected.items():
        if variant.decision is Decision.DICE_PER_TURN:
            got = policy.values[state]
        else:
            got = policy.win_probability(*state)
        worst = max(worst, abs(got - value))
    assert worst < 1e-12, f"{name}: largest difference {worst:.3g}"


def test_swine_herd_is_refused_with_a_reason():
    from pigdice.errors import BadParameterError

    with pytest.raises(BadParameterError, match="everyone at once"):
        solve_uncached(find_variant("swine-herd"))


@pytest.mark.parametrize("name", ["pig", "big-pig", "pig-dice", "hog", "hog-reroll"])
def test_games_without_resets_are_solved_in_one_pass(name):
    policy = solve_uncached(find_variant(name, goal=25))
    assert not policy.table.has_reset
    assert policy.iterations == 1  # every dependency is final before it is used (Hog: pairs iterate within)
    assert policy.residual < 1e-12
