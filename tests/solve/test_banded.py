"""Turns whose rolls can lower the total solved exactly by banded elimination (``solve/two/banded.py``).

The elimination must give the values of the sweeps to a fixed point (``rollhold``, the solver
before it), of a dense linear solve of one turn, and of itself with one slot shared by every
score; the exact head-to-head through it the values of ``rollhold``'s evaluation.
"""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.rules import find_variant
from pigdice.rules.effects import EffectKind
from pigdice.solve.positions import TRUNCATION_ERROR
from pigdice.solve.solver import solve_values
from pigdice.solve.tables import effect_table
from pigdice.solve.two import banded, endgame, lastturn, rollhold
from pigdice.solve.two.bundles import NO_LAST, Ends, game_of


def pig_dice_game(goal: int, name: str = "pig-dice"):
    """Return Pig Dice's (or ``name``'s) 2-player game to ``goal``, first to the goal."""
    variant = find_variant(name, goal=goal).with_endgame("first-to-goal")
    return variant, game_of(goal, effect_table(variant))


def swept_values(game) -> np.ndarray:
    """Return the turn-start values by ``rollhold``'s general sweep (to a fixed point within each turn)."""
    values = np.full((game.goal, game.goal), 0.5)
    rows = rollhold.level_rows(game)
    rollhold.solve_levels(values, values, 2 * game.goal - 2, 0, game, rows, True, True)
    return values


def test_only_first_to_goal_games_whose_rolls_lower_the_total_fit() -> None:
    _, game = pig_dice_game(30)
    assert banded.fits(game)
    assert banded.fits(pig_dice_game(30, "big-pig-knizia")[1])  # 1-1 sets the turn total to 25
    for name in ("pig", "two-dice-pig", "hog-reroll"):  # monotone: one sweep is exact
        assert not banded.fits(game_of(30, effect_table(find_variant(name, goal=30))))
    last = np.full(40, 0.5)
    assert banded.fits(game_of(30, game.table, Ends(last, last, 5 / 36, 0)))  # a final round: one last turn each
    assert not banded.fits(game_of(30, game.table, Ends(last, NO_LAST, 5 / 36, 0)))  # equal turns: the seat matters
    assert not banded.fits(game_of(30, game.table, Ends(last, last, 5 / 36, 40)))  # the tests' cap


def test_the_band_is_pig_dices_roll() -> None:
    # the rules (``pigdice rules pig-dice``): adds 2-6 and 8-11, tail with 2-6 subtracts 2-6 at 1/36
    # each, head-tail doubles at 1/36, a total of 7 loses the turn total at 5/36
    band = banded.band_of(pig_dice_game(30)[1].table)
    assert list(band.add_amounts) == [2, 3, 4, 5, 6, 8, 9, 10, 11]
    assert sorted(band.subtract_amounts) == [2, 3, 4, 5, 6]
    assert band.subtract_chances * 36 == pytest.approx([1] * 5)
    assert (band.double_chance * 36, band.lose * 36, band.reset) == pytest.approx((1, 5, 0))
    assert (band.width, band.reach, band.pinned, band.set_chance) == (6, 11, -1, 0.0)
    knizia = banded.band_of(pig_dice_game(30, "big-pig-knizia")[1].table)
    assert (knizia.width, knizia.reach, knizia.pinned, knizia.set_chance * 36) == (0, 24, 25, pytest.approx(1))


@pytest.mark.parametrize(
    ("name", "goal"), [("pig-dice", 20), ("pig-dice", 45), ("big-pig-knizia", 20), ("big-pig-knizia", 60)]
)
def test_the_elimination_gives_the_sweeps_values(name: str, goal: int) -> None:
    variant, game = pig_dice_game(goal, name)
    values = np.full((goal, goal), 0.5)
    solve_values(variant, game.table, [values], rollhold.FIRST_TO_GOAL_ENDS)
    assert np.abs(values - swept_values(game)).max() < 1e-13


def test_one_slot_shared_by_every_score_gives_the_same_values(monkeypatch: pytest.MonkeyPatch) -> None:
    variant, game = pig_dice_game(35)
    kept = np.full((35, 35), 0.5)
    solve_values(variant, game.table, [kept], rollhold.FIRST_TO_GOAL_ENDS)
    monkeypatch.setattr(banded, "CACHE_BYTES", 0)
    rows = banded.level_rows(game)
    assert rows.owner.shape == (1,)
    shared = np.full((35, 35), 0.5)
    banded.solve_levels(shared, shared, 68, 0, game, rows, True, True)
    assert np.abs(kept - shared).max() < 1e-14


def test_actions_start_anywhere() -> None:
    # from holding at every total (passing at 0), policy iteration still finds the optimal turns
    _, game = pig_dice_game(30)
    rows = banded.level_rows(game)
    rows.act[:] = 0
    values = np.full((30, 30), 0.5)
    banded.solve_levels(values, values, 58, 0, game, rows, True, True)
    assert np.abs(values - swept_values(game)).max() < 1e-13


def dense_turn(i: int, j: int, V: np.ndarray, goal: int, roll: np.ndarray, table) -> tuple[np.ndarray, np.ndarray]:
    """Return (c, d) of the turn at (i, j) under the actions ``roll`` by a dense linear solve of its totals."""
    top = goal - i
    matrix = np.eye(top)
    rhs = np.zeros((top, 2))
    for k in range(top):
        if not roll[k]:
            rhs[k] = (1.0, -1.0) if k == 0 else (1.0 - V[j, i + k], 0.0)
            continue
        for kind, amount, chance in zip(table.kinds, table.amounts, table.probabilities, strict=True):
            if kind == EffectKind.BUST:
                rhs[k] += (chance, -chance)  # the partner moves at (j, i): 1 - x
                continue
            moved = {EffectKind.ADD: k + amount, EffectKind.DOUBLE: 2 * k, EffectKind.SET: amount}
            total = moved.get(EffectKind(kind), max(k - amount, 0))  # else a subtract
            if total >= top:
                rhs[k, 0] += chance  # reaching the goal wins
            else:
                matrix[k, total] -= chance
    solved = np.linalg.solve(matrix, rhs)
    return solved[:, 0], solved[:, 1]


@pytest.mark.parametrize("name", ["pig-dice", "big-pig-knizia"])
def test_one_turn_is_the_dense_solve_of_its_system(name: str) -> None:
    goal = 40
    _, game = pig_dice_game(goal, name)
    rng = np.random.default_rng(7)
    V = rng.random((goal, goal))
    rows = banded.level_rows(game)
    for i, j in [(0, 3), (5, 30), (22, 0), (39, 39)]:
        roll = rng.random(goal) < 0.7
        roll[0] = True
        banded.fixed_turn(i, j, V, goal, roll.astype(np.int8), rows)
        c, d = dense_turn(i, j, V, goal, roll, game.table)
        assert np.abs(rows.c[i, : goal - i] - c).max() < 1e-14
        assert np.abs(rows.d[i, : goal - i] - d).max() < 1e-14


def test_the_exact_head_to_head_gives_the_sweeps_values() -> None:
    goal = 30
    _, game = pig_dice_game(goal)
    rng = np.random.default_rng(11)
    tables = (rng.random((2, goal, goal, goal)) < 0.6).astype(np.int8)
    tables[:, :, :, 0] = 1  # both roll at turn total 0: every game ends
    by_band = [np.full((goal, goal), 0.5) for _ in range(2)]
    by_sweep = [np.full((goal, goal), 0.5) for _ in range(2)]
    banded.evaluate_levels(*by_band, tables[0], tables[1], game, banded.evaluation_rows(game), 0.5)
    rollhold.evaluate_levels(*by_sweep, tables[0], tables[1], game, rollhold.evaluation_rows(game), 0.5)
    for band_values, swept in zip(by_band, by_sweep, strict=True):
        assert np.abs(band_values - swept).max() < 1e-13


def final_round_values(variant, length: int, swept: bool, monkeypatch: pytest.MonkeyPatch):
    """Return (V, sweeps) of ``variant``'s final round with a last-turn table of ``length``, banded or swept."""
    table = effect_table(variant)
    last = endgame.last_turn_table(variant, table, length)
    values = np.full((variant.goal, variant.goal), 0.5)
    with monkeypatch.context() as patch:
        if swept:
            patch.setattr(banded, "fits", lambda game: False)
        sweeps = solve_values(variant, table, [values], Ends(last, last, endgame.bust_chance(table), 0))
    return values, sweeps


@pytest.mark.parametrize(
    ("name", "goal", "ties", "final_turn", "length"),
    [
        ("pig-dice", 20, "first-to-reach", "turn", 256),  # Pig Dice's own ending
        ("pig-dice", 45, "first-to-reach", "turn", 64),  # a short table: the stops and reads run off its end
        ("pig-dice", 45, "shared", "turn", 256),
        ("pig-dice", 30, "first-to-reach", "roll", 256),  # the overview page's one last roll
        ("big-pig-knizia", 30, "shared", "turn", 256),  # 1-1 sets the turn total to 25
    ],
)
def test_a_final_round_by_elimination_gives_the_sweeps_values(
    name: str, goal: int, ties: str, final_turn: str, length: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    variant = find_variant(name, goal=goal).with_endgame("final-round", ties, final_turn)
    monkeypatch.setattr(lastturn, "MAX_LENGTH", length)  # the table is as long as it gets: no pass gives up
    banded_values, banded_sweeps = final_round_values(variant, length, False, monkeypatch)
    swept_values_, swept_sweeps = final_round_values(variant, length, True, monkeypatch)
    assert np.abs(banded_values - swept_values_).max() < 1e-12
    # the stop past the goal and the table's end cost the same: the solve lengthens the table alike
    assert banded_sweeps.truncation == pytest.approx(swept_sweeps.truncation, abs=1e-12)
    assert (banded_sweeps.truncation > 0) == (length == 64)


def test_a_pass_gives_up_on_a_table_too_short(monkeypatch: pytest.MonkeyPatch) -> None:
    # the endgame solver doubles such a table and solves again, whatever the other pairs give
    variant = find_variant("pig-dice", goal=45)
    _, given_up = final_round_values(variant, 64, False, monkeypatch)
    _, swept = final_round_values(variant, 64, True, monkeypatch)
    assert given_up.truncation > TRUNCATION_ERROR and swept.truncation > TRUNCATION_ERROR


def test_pig_dices_default_game_is_solved_by_elimination_as_by_the_sweeps(monkeypatch: pytest.MonkeyPatch) -> None:
    variant = find_variant("pig-dice", goal=60)  # a final round, ties to whoever reached the score first
    assert banded.fits(game_of(60, effect_table(variant), Ends(np.ones(9), np.ones(9), 5 / 36, 0)))
    by_band = endgame.solve_endgame(variant)
    monkeypatch.setattr(banded, "fits", lambda game: False)
    by_sweep = endgame.solve_endgame(variant)
    assert by_band.last.size == by_sweep.last.size == 512  # the first table, 256 long, was too short
    assert np.abs(by_band.values - by_sweep.values).max() < 1e-12


def test_a_final_round_turn_is_the_sweeps_turn_whatever_its_rows_held() -> None:
    # past its elimination's top a turn's rows hold other turns' values: the turn reads none of them
    goal = 40
    variant = find_variant("pig-dice", goal=goal)
    table = effect_table(variant)
    last = endgame.last_turn_table(variant, table, 256)
    ends = Ends(last, last, endgame.bust_chance(table), 0)
    game = game_of(goal, table, ends)
    V = np.random.default_rng(3).random((goal, goal))
    rows = banded.level_rows(game)
    for i, j in [(0, 3), (5, 30), (22, 0), (39, 39), (39, 0)]:
        rows.c[:] = 7.0
        rows.d[:] = -7.0
        x = V[j, i]
        banded.banded_turn(i, j, V, x, goal, rows, False)
        win, act, _, _ = rollhold.turn_row(V, i, j, goal, table, rollhold.NO_FIXED, ends, 1)
        assert list(rows.act[i, : act.shape[0]]) == list(act)  # the same actions up to the stop
        n = min(win.shape[0], int(rows.top[i]))
        assert np.abs(rows.c[i, :n] + rows.d[i, :n] * x - win[:n]).max() < 1e-13
