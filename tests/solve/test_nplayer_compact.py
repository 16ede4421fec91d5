"""The n-player solver's compact values (n - 1 entries a state, ``nkernels.share``) and its sweep of Pig-like
turns (``nkernels._sweep_adds``): the same values as the full, general solve, and the files they make."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pigdice.errors import BadParameterError
from pigdice.rules import find_variant
from pigdice.solve.memory import COMPACT_BYTES, players_shares, players_solver_bytes, players_values_bytes
from pigdice.solve.n import nplayer
from pigdice.solve.n.nplayer import PlayersPolicy, solve_players
from pigdice.solve.n.rows import players_game
from pigdice.solve.positions import Position
from pigdice.solve.tables import effect_table

ROUNDING = 1e-14  # the mover's entry as 1 minus the others' differs from the one solved by a few ulps

GAMES = [
    ("pig", 4, 10, {}),
    ("pig", 3, 15, {}),
    ("piggy-six", 3, 10, {}),  # resets: passes repeat
    ("two-dice-pig", 3, 12, {}),  # a roll with two busts and a reset of the score
    ("pig", 3, 10, {"endgame": "final-round"}),
    ("pig", 3, 8, {"endgame": "equal-turns"}),
    ("pig", 2, 20, {}),
]


@pytest.mark.parametrize(("name", "players", "goal", "rules"), GAMES)
def test_compact_values_are_the_full_values(name, players, goal, rules):
    variant = find_variant(name, goal=goal, **rules)
    full = solve_players(variant, players, compact=False)
    compact = solve_players(variant, players, compact=True)
    assert not full.compact and compact.compact
    assert compact.values.shape == (*full.values.shape[:-1], players - 1)
    assert np.abs(compact.full_W() - full.W).max() < ROUNDING
    assert compact.decisions.keys() == full.decisions.keys()
    assert compact.iterations == full.iterations
    assert compact.win_probability_by_seat() == pytest.approx(full.win_probability_by_seat(), abs=ROUNDING)


def test_a_compact_policy_plays_and_answers_as_the_full_one():
    variant = find_variant("pig", goal=12)
    full = solve_players(variant, 4, compact=False)
    compact = solve_players(variant, 4, compact=True)
    for scores, total in (((0, 0, 0, 0), 0), ((3, 7, 0, 11), 0), ((5, 2, 9, 4), 4), ((10, 11, 11, 11), 1)):
        position = Position(scores, total)
        assert compact.win_vector(position) == pytest.approx(full.win_vector(position), abs=ROUNDING)
        assert compact.strategy(position) == full.strategy(position)
        assert compact.action_values(position) == pytest.approx(full.action_values(position), abs=ROUNDING)


def test_a_compact_policy_file_reads_back(tmp_path: Path):
    variant = find_variant("pig", goal=9)
    policy = solve_players(variant, 3, compact=True)
    path = tmp_path / "compact.npz"
    policy.save(path)
    loaded = PlayersPolicy.load(path, variant, 3)
    assert loaded.compact
    assert np.array_equal(loaded.values, policy.values)
    assert loaded.win_probability_by_seat() == policy.win_probability_by_seat()


def test_a_compact_file_whose_others_pass_1_is_refused(tmp_path: Path):
    variant = find_variant("pig", goal=6)
    policy = solve_players(variant, 3, compact=True)
    policy.values[2, 3, 1, :] = (0.6, 0.6)  # the mover's share would be -0.2
    path = tmp_path / "bad.npz"
    policy.save(path)
    with pytest.raises(BadParameterError, match="do not sum to 1"):
        PlayersPolicy.load(path, variant, 3)


def test_a_file_with_too_few_entries_is_refused(tmp_path: Path):
    variant = find_variant("pig", goal=6)
    policy = solve_players(variant, 3, compact=True)
    policy.values = np.ascontiguousarray(policy.values[..., :1])
    path = tmp_path / "short.npz"
    policy.save(path)
    with pytest.raises(BadParameterError, match="values"):
        PlayersPolicy.load(path, variant, 3)


def test_a_level_hook_solve_keeps_full_values():
    seen: list[int] = []
    policy = solve_players(
        find_variant("pig", goal=6), 3, compact=True, level_hook=lambda W, *_: seen.append(W.shape[-1])
    )
    assert not policy.compact
    assert set(seen) == {3}


def test_values_past_the_limit_are_kept_compact():
    # 4 players to 100: 8 bytes x 4 entries x 100^4 states = 3.2e9 bytes, past COMPACT_BYTES (1 GiB)
    assert players_shares(100, 4) == 3
    assert players_values_bytes(100, 4) == 8 * 3 * 100**4
    assert players_values_bytes(100, 4, 4) == 8 * 4 * 100**4
    assert players_shares(50, 4) == 4  # 2e8 bytes
    assert players_shares(100, 3) == 3  # 2.4e7 bytes
    assert 8 * 4 * 76**4 < COMPACT_BYTES < 8 * 4 * 77**4  # 4 players: compact from goal 77
    assert players_shares(76, 4) == 4 and players_shares(77, 4) == 3
    assert players_solver_bytes(100, 4) == 8 * 3 * 100**4 + 8 * 100 * 100 * 5


@pytest.mark.parametrize(("name", "players", "goal"), [("pig", 4, 14), ("pig", 3, 25), ("big-pig", 3, 20)])
def test_the_pig_sweep_gives_the_general_sweeps_values_bit_for_bit(monkeypatch, name, players, goal):
    variant = find_variant(name, goal=goal)
    assert players_game(effect_table(variant), goal, players, False).adds_only
    fast = solve_players(variant, players)
    monkeypatch.setattr(nplayer, "players_game", lambda *args: players_game(*args)._replace(adds_only=False))
    general = solve_players(variant, players)
    assert np.array_equal(fast.values, general.values)
    assert fast.decisions == general.decisions
    assert fast.stats == general.stats


@pytest.mark.parametrize(
    ("name", "takes"), [("pig", True), ("big-pig", True), ("two-dice-pig", False), ("piggy-six", False)]
)
def test_which_games_take_the_pig_sweep(name, takes):
    table = effect_table(find_variant(name, goal=20))
    assert players_game(table, 20, 3, False).adds_only is takes
    # a final round banks past the goal (the general sweep's stops); Hog throws once
    assert not players_game(table, 20, 3, False, np.zeros((1, 4, 400, 3))).adds_only
    assert not players_game(table, 20, 3, True).adds_only
