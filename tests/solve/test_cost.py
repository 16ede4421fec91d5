"""The cost model: how big an exact solve is, and whether bounds allow it (the one answer the web asks)."""

from __future__ import annotations

from pigdice.rules.registry import find_variant
from pigdice.solve.cost import SolveBounds, estimate, exact_refusal, largest_exact_goal, solve_cost


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


# Measured CPU seconds of exact solves on a 2-core AMD EPYC, November 2026 (docs/benchmarks.md, bench/bench_solve.py,
# bench/nplayer.py, bench/swine_herd*.py): the estimate's range must hold every one of them.
MEASURED = [
    ("pig", 100, 2, None, 0.004),
    ("pig", 1000, 2, None, 3.1),
    ("two-dice-pig", 100, 2, None, 0.071),
    ("pig-dice", 100, 2, "first-to-goal", 0.026),  # December 2026, solved by elimination (two/banded.py)
    ("pig-dice", 100, 2, None, 0.40),  # its own final round, by elimination too (December 2026, load 8)
    ("big-pig-knizia", 100, 2, None, 0.026),
    ("hog", 100, 2, None, 0.017),
    ("pig", 100, 3, None, 4.6),
    ("pig", 100, 3, "final-round", 13.6),
    ("pig", 100, 3, "equal-turns", 36.8),
    ("piggy-six", 30, 3, "equal-turns", 1.9),
    ("piggy-six", 60, 3, "equal-turns", 38.0),
    ("piggy-six", 100, 3, "equal-turns", 292.0),
    ("two-dice-pig", 50, 3, "first-to-goal", 8.0),
    ("pig-dice", 30, 3, "final-round", 38.0),
    ("pig-dice", 50, 3, "final-round", 98.0),
    ("pig", 100, 4, None, 318.0),
    ("swine-herd", 100, 2, None, 0.47),
    ("swine-herd", 50, 3, None, 148.0),
    ("swine-herd", 100, 3, None, 1380.0),
]


def test_the_time_estimate_holds_every_measured_solve() -> None:
    for name, goal, players, ending, seconds in MEASURED:
        variant = find_variant(name, goal=goal)
        if ending is not None:
            variant = variant.with_endgame(ending)
        low, high = estimate(variant, players).seconds
        assert low <= seconds <= high, (
            f"{name} to {goal}, {players} players, {ending}: {seconds} s not in {low:.3g}-{high:.3g}"
        )


def test_the_estimate_says_whether_the_memory_fits_without_solving() -> None:
    # past a GiB the win vectors are kept compact: n - 1 shares a score tuple (``memory.players_shares``)
    small = estimate(find_variant("pig", goal=100), 4)
    assert small.memory == 8 * 3 * 100**4 and small.states == 100**4 and small.exact is None
    huge = estimate(find_variant("pig", goal=100), 8)
    assert huge.memory == 8 * 7 * 100**8 and not huge.fits
    assert "final-round" in (estimate(find_variant("pig", goal=50).with_endgame("final-round"), 5).exact or "")
