"""The solver's fast sweeps (``rollhold._plain_sweep``, ``_chain_sweep``) against its general sweep.

Tables of one roll with adds, busts and resets, first to the goal, take the plain sweep (adds
in a running window, wins padded past the goal); tables whose rolls add one die each (1, 2, 3
... dice) take the chain sweep; every other table takes the general one. Forcing the general
sweep on the same table must give the same values.
"""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.players.specs import parse_strategy
from pigdice.players.tables import action_table
from pigdice.rules import find_variant
from pigdice.solve.layout import SWEEP_CHAIN, SWEEP_GENERAL, SWEEP_PLAIN, sweep_layout
from pigdice.solve.solver import solve_values
from pigdice.solve.tables import EffectTable, effect_table
from pigdice.solve.two import rollhold
from pigdice.solve.two.bundles import Ends
from pigdice.solve.two.headtohead import head_to_head
from pigdice.study.fastsim import head_to_head_sim

PLAIN = ["pig", "two-dice-pig", "big-pig", "piggy-six", "pass-the-pigs", "piggy"]
CHAIN = ["hog-reroll", "piggy-six-3dice"]
GENERAL_ONLY = ["pig-dice", "big-pig-knizia", "freys-pig"]
# the general sweep: a cap is read only with a last-turn table, so it changes nothing but the path
GENERAL_ENDS = (rollhold.NO_LAST, rollhold.NO_LAST, 0.0, 10**9)


@pytest.mark.parametrize("name", PLAIN + CHAIN)
def test_fast_tables_take_a_fast_sweep_and_agree_with_the_general_one(name: str) -> None:
    variant = find_variant(name, goal=30).with_endgame("first-to-goal")
    table = effect_table(variant)
    assert table.sweep == (SWEEP_CHAIN if name in CHAIN else SWEEP_PLAIN)
    fast = np.full((30, 30), 0.5)
    general = np.full((30, 30), 0.5)
    solve_values(variant, table, [fast], rollhold.FIRST_TO_GOAL_ENDS)
    solve_values(variant, table, [general], GENERAL_ENDS)
    assert np.abs(fast - general).max() < 1e-13


@pytest.mark.parametrize("name", GENERAL_ONLY)
def test_other_tables_keep_the_general_sweep(name: str) -> None:
    variant = find_variant(name, goal=30).with_endgame("first-to-goal")
    assert effect_table(variant).sweep == SWEEP_GENERAL


def _rolls(table: EffectTable) -> list[tuple[list[int], list[float]]]:
    """Return each roll's adds (amounts, chances) as ``layout.sweep_layout`` takes them."""
    bounds = table.add_offsets
    return [
        (list(table.add_amounts[bounds[c] : bounds[c + 1]]), list(table.add_probabilities[bounds[c] : bounds[c + 1]]))
        for c in range(len(bounds) - 1)
    ]


def test_a_chain_is_recognised_only_where_each_roll_adds_one_die() -> None:
    hog = effect_table(find_variant("hog-reroll", goal=30, max_dice=4))
    assert (hog.sweep, hog.window_start, hog.window_end) == (SWEEP_CHAIN, 2, 6)
    assert hog.window_chance == pytest.approx(1 / 6)
    assert list(hog.add_totals) == pytest.approx([(5 / 6) ** n for n in range(1, 5)])  # no 1 among n dice
    rolls = _rolls(hog)
    assert sweep_layout(rolls, True).sweep == SWEEP_CHAIN
    assert sweep_layout(rolls[::-1], True).sweep == SWEEP_GENERAL  # 4 dice first: not a chain
    assert sweep_layout([rolls[0], rolls[2]], True).sweep == SWEEP_GENERAL  # 1 die then 3
    assert sweep_layout(rolls, False).sweep == SWEEP_GENERAL  # other effects: the general sweep


def test_the_longest_run_becomes_the_window_and_the_rest_singles() -> None:
    # adds 1-3 at 1/20 each (a run of 3), 5 at 1/10, 7-11 at 1/10 each (a run of 5)
    amounts = [1, 2, 3, 5, 7, 8, 9, 10, 11]
    chances = [0.05, 0.05, 0.05, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]
    layout = sweep_layout([(amounts, chances)], True)
    assert (layout.sweep, layout.window_start, layout.window_end, layout.window_chance) == (SWEEP_PLAIN, 7, 11, 0.1)
    assert list(layout.singles) == [1, 2, 3, 5] and list(layout.single_chances) == [0.05, 0.05, 0.05, 0.1]


def test_pigs_adds_are_one_window_and_two_dice_pigs_are_singles() -> None:
    pig = effect_table(find_variant("pig"))
    assert (pig.window_start, pig.window_end, list(pig.singles)) == (2, 6, [])
    assert pig.window_chance == pytest.approx(1 / 6)
    two = effect_table(find_variant("two-dice-pig"))
    assert two.window_chance == 0.0 and list(two.singles) == list(range(4, 13))  # 2+2 .. 6+6, chances 1..5..1 / 36
    assert two.single_chances.sum() == pytest.approx(25 / 36)


@pytest.mark.parametrize("name", ["two-dice-pig", "piggy-six", "hog-reroll"])
def test_the_fast_evaluation_of_fixed_strategies_matches_a_simulation(name: str) -> None:
    # hold:12 against the perfect player, evaluated on the fast sweep (resets included), against
    # 200,000 simulated games: within 4 standard errors
    variant = find_variant(name, goal=30).with_endgame("first-to-goal")
    a = action_table(parse_strategy("hold:12", variant), variant)
    b = action_table(parse_strategy("optimal", variant), variant)
    exact = head_to_head(variant, a, b)
    games = 200_000
    simulated = head_to_head_sim(variant, a, b, games, seed=11)
    error = (exact.average * (1 - exact.average) / games) ** 0.5
    assert abs(simulated.wins / simulated.games - exact.average) < 4 * error


@pytest.mark.parametrize("name", ["pig", "two-dice-pig", "pass-the-pigs"])
def test_a_plain_games_turn_row_is_the_general_sweeps(name: str) -> None:
    # turn_row takes the plain sweep (recording roll values and choices) for these games; the
    # general sweep's row at every turn start must match it: values to rounding, every choice
    variant = find_variant(name, goal=25).with_endgame("first-to-goal")
    table = effect_table(variant)
    values = np.full((25, 25), 0.5)
    solve_values(variant, table, [values], rollhold.FIRST_TO_GOAL_ENDS)
    for i in range(25):
        for j in range(25):
            plain = rollhold.turn_row(values, i, j, 25, table, rollhold.NO_FIXED, rollhold.FIRST_TO_GOAL_ENDS, 0)
            general = rollhold._general_turn_row(values, i, j, 25, table, rollhold.NO_FIXED, Ends(*GENERAL_ENDS), 0)
            for mine, theirs in zip(plain, general, strict=True):
                assert mine.shape == theirs.shape
                assert np.abs(mine - theirs).max() < 1e-13
            assert np.array_equal(plain[1], general[1]), f"a different choice at ({i}, {j})"
