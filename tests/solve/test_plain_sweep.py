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
from pigdice.solve import rollhold
from pigdice.solve.headtohead import head_to_head
from pigdice.solve.solver import solve_values
from pigdice.solve.tables import effect_table
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
    kind = rollhold.SWEEP_CHAIN if name in CHAIN else rollhold.SWEEP_PLAIN
    assert rollhold._sweep_kind(table, rollhold.NO_LAST, 0) == kind
    assert rollhold._sweep_kind(table, *GENERAL_ENDS[1:2], GENERAL_ENDS[3]) == rollhold.SWEEP_GENERAL
    fast = np.full((30, 30), 0.5)
    general = np.full((30, 30), 0.5)
    solve_values(variant, table, [fast], rollhold.FIRST_TO_GOAL_ENDS)
    solve_values(variant, table, [general], GENERAL_ENDS)
    assert np.abs(fast - general).max() < 1e-13


@pytest.mark.parametrize("name", GENERAL_ONLY)
def test_other_tables_keep_the_general_sweep(name: str) -> None:
    variant = find_variant(name, goal=30).with_endgame("first-to-goal")
    assert rollhold._sweep_kind(effect_table(variant), rollhold.NO_LAST, 0) == rollhold.SWEEP_GENERAL


def test_a_chain_is_recognised_only_where_each_roll_adds_one_die() -> None:
    hog = effect_table(find_variant("hog-reroll", goal=30, max_dice=4))
    is_chain, start, end, chance, totals, *_ = rollhold._chain_layout(hog, 40)
    assert is_chain and (start, end) == (2, 6) and chance == pytest.approx(1 / 6)
    assert list(totals) == pytest.approx([(5 / 6) ** n for n in range(1, 5)])  # no 1 among n dice
    # the same rolls in another order (4 dice first) are not a chain
    order = [3, 2, 1, 0]
    rows = [np.arange(hog.add_offsets[c], hog.add_offsets[c + 1]) for c in order]
    sizes = np.cumsum([0] + [len(r) for r in rows])
    shuffled = hog._replace(
        add_amounts=np.concatenate([hog.add_amounts[r] for r in rows]),
        add_probabilities=np.concatenate([hog.add_probabilities[r] for r in rows]),
        add_offsets=sizes.astype(np.int64),
        bust_probabilities=hog.bust_probabilities[order],
        reset_probabilities=hog.reset_probabilities[order],
    )
    assert not rollhold._chain_layout(shuffled, 40)[0]


def test_pigs_adds_are_one_window_and_two_dice_pigs_are_singles() -> None:
    start, end, chance, singles, _ = rollhold._plain_layout(effect_table(find_variant("pig")))
    assert (start, end, list(singles)) == (2, 6, [])
    assert chance == pytest.approx(1 / 6)
    _, _, chance, singles, chances = rollhold._plain_layout(effect_table(find_variant("two-dice-pig")))
    assert chance == 0.0 and list(singles) == list(range(4, 13))  # 2+2 .. 6+6, chances 1..5..1 / 36
    assert chances.sum() == pytest.approx(25 / 36)


def test_the_longest_run_becomes_the_window_and_the_rest_singles() -> None:
    # adds 1-3 at 1/20 each (a run of 3), 5 at 1/10, 7-11 at 1/10 each (a run of 5)
    amounts = np.array([1, 2, 3, 5, 7, 8, 9, 10, 11], dtype=np.int64)
    chances = np.array([0.05, 0.05, 0.05, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1])
    table = effect_table(find_variant("pig"))._replace(
        add_amounts=amounts, add_probabilities=chances, add_offsets=np.array([0, 9], dtype=np.int64)
    )
    start, end, chance, singles, single_chances = rollhold._plain_layout(table)
    assert (start, end, chance) == (7, 11, 0.1)
    assert list(singles) == [1, 2, 3, 5] and list(single_chances) == [0.05, 0.05, 0.05, 0.1]


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
