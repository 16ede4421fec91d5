"""Seeded engine-loop simulation between robots."""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.engine.game import Hold, Roll, apply, new_game, replay
from pigdice.errors import BadParameterError, BadStrategyError
from pigdice.players.base import Human
from pigdice.players.fixed import HoldAt, RandomPlayer
from pigdice.players.specs import parse_players
from pigdice.rules import find_variant
from pigdice.study.simulate import play_game, simulate


def test_same_seed_same_result():
    variant = find_variant("pig", goal=50)
    robots = parse_players("hold:20,hold:10", variant)
    first = simulate(variant, robots, 60, seed=3)
    assert first == simulate(variant, robots, 60, seed=3)
    assert first.games == 60
    assert sum(first.wins) == pytest.approx(60)
    assert first.ties == 0
    assert first.mean_turns > 0
    assert set(first.to_json()) == {"games", "wins", "ties", "mean_turns"}


def test_hold_at_20_beats_hold_at_2():
    # Hold at 20 maximizes the expected score of a Pig turn (Neller & Presser 2004, seed 003's
    # [Neller and Presser 2004]); holding at 2 scores far less per turn, so it should lose clearly.
    variant = find_variant("pig")
    result = simulate(variant, [HoldAt(20), HoldAt(2)], 100, seed=1)
    assert result.wins[0] > 75


def test_swine_herd_ties_are_split_and_counted():
    variant = find_variant("swine-herd", goal=20)
    result = simulate(variant, [HoldAt(10), HoldAt(10), HoldAt(10)], 30, seed=0)
    assert sum(result.wins) == pytest.approx(30)
    # identical robots on one shared die sit together, so every game is a three-way tie
    assert result.ties == 30
    assert result.wins == pytest.approx([10, 10, 10])


def test_hog_thirty_dice_lose_to_three():
    # Seed 003: thirty dice score only with probability (5/6)^30, about 0.4%.
    variant = find_variant("hog", goal=10, max_dice=30)
    result = simulate(variant, parse_players("dice:30,dice:3", variant), 20, seed=0)
    assert result.wins[1] > result.wins[0]
    assert result.mean_turns >= 2


def test_mean_turns_counts_every_players_turns():
    # rolls:1 with one die in Pig to 2: the first roll that is not a 1 wins, so a game is short
    variant = find_variant("pig", goal=2)
    result = simulate(variant, parse_players("rolls:1,rolls:1", variant), 50, seed=4)
    assert 1 <= result.mean_turns < 3


def test_progress_is_reported_every_hundred_games_and_at_the_end():
    seen: list[int] = []
    simulate(find_variant("pig", goal=10), [HoldAt(5), HoldAt(5)], 250, seed=0, progress=seen.append)
    assert seen == [100, 200, 250]


def test_play_game_is_a_replayable_game_for_deterministic_robots():
    variant = find_variant("big-pig", goal=60)
    robots = [HoldAt(20), HoldAt(15)]
    state = play_game(variant, robots, np.random.default_rng(9))
    assert state.is_terminal()
    assert state.winners is not None


def test_replay_of_robot_actions():
    """A game between robots that use no randomness is its seed plus its actions."""
    variant = find_variant("piggy-six", goal=40)
    robots = [HoldAt(12), HoldAt(8), HoldAt(16)]
    rng = np.random.default_rng(21)
    state = new_game(variant, 3)
    actions = []
    while not state.is_terminal():
        action = robots[state.current].choose(state, rng)
        actions.append(action)
        state, _ = apply(state, action, rng)
    assert replay(variant, 3, 21, actions)[0] == state


@pytest.mark.parametrize("games", [0, -1])
def test_bad_game_counts(games):
    with pytest.raises(BadParameterError, match="games must be at least 1"):
        simulate(find_variant("pig"), [HoldAt(20), HoldAt(20)], games, seed=0)


def test_humans_cannot_be_simulated():
    with pytest.raises(BadStrategyError, match="robots only"):
        simulate(find_variant("pig"), [Human("you"), HoldAt(20)], 1, seed=0)


def test_random_players_simulate():
    result = simulate(find_variant("pig-dice", goal=30), [RandomPlayer(), RandomPlayer(), HoldAt(10)], 20, seed=5)
    assert sum(result.wins) == pytest.approx(20)


def test_swine_herd_robots_choose_without_seeing_each_other():
    seen: list[tuple[int, tuple[bool, ...]]] = []

    class Watcher:
        name = "watcher"

        def choose(self, state, rng):
            seen.append((state.rolls_this_turn, state.standing))
            return Hold() if state.current == 0 and state.turn_total > 0 else Roll()

    variant = find_variant("swine-herd", goal=20)
    watcher = Watcher()
    simulate(variant, [watcher, watcher], 3, seed=2)
    # seat 0 sits at its first choice; seat 1, choosing at the same moment, still sees it standing
    firsts = [standing for rolls, standing in seen if rolls == 1]
    assert firsts and all(standing == (True, True) for standing in firsts)


def test_swine_herd_without_the_house_rule_says_why_perfect_players_never_finish(monkeypatch):
    import pigdice.study.simulate as simulate_module
    from pigdice.players.optimal import Optimal

    monkeypatch.setattr(simulate_module, "MAX_STEPS", 2_000)
    variant = find_variant("swine-herd", goal=10, at_goal="roll-on")
    with pytest.raises(BadParameterError, match="house rule"):
        play_game(variant, [Optimal(variant), Optimal(variant)], np.random.default_rng(1))
    house = find_variant("swine-herd", goal=10)
    ended = play_game(house, [Optimal(house), Optimal(house)], np.random.default_rng(1))
    assert ended.winners == (0, 1)  # with it, equals stand together until the goal seats them: a shared win
