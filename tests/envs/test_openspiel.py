"""The OpenSpiel game python_pigdice: OpenSpiel's API checks for every turn-based variant, and Pig equal to ``pig``."""

from __future__ import annotations

import math
import pickle
import re
from collections.abc import Callable

import numpy as np
import pyspiel
import pytest

from pigdice.envs import openspiel
from pigdice.envs.encoding import action_count, observe
from pigdice.errors import BadParameterError, UnknownVariantError
from pigdice.rules import all_variants, find_variant

NAME = openspiel.GAME_NAME
TURN_BASED = [variant.name for variant in all_variants() if not variant.is_simultaneous]

Features = tuple[tuple[int, ...], int, int]  # scores, turn total, player whose turn it is
Policy = Callable[[Features, list[int]], dict[int, float]]


def load(**params: object) -> pyspiel.Game:
    """Return python_pigdice with the given parameters."""
    return pyspiel.load_game(NAME, params)


# -- OpenSpiel's own conformance checks ------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("variant", TURN_BASED)
def test_random_simulations_pass_openspiels_checks_for_every_variant(variant: str, players: int) -> None:
    game = load(variant=variant, goal=20, players=players)
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)


@pytest.mark.parametrize(
    "params",
    [
        {"endgame": "final-round"},
        {"endgame": "final-round", "ties": "first-to-reach"},
        {"endgame": "final-round", "final_turn": "roll"},
        {"endgame": "equal-turns"},
        {"variant": "piggy-six-3dice", "endgame": "first-to-goal"},
        {"hold_at_goal": False},
        {"horizon": 5},
        {"variant": "hog-reroll", "max_dice": 3, "endgame": "equal-turns"},
    ],
)
def test_random_simulations_pass_for_other_endgames_and_settings(params: dict[str, object]) -> None:
    game = load(goal=20, players=3, **params)
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)


# -- the same game as OpenSpiel's pig ----------------------------------------------------------------


def pig_features(state: pyspiel.State) -> Features:
    """Read scores, turn total and the player whose turn it is from pig's text ('Scores: 3 0, Turn total: 5...')."""
    match = re.match(r"Scores: ([\d ]+), Turn total: (\d+)\nCurrent player: (\d+)", str(state))
    assert match is not None, str(state)
    return tuple(int(s) for s in match.group(1).split()), int(match.group(2)), int(match.group(3))


def our_features(state: pyspiel.State) -> Features:
    """Read scores, turn total and the player whose turn it is from python_pigdice's engine state."""
    position = state.position
    return position.scores, position.turn_total, position.current


def hold_at_5(features: Features, legal: list[int]) -> dict[int, float]:
    """Roll until the turn total reaches 5, then hold (0 roll, 1 hold in both games)."""
    _, turn_total, _ = features
    return {1: 1.0} if turn_total >= 5 or legal == [1] else {0: 1.0}


def uniform(features: Features, legal: list[int]) -> dict[int, float]:
    """Choose every legal action equally often."""
    return dict.fromkeys(legal, 1.0 / len(legal))


def exact_returns(
    state: pyspiel.State,
    policy: Policy,
    features: Callable[[pyspiel.State], Features],
    memo: dict[object, np.ndarray],
    decisions: int = 0,
) -> np.ndarray:
    """Return the expected returns of ``state`` when every player follows ``policy``, chance exactly."""
    if state.is_terminal():
        return np.array(state.returns())
    key = (features(state), state.is_chance_node(), decisions)
    if key not in memo:
        total = np.zeros(state.num_players())
        if state.is_chance_node():
            branches, made = state.chance_outcomes(), decisions
        else:
            branches, made = list(policy(features(state), state.legal_actions()).items()), decisions + 1
        for action, probability in branches:
            total += probability * exact_returns(state.child(action), policy, features, memo, made)
        memo[key] = total
    return memo[key]


def our_outcome_of_face() -> dict[int, int]:
    """Return python_pigdice's chance outcome for each die face (pig's outcome o is face o + 1)."""
    spec = find_variant("pig").rolls[0]
    effects = [effect for effect, _ in spec.distribution()]
    return {face: effects.index(spec.throw_faces((face,)).effect) for face in range(1, 7)}


@pytest.mark.parametrize("players", [2, pytest.param(3, marks=pytest.mark.slow)])
@pytest.mark.parametrize("policy", [hold_at_5, uniform])
def test_pig_values_equal_openspiels_pig(players: int, policy: Policy) -> None:
    horizon = 8
    pig = pyspiel.load_game("pig", {"players": players, "winscore": 10, "horizon": horizon})
    ours = load(variant="pig", goal=10, players=players, horizon=horizon)
    theirs = exact_returns(pig.new_initial_state(), policy, pig_features, {})
    mine = exact_returns(ours.new_initial_state(), policy, our_features, {})
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-12)
    assert abs(mine.sum()) < 1e-12 and np.abs(mine).max() > 0.01  # zero-sum, and someone wins now and then


def same_position(theirs: pyspiel.State, mine: pyspiel.State) -> bool:
    """Return True if pig's and our state show the same scores and turn total (and mover, until the game ends)."""
    if theirs.is_terminal():  # pig passes the turn on before it sees the game is over; pigdice does not
        return pig_features(theirs)[:2] == our_features(mine)[:2]
    return pig_features(theirs) == our_features(mine)


@pytest.mark.parametrize("players", [2, 3])
def test_pig_nodes_equal_openspiels_pig_everywhere(players: int) -> None:
    """Walk both trees together (chance outcomes matched by die face): same players, actions, odds, returns."""
    pig = pyspiel.load_game("pig", {"players": players, "winscore": 10, "horizon": 7})
    ours = load(variant="pig", goal=10, players=players, horizon=7)
    outcome = our_outcome_of_face()
    seen: set[object] = set()

    def walk(theirs: pyspiel.State, mine: pyspiel.State, decisions: int) -> None:
        assert same_position(theirs, mine)
        assert theirs.current_player() == mine.current_player()
        assert theirs.is_terminal() == mine.is_terminal()
        assert theirs.returns() == mine.returns()
        key = (pig_features(theirs), theirs.is_chance_node(), decisions)
        if theirs.is_terminal() or key in seen:
            return
        seen.add(key)
        if theirs.is_chance_node():
            odds = dict(mine.chance_outcomes())
            for o, probability in theirs.chance_outcomes():
                assert odds[outcome[o + 1]] == pytest.approx(probability, abs=1e-15)
                walk(theirs.child(o), mine.child(outcome[o + 1]), decisions)
            return
        assert theirs.legal_actions() == mine.legal_actions()
        for action in theirs.legal_actions():
            walk(theirs.child(action), mine.child(action), decisions + 1)

    walk(pig.new_initial_state(), ours.new_initial_state(), 0)
    assert len(seen) > 500


@pytest.mark.parametrize("players", [2, 3])
def test_random_pig_games_end_alike_in_both_games(players: int) -> None:
    pig = pyspiel.load_game("pig", {"players": players, "winscore": 30})
    ours = load(variant="pig", goal=30, players=players)
    outcome = our_outcome_of_face()
    rng = np.random.default_rng(7)
    for _ in range(20):
        theirs, mine = pig.new_initial_state(), ours.new_initial_state()
        while not theirs.is_terminal():
            if theirs.is_chance_node():
                face = int(rng.integers(1, 7))
                theirs.apply_action(face - 1)
                mine.apply_action(outcome[face])
            else:
                assert theirs.legal_actions() == mine.legal_actions()
                action = int(rng.choice(theirs.legal_actions()))
                theirs.apply_action(action)
                mine.apply_action(action)
            assert same_position(theirs, mine)
        assert mine.is_terminal() and mine.returns() == theirs.returns()


def test_the_horizon_counts_player_decisions_as_pig_does() -> None:
    # OpenSpiel's pig with horizon 3: after [roll, chance, stop, roll] the game is over, a draw
    pig = pyspiel.load_game("pig", {"horizon": 3})
    ours = load(horizon=3)
    theirs, mine = pig.new_initial_state(), ours.new_initial_state()
    for their_action, my_action in [(0, 0), (2, our_outcome_of_face()[3]), (1, 1), (0, 0)]:
        assert not theirs.is_terminal() and not mine.is_terminal()
        theirs.apply_action(their_action)
        mine.apply_action(my_action)
    assert theirs.is_terminal() and mine.is_terminal()
    assert mine.returns() == theirs.returns() == [0.0, 0.0]
    assert mine.decisions == 3 and ours.max_game_length() == pig.max_game_length() == 3


def test_three_player_returns_are_zero_sum_as_in_pig() -> None:
    # OpenSpiel's pig, 3 players, winscore 5: roll a 5 and stop; returns [1, -0.5, -0.5]
    pig = pyspiel.load_game("pig", {"players": 3, "winscore": 5})
    ours = load(players=3, goal=5)
    theirs, mine = pig.new_initial_state(), ours.new_initial_state()
    for their_action, my_action in [(0, 0), (4, our_outcome_of_face()[5]), (1, 1)]:
        theirs.apply_action(their_action)
        mine.apply_action(my_action)
    assert mine.returns() == theirs.returns() == [1.0, -0.5, -0.5]
    assert (ours.min_utility(), ours.max_utility(), ours.utility_sum()) == (-0.5, 1.0, 0.0)


def test_tied_winners_share_a_zero_sum_return() -> None:
    # equal turns, ties shared, goal 2: players 0 and 1 bank 2, player 2 busts -> shares 1/2, 1/2, 0
    game = load(players=3, goal=2, endgame="equal-turns", ties="shared")
    state = game.new_initial_state()
    face = our_outcome_of_face()
    for action in [0, face[2], 1, 0, face[2], 1, 0, face[1]]:
        state.apply_action(action)
    assert state.is_terminal() and state.position.winners == (0, 1)
    assert state.returns() == [0.25, 0.25, -0.5]  # (3 * 1/2 - 1) / 2 and (3 * 0 - 1) / 2


# -- chance nodes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", TURN_BASED)
def test_chance_outcomes_are_the_exact_distribution_of_each_roll(variant: str) -> None:
    game = load(variant=variant, goal=20)
    rules = game.rules
    largest = 0
    for choice, spec in enumerate(rules.variant.rolls):
        state = game.new_initial_state()
        state.apply_action(choice)
        assert state.is_chance_node() and state.rolling == choice
        outcomes = state.chance_outcomes()
        exact = spec.distribution()
        assert [o for o, _ in outcomes] == list(range(len(exact)))
        assert [p for _, p in outcomes] == [float(p) for _, p in exact]
        assert sum(p for _, p in exact) == 1 and math.fsum(p for _, p in outcomes) == pytest.approx(1, abs=1e-12)
        largest = max(largest, len(exact))
    assert game.max_chance_outcomes() == largest


def test_chance_outcomes_and_actions_have_readable_names() -> None:
    state = load().new_initial_state()
    assert [state.action_to_string(0, a) for a in (0, 1)] == ["roll", "hold"]
    state.apply_action(0)
    face = our_outcome_of_face()
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, face[1]) == "1: lose the turn total, turn ends"
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, face[4]) == "4: +4"
    assert str(state) == "Scores: 0 0, turn total: 0\nPlayer 0 rolling"
    hog = load(variant="hog", max_dice=3).new_initial_state()
    assert [hog.action_to_string(0, a) for a in hog.legal_actions()] == ["roll 1 die", "roll 2 dice", "roll 3 dice"]


def test_a_chance_outcome_goes_through_the_engine() -> None:
    # Big Pig with 1-1 resetting the score: the reset outcome wipes the banked score out
    game = load(variant="big-pig-reset", goal=100)
    state = game.new_initial_state()
    labels = game.rules.tables[0].labels
    reset = next(i for i, label in enumerate(labels) if label.endswith("lose the whole score, turn ends"))
    plus_8 = next(i for i, label in enumerate(labels) if label.endswith(": +8"))
    for action in [0, plus_8, 1, 0, plus_8, 1, 0, reset]:
        state.apply_action(action)
    assert state.position.scores == (0, 8) and state.current_player() == 1


def test_settings_reach_the_variant() -> None:
    hog = load(variant="hog", max_dice=3)
    assert hog.rules.variant.choices == (1, 2, 3)
    assert hog.num_distinct_actions() == action_count(find_variant("hog", max_dice=3))
    pigs = load(variant="pass-the-pigs", oinker=0.01).new_initial_state()
    pigs.apply_action(0)
    oinker = next(i for i, label in enumerate(pigs.get_game().rules.tables[0].labels) if label.startswith("oinker"))
    assert dict(pigs.chance_outcomes())[oinker] == 0.01
    assert load(variant="pig-dice", final_turn="roll").rules.variant.final_turn == "roll"
    assert load(winscore=30).rules.variant.goal == 30


# -- decisions, observations, copies ------------------------------------------------------------------


def test_only_hold_is_legal_once_holding_wins_a_first_to_goal_game() -> None:
    face = our_outcome_of_face()
    for params, legal in [({}, [1]), ({"hold_at_goal": False}, [0, 1]), ({"endgame": "final-round"}, [0, 1])]:
        state = load(goal=10, **params).new_initial_state()
        for action in [0, face[6], 0, face[4]]:
            state.apply_action(action)
        assert state.legal_actions() == legal, params
    with pytest.raises(Exception, match="not legal now"):
        state = load(goal=10).new_initial_state()
        for action in [0, face[6], 0, face[4], 0]:
            state.apply_action(action)


def test_observations_use_the_shared_encoding_and_information_states_the_history() -> None:
    game = load(players=3, goal=30)
    state = game.new_initial_state()
    for action in [0, 3, 0, 4, 1, 0]:
        state.apply_action(action)
    for player in range(3):
        expected = observe(state.position, player).astype(np.float32)
        np.testing.assert_array_equal(state.observation_tensor(player), expected)
        assert state.information_state_string(player) == state.history_str() == "0, 3, 0, 4, 1, 0"
        assert state.observation_string(player) == str(state)
    assert game.observation_tensor_shape() == [len(observe(state.position, 0))]


def test_games_and_states_pickle_serialize_and_clone() -> None:
    game = load(variant="hog-reroll", goal=40, players=3, max_dice=4)
    again = pickle.loads(pickle.dumps(game))
    assert str(again) == str(game) and again.rules == game.rules  # (pickle keeps only the parameters)
    assert again.new_initial_state().legal_actions() == [0, 1, 2, 3, 4]
    state = game.new_initial_state()
    for action in [2, 5, 0, 1]:
        state.apply_action(action)
    for copy in (
        pickle.loads(pickle.dumps(state)),
        pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1],
    ):
        assert str(copy) == str(state) and copy.history() == state.history()
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert clone.history() == [*state.history(), clone.history()[-1]] and state.history() == [2, 5, 0, 1]
    assert clone.position.variant is state.position.variant  # a clone shares the immutable rules


# -- parameters -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "error", "text"),
    [
        ({"variant": "swine-herd"}, BadParameterError, "pigdice.envs.parallel_env"),
        ({"variant": "piglet"}, UnknownVariantError, "unknown variant 'piglet'; known variants: pig, "),
        ({"goal": -5}, BadParameterError, "goal must be between 1 and"),
        ({"goal": 10, "winscore": 20}, BadParameterError, "goal and winscore name the same thing"),
        ({"players": 11}, BadParameterError, "pig is played by 2 to 10 players, not 11"),
        ({"players": 1}, BadParameterError, "not 1"),
        ({"endgame": "sudden-death"}, BadParameterError, "unknown endgame 'sudden-death'; allowed: first-to-goal"),
        ({"ties": "coin-toss"}, BadParameterError, "unknown ties 'coin-toss'"),
        ({"horizon": 0}, BadParameterError, "horizon"),
        ({"max_dice": 3}, BadParameterError, "pig has no parameter 'max_dice'"),
        ({"variant": "hog", "max_dice": 500}, BadParameterError, "max_dice"),
        ({"variant": "pass-the-pigs", "oinker": 1.5}, BadParameterError, "oinker"),
    ],
)
def test_bad_parameters_raise_pigdice_errors(params: dict[str, object], error: type, text: str) -> None:
    with pytest.raises(error, match=re.escape(text)):
        load(**params)


def test_openspiel_itself_refuses_unknown_names_and_wrong_types() -> None:
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'winning_score'"):
        load(winning_score=10)
    with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter goal"):
        pyspiel.load_game(f"{NAME}(goal=ten)")
    with pytest.raises(BadParameterError, match="no parameter 'winning_score'"):
        openspiel.PigdiceGame({"winning_score": 10})


def test_the_game_loads_from_a_string_with_openspiel_defaults() -> None:
    game = pyspiel.load_game(f"{NAME}(variant=big-pig,goal=50,players=4)")
    assert game.num_players() == 4 and game.rules.variant.name == "big-pig" and game.rules.variant.goal == 50
    default = load()
    assert default.rules.variant.goal == 100 and default.rules.horizon == 1000 and default.num_players() == 2
    assert default.get_type().short_name == NAME and default.num_distinct_actions() == 2
