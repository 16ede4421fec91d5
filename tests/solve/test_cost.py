"""The cost model: how big an exact solve is, and whether bounds allow it (the one answer the web asks)."""

from __future__ import annotations

from pigdice.rules.registry import find_variant
from pigdice.solve.cost import SolveBounds, exact_refusal, largest_exact_goal, solve_cost


def test_largest_exact_goal() -> None:
    assert largest_exact_goal(10**6, 3) == 100 and largest_exact_goal(10**6 - 1, 3) == 99
    assert largest_exact_goal(10**6, 2) == 1000 and largest_exact_goal(10**6, 4) == 31
    assert largest_exact_goal(0, 3) == 0


def test_the_cost_of_a_solve_names_what_makes_it_slow() -> None:
    assert solve_cost(find_variant("pig", goal=100), 3).states == 100**3
    assert solve_cost(find_variant("two-dice-pig", goal=50), 3).resets  # a double 1 resets the score
    assert not solve_cost(find_variant("pig", goal=50), 3).resets
    far = find_variant("pig-dice", goal=20)  # turn totals that double or fall, with a last round
    assert solve_cost(far, 3).reaches_far and not solve_cost(far, 2).reaches_far
    herd = solve_cost(find_variant("swine-herd", goal=50), 2)  # everyone at once: no turn of one's own to run on
    assert herd.states == 2500 and not herd.resets and not herd.reaches_far


def test_bounds_refuse_in_words_naming_the_largest_goal() -> None:
    bounds = SolveBounds(max_states=12**3, max_reset_states=9**3, max_far_states=20**3)
    assert exact_refusal(find_variant("pig", goal=12), 3, bounds) is None
    assert (
        exact_refusal(find_variant("pig", goal=13), 3, bounds)
        == "this server solves 3-player games exactly up to goal 12"
    )
    reset = exact_refusal(find_variant("two-dice-pig", goal=10), 3, bounds, where="this machine")
    assert reset == "this machine solves 3-player games whose rolls can reset a score exactly up to goal 9"
    assert "no exact solver" in (exact_refusal(find_variant("pig", goal=10), 11, bounds) or "")
    assert exact_refusal(find_variant("swine-herd", goal=30), 2, bounds) is None
