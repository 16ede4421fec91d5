"""The environments' options: seats per episode, opponent pools, self-play, exact observations, holding at the goal."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test

from pigdice.engine.game import new_game
from pigdice.envs import PigdiceEnv, aec_env, parallel_env
from pigdice.envs.encoding import observe_exact
from pigdice.errors import BadParameterError, BadStrategyError, IllegalActionError
from pigdice.rules import find_variant

pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
]

GOAL = 20


def play(env: PigdiceEnv, seed: int, choose: Any = None) -> list[np.ndarray]:
    """Play one game rolling below a turn total of 6 (or as ``choose`` says); return the observations seen."""
    observation, _ = env.reset(seed=seed)
    seen = [observation]
    done = False
    while not done:
        action = choose(observation) if choose else int(env.state.turn_total >= 6)
        observation, _, terminated, truncated, _ = env.step(action)
        seen.append(observation)
        done = terminated or truncated
    return seen


def test_a_random_seat_is_drawn_per_episode_from_the_seed() -> None:
    env = PigdiceEnv("pig", "hold:10,keep-pace", seat="random", goal=GOAL)
    seats = [env.reset(seed=seed)[1]["seat"] for seed in range(60)]
    assert set(seats) == {0, 1, 2}
    assert [env.reset(seed=seed)[1]["seat"] for seed in range(60)] == seats
    env.reset(seed=4)
    assert env.state.current == env.seat or env.state.is_terminal()  # the robots before it have moved


def test_a_pool_draws_one_line_up_per_episode_by_weight() -> None:
    env = PigdiceEnv("pig", {"hold:10": 3, "keep-pace": 1}, goal=GOAL)
    drawn = Counter(env.reset(seed=seed) and env.robots[0].name for seed in range(400))
    assert set(drawn) == {"hold:10", "keep-pace"}
    assert abs(drawn["hold:10"] / 400 - 0.75) < 0.1  # 4.6 standard errors
    listed = PigdiceEnv("pig", [["hold:10"], ["keep-pace"]], goal=GOAL)
    assert {listed.reset(seed=seed) and listed.robots[0].name for seed in range(40)} == {"hold:10", "keep-pace"}


def test_self_play_asks_the_opponent_policy_from_its_own_seat() -> None:
    asked: list[np.ndarray] = []

    def cautious(observation: np.ndarray, mask: np.ndarray) -> int:
        asked.append(observation)
        assert mask.tolist() == [True, True]
        return 1 if observation[0] >= 4 else 0  # hold at a turn total of 4 (the exact observation's first number)

    env = PigdiceEnv("pig", "self", goal=GOAL, observation="exact")
    assert env.robots[0].name == "self"
    env.set_opponent(cautious)
    play(env, seed=3)
    assert asked, "the opponent was asked"
    assert all(obs[0] <= 3 + 6 for obs in asked)  # it held once at 4 or more: it rolled on from 3 at most
    state = env.state
    assert all(len(obs) == 8 for obs in asked)
    assert state.scores[1] == 0 or any(obs[2] > 0 for obs in asked)  # its own score comes first in its view


def test_opponents_may_be_strategies_and_policies_in_one_line_up() -> None:
    env = PigdiceEnv("pig", ["hold:10", lambda observation, mask: 1], goal=GOAL)
    assert env.players == 3
    play(env, seed=1)
    assert env.state.scores[2] == 0  # always holding at a turn total of 0 never scores


def test_the_exact_observation_is_only_what_exact_evaluation_reads() -> None:
    env = PigdiceEnv("pig", "hold:10", goal=GOAL, observation="exact")
    assert env.observation_space.shape == (8,)
    for observation in play(env, seed=2):
        assert observation.shape == (8,)
    state = replace(new_game(find_variant("pig", goal=GOAL), 2), scores=(7, 12), turn_total=5, rolls_this_turn=3)
    assert observe_exact(state, 0).tolist() == [5, 0, 7, 0, 1, 12, 0, 1]
    assert observe_exact(state, 1).tolist() == [5, 0, 12, 0, 1, 7, 0, 1]


def test_at_the_goal_the_gymnasium_learner_holds_without_being_asked() -> None:
    always_roll = lambda _observation: 0  # noqa: E731
    held = PigdiceEnv("pig", "hold:10", goal=GOAL)
    for seed in range(10):
        for observation in play(held, seed, always_roll)[:-1]:
            assert observation[4] + observation[1] < GOAL  # never asked once score + turn total reach the goal
    rolling = PigdiceEnv("pig", "hold:10", goal=GOAL, hold_at_goal=False)
    asked_at_goal = [
        obs for seed in range(10) for obs in play(rolling, seed, lambda o: int(o[4] + o[1] >= GOAL + 5))[:-1]
    ]
    assert any(obs[4] + obs[1] >= GOAL for obs in asked_at_goal)


def position_at_goal(players: int = 2) -> Any:
    """Return a Pig position where player 0 has reached the goal with its turn total."""
    return replace(new_game(find_variant("pig", goal=GOAL), players), scores=(15, 3), turn_total=6)


def test_at_the_goal_pettingzoo_offers_only_hold_and_refuses_a_roll() -> None:
    env = aec_env(variant="pig", goal=GOAL)
    env.reset(seed=0)
    env.state = position_at_goal()
    assert env.observe("player_0")["action_mask"].tolist() == [0, 1]
    with pytest.raises(IllegalActionError, match="reached the goal"):
        env.step(0)
    free = aec_env(variant="pig", goal=GOAL, hold_at_goal=False)
    free.reset(seed=0)
    free.state = position_at_goal()
    assert free.observe("player_0")["action_mask"].tolist() == [1, 1]
    free.step(0)  # rolling on is allowed


@pytest.mark.parametrize("hold_at_goal", [True, False])
def test_pettingzoo_and_openspiel_offer_the_same_actions(hold_at_goal: bool) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import pigdice.envs.openspiel  # noqa: F401 (registers the game)

    game = pyspiel.load_game("python_pigdice", {"variant": "pig", "goal": 10, "hold_at_goal": hold_at_goal})
    env = aec_env(variant="pig", goal=10, hold_at_goal=hold_at_goal)
    env.reset(seed=0)
    rng = np.random.default_rng(5)
    compared = 0
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, chances = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=chances)))
                continue
            env.state = state.position
            assert np.flatnonzero(env.legal(state.position.current)).tolist() == state.legal_actions()
            compared += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert compared > 50


def test_pettingzoo_api_test_passes_with_the_options() -> None:
    api_test(aec_env(variant="pig", players=3, goal=GOAL, observation="exact", hold_at_goal=False), num_cycles=100)


def test_the_human_render_mode_prints_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    env = PigdiceEnv("pig", "hold:10", goal=GOAL, render_mode="human")
    env.reset(seed=1)
    assert env.render() is None
    env.step(0)
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 3 and all(line.startswith("player 0:") for line in printed)
    assert PigdiceEnv("pig", "hold:10", goal=GOAL, render_mode="ansi").render() is not None
    herd = parallel_env(players=2, goal=GOAL, render_mode="human")
    herd.reset(seed=1)
    herd.step(dict.fromkeys(herd.agents, 0))
    assert "standing" in capsys.readouterr().out or herd.state.is_terminal()


@pytest.mark.parametrize(
    ("make", "error", "words"),
    [
        (lambda: PigdiceEnv("pig", seat="middle"), BadParameterError, "seat must be"),
        (lambda: PigdiceEnv("pig", seat=1.0), BadParameterError, "seat must be"),
        (lambda: PigdiceEnv("pig", observation="partial"), BadParameterError, "observation must be"),
        (lambda: PigdiceEnv("pig", hold_at_goal="yes"), BadParameterError, "hold_at_goal must be"),
        (lambda: PigdiceEnv("pig", {}), BadParameterError, "at least one line-up"),
        (lambda: PigdiceEnv("pig", {"hold:10": -1}), BadParameterError, "positive number"),
        (lambda: PigdiceEnv("pig", {"hold:10": float("nan")}), BadParameterError, "positive number"),
        (lambda: PigdiceEnv("pig", {"hold:10": 1, "hold:10,keep-pace": 1}), BadParameterError, "as many players"),
        (lambda: PigdiceEnv("pig", "hold:10,,keep-pace"), BadParameterError, "empty name"),
        (lambda: PigdiceEnv("pig", [object()]), BadStrategyError, "an opponent is"),
        (lambda: PigdiceEnv("pig", "hold:10").set_opponent("optimal"), BadParameterError, "opponents='self'"),
        (lambda: aec_env(variant="pig", observation="full-ish"), BadParameterError, "observation must be"),
        (lambda: aec_env(variant="pig", hold_at_goal=1), BadParameterError, "hold_at_goal must be"),
        (lambda: parallel_env(hold_at_goal=None), BadParameterError, "hold_at_goal must be"),
        (lambda: parallel_env(render_mode="rgb_array"), BadParameterError, "render_mode"),
    ],
)
def test_bad_options_are_clear_errors(make: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        make()
