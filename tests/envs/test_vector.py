"""The batched environment: the same games as PigdiceEnv for the same seeds, the VectorEnv API, bad input."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from pigdice.envs.aec import aec_env
from pigdice.envs.gym import PigdiceEnv
from pigdice.envs.vector import PigdiceVectorEnv, generator_words
from pigdice.envs.vector_kernels import draw_doubles
from pigdice.envs.vector_seats import PigdiceSeatsBatch
from pigdice.errors import BadParameterError, BadStrategyError, IllegalActionError
from pigdice.rules import find_variant
from pigdice.rules.registry import all_variants
from pigdice.rules.variant import Decision

TURN_BASED = [v for v in all_variants() if not v.is_simultaneous]
GOAL = 30  # small goals keep a game a few dozen moves long
GAMES = 4
EPISODES = 2  # the second game of each row continues its dice, as PigdiceEnv.reset() without a seed does


def robot_for(name: str) -> str:
    """Return a robot spec the kernel plays in every variant: dice:3 where one throw makes a turn, else hold:12."""
    return "dice:3" if find_variant(name).decision is Decision.DICE_PER_TURN else "hold:12"


def first_legal(mask: np.ndarray) -> int:
    """Return the first legal action (0 where there is none): a row whose games are all traced plays on with it."""
    legal = np.flatnonzero(mask)
    return int(legal[0]) if legal.size else 0


def learner(rng: np.random.Generator, mask: np.ndarray) -> int:
    """Return a random legal action that holds a quarter of the time (0 where there is none)."""
    legal = np.flatnonzero(mask)
    if legal.size == 0:
        return 0
    if rng.random() < 0.25:
        return int(legal[-1])
    return int(legal[rng.integers(legal.size)])


def single_trace(settings: dict[str, Any], seed: int, row: int) -> list[tuple[Any, ...]]:
    """Return what PigdiceEnv shows over ``EPISODES`` games from ``seed``: observations, masks, rewards, ends."""
    env = PigdiceEnv(**settings)
    rng = np.random.default_rng(1000 + row)
    observation, info = env.reset(seed=seed)
    trace: list[tuple[Any, ...]] = []
    for episode in range(EPISODES):
        if episode:
            observation, info = env.reset()
        trace.append(("reset", observation.tolist(), info["action_mask"].tolist()))
        while True:
            action = learner(rng, info["action_mask"])
            observation, reward, terminated, truncated, info = env.step(action)
            trace.append((action, observation.tolist(), reward, terminated, truncated, info["action_mask"].tolist()))
            if terminated or truncated:
                break
    return trace


def vector_traces(settings: dict[str, Any], seed: int) -> list[list[tuple[Any, ...]]]:
    """Return what each row of the vector env shows over ``EPISODES`` games (next-step autoreset)."""
    env = PigdiceVectorEnv(GAMES, **settings)
    rngs = [np.random.default_rng(1000 + row) for row in range(GAMES)]
    traces: list[list[tuple[Any, ...]]] = [[] for _ in range(GAMES)]
    observations, info = env.reset(seed=seed)
    for row in range(GAMES):
        traces[row].append(("reset", observations[row].tolist(), info["action_mask"][row].tolist()))
    finished = [0] * GAMES
    restarting = [False] * GAMES
    while min(finished) < EPISODES:
        playing = [not restarting[row] and finished[row] < EPISODES for row in range(GAMES)]
        actions = [
            learner(rngs[row], info["action_mask"][row]) if playing[row] else first_legal(info["action_mask"][row])
            for row in range(GAMES)
        ]
        observations, rewards, terminated, truncated, info = env.step(np.array(actions))
        for row in range(GAMES):
            mask = info["action_mask"][row].tolist()
            if restarting[row]:
                traces[row].append(("reset", observations[row].tolist(), mask))
                restarting[row] = False
            elif playing[row]:
                ended = bool(terminated[row] or truncated[row])
                step = (actions[row], observations[row].tolist(), float(rewards[row]), bool(terminated[row]))
                traces[row].append((*step, bool(truncated[row]), mask))
                finished[row] += ended
                restarting[row] = ended and finished[row] < EPISODES
    return traces


CASES = [
    *({"variant": v.name, "opponents": robot_for(v.name), "goal": GOAL} for v in TURN_BASED),
    {"variant": "pig", "opponents": "hold:10,hold:25", "goal": GOAL, "endgame": "final-round", "seat": 1},
    {"variant": "pig", "opponents": "hold:10,hold:25", "goal": GOAL, "endgame": "equal-turns", "seat": 2},
    {"variant": "pig", "opponents": "hold:8", "goal": GOAL, "endgame": "equal-turns", "ties": "first-to-reach"},
    {"variant": "two-dice-pig", "opponents": "hold:15", "goal": 50, "endgame": "final-round", "ties": "shared"},
    {"variant": "hog-reroll", "opponents": "hold:12+dice:3", "goal": 40, "endgame": "equal-turns"},
    {"variant": "hog", "opponents": "dice:4,dice:6", "goal": GOAL, "endgame": "final-round", "seat": 1},
    {"variant": "pig", "opponents": "hold:5", "goal": 5, "seat": 1},  # the robot often wins before the learner moves
    {"variant": "pig", "opponents": "optimal", "goal": 40, "seat": 1},
    {"variant": "hog", "opponents": "optimal", "goal": GOAL},
    {"variant": "big-pig", "opponents": "optimal", "goal": GOAL},
    # at the goal the learner is asked too (it may roll past it), and the robots decide for themselves
    {"variant": "pig", "opponents": "hold:25", "goal": GOAL, "hold_at_goal": False},
    {"variant": "two-dice-pig", "opponents": "optimal", "goal": GOAL, "hold_at_goal": False},
]


@pytest.fixture(scope="module")
def compiled_vector_kernels() -> None:
    """Play one step of a batch, so a cold numba cache compiles the batch's kernels here and not in a test."""
    env = PigdiceVectorEnv(GAMES, "pig", "hold:12", goal=GOAL)
    env.reset(seed=0)
    env.step(np.zeros(GAMES, dtype=np.int64))


@pytest.mark.usefixtures("compiled_vector_kernels")
@pytest.mark.parametrize("settings", CASES, ids=lambda s: "-".join(str(v) for v in s.values()))
def test_the_same_games_as_the_single_env_for_the_same_seeds(settings: dict[str, Any]) -> None:
    seed = 41
    traces = vector_traces(settings, seed)
    for row in range(GAMES):
        assert traces[row] == single_trace(settings, seed + row, row), f"game {row}"


def test_pig_dice_final_roll_and_its_mask() -> None:
    variant = find_variant("pig").with_goal(10).with_endgame("final-round", final_turn="roll")
    settings: dict[str, Any] = {"variant": variant, "opponents": "hold:10", "seat": 1}
    env = PigdiceVectorEnv(64, **settings)
    observations, info = env.reset(seed=5)
    final_roll = np.flatnonzero((observations[:, 3] == 1) & (info["action_mask"].sum(axis=1) == 1))
    assert final_roll.size, "some robot reaches 10 in its first turn"
    assert (info["action_mask"][final_roll] == [1, 0]).all()  # a final roll: no hold
    for row in final_roll[:3]:
        single = PigdiceEnv(**settings)
        observation, single_info = single.reset(seed=5 + int(row))
        assert observation.tolist() == observations[row].tolist()
        assert single_info["action_mask"].tolist() == [1, 0]
    with pytest.raises(IllegalActionError, match=f"game {final_roll[0]}: action 1 is not allowed"):
        env.step(np.ones(64, dtype=np.int64))


def test_same_step_autoreset_keeps_the_last_observation() -> None:
    settings: dict[str, Any] = {"variant": "pig", "opponents": "hold:20", "goal": GOAL}
    env = PigdiceVectorEnv(3, autoreset_mode="same-step", **settings)
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    singles = [PigdiceEnv(**settings) for _ in range(3)]
    observations, _ = env.reset(seed=[7, 8, 9])
    for single, seed in zip(singles, [7, 8, 9], strict=True):
        single.reset(seed=seed)
    ends = 0
    for _ in range(200):
        observations, rewards, terminated, _, info = env.step(np.ones(3, dtype=np.int64))  # always hold
        for row, single in enumerate(singles):
            observation, reward, ended, _, _ = single.step(1)
            assert rewards[row] == reward and terminated[row] == ended
            if ended:
                ends += 1
                assert info["_final_obs"][row] and info["final_obs"][row].tolist() == observation.tolist()
                observation, _ = single.reset()
            assert observations[row].tolist() == observation.tolist()
    assert ends >= 3


def test_the_dice_are_numpys_default_generator() -> None:
    for seed in (0, 1, 2**70 + 3):
        rng = np.array([generator_words(seed)], dtype=np.uint64)
        drawn = np.empty(500)
        draw_doubles(rng, 0, 500, drawn)
        assert drawn.tolist() == np.random.default_rng(seed).random(500).tolist()


def test_the_vector_env_api() -> None:
    env = PigdiceVectorEnv(8, "two-dice-pig", "hold:20", goal=50, hold_at_goal=False)
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert env.action_space == gym.spaces.MultiDiscrete([2] * 8)
    observations, info = env.reset(seed=3)
    assert observations in env.observation_space
    assert env.action_masks().shape == (8, 2) and env.action_masks().dtype == bool
    assert (env.action_masks() == info["action_mask"].astype(bool)).all()
    first, _ = env.reset(seed=3)
    again, _ = env.reset(seed=3)
    assert first.tolist() == again.tolist() == observations.tolist()
    returns = np.zeros(8)
    for _ in range(300):
        observations, rewards, _, truncated, info = env.step(np.zeros(8, dtype=np.int64))  # never hold
        returns += rewards
        assert not truncated.any()
    assert returns.sum() == 0.0  # a player who never holds never wins


def test_the_registered_vector_env() -> None:
    env = gym.make_vec("pigdice/PigdiceVector-v0", num_envs=2, vectorization_mode="vector_entry_point", goal=GOAL)
    assert env.num_envs == 2
    observations, _ = env.reset(seed=0)
    assert observations.shape == (2, 12)


@pytest.mark.parametrize(
    ("actions", "error", "words"),
    [
        (np.zeros(3, dtype=np.int64), BadParameterError, "shape"),
        (np.zeros((4, 1), dtype=np.int64), BadParameterError, "shape"),
        (np.array([0, 2, 0, 0]), IllegalActionError, "game 1: action 2 is out of range"),
        (np.array([0, -1, 0, 0]), IllegalActionError, "out of range"),
        (np.zeros(4), IllegalActionError, "whole numbers"),
        (np.zeros(4, dtype=bool), IllegalActionError, "whole numbers"),
    ],
)
def test_bad_actions_are_refused(actions: np.ndarray, error: type[Exception], words: str) -> None:
    env = PigdiceVectorEnv(4, "pig", "hold:20", goal=GOAL)
    env.reset(seed=0)
    with pytest.raises(error, match=words):
        env.step(actions)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(BadParameterError, match="swine-herd"):
        PigdiceVectorEnv(4, "swine-herd", "hold:10")
    with pytest.raises(BadStrategyError, match="keep-pace"):
        PigdiceVectorEnv(4, "pig", "keep-pace")
    with pytest.raises(BadStrategyError, match="optimal in 3-player"):
        PigdiceVectorEnv(4, "pig", "optimal,hold:20", goal=GOAL)
    with pytest.raises(BadParameterError, match="num_envs"):
        PigdiceVectorEnv(0)
    with pytest.raises(BadParameterError, match="autoreset_mode"):
        PigdiceVectorEnv(4, "pig", "hold:20", autoreset_mode="sometimes")
    env = PigdiceVectorEnv(4, "pig", "hold:20", goal=GOAL)
    with pytest.raises(BadParameterError, match="reset"):
        env.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(BadParameterError, match="4 seeds, not 2"):
        env.reset(seed=[1, 2])
    with pytest.raises(BadParameterError, match="seed"):
        env.reset(seed=-1)
    with pytest.raises(BadParameterError, match="reset_mask"):
        env.reset(options={"reset_mask": np.ones(3, dtype=bool)})


def aec_trace(settings: dict[str, Any], seed: int, row: int) -> list[tuple[Any, ...]]:
    """Return what the AEC environment shows over ``EPISODES`` games from ``seed``: every seat's view, the mover,
    its mask, the rewards and the ends."""
    env = aec_env(**settings)
    agents = env.possible_agents
    rng = np.random.default_rng(2000 + row)
    trace: list[tuple[Any, ...]] = []

    def seen() -> tuple[Any, ...]:
        views = [env.observe(agent)["observation"].tolist() for agent in agents]
        mover = agents.index(env.agent_selection)
        return views, mover, env.observe(env.agent_selection)["action_mask"].tolist()

    env.reset(seed=seed)
    for episode in range(EPISODES):
        if episode:
            env.reset()
        trace.append(("reset", *seen()))
        while True:
            action = learner(rng, np.array(env.observe(env.agent_selection)["action_mask"]))
            env.step(action)
            rewards = [env.rewards[agent] for agent in agents]
            ended = env.terminations[agents[0]]
            views, mover, mask = seen()
            trace.append((action, views, mover, [0] * len(mask) if ended else mask, rewards, ended))
            if ended or env.truncations[agents[0]]:
                break
    return trace


def seats_traces(settings: dict[str, Any], seed: int) -> list[list[tuple[Any, ...]]]:
    """Return what each row of the every-seat batch shows over ``EPISODES`` games."""
    batch = PigdiceSeatsBatch(GAMES, **settings)
    rngs = [np.random.default_rng(2000 + row) for row in range(GAMES)]
    traces: list[list[tuple[Any, ...]]] = [[] for _ in range(GAMES)]
    observations, info = batch.reset(seed=seed)
    for row in range(GAMES):
        traces[row].append(
            ("reset", observations[row].tolist(), int(info["mover"][row]), info["action_mask"][row].tolist())
        )
    finished = [0] * GAMES
    restarting = [False] * GAMES
    while min(finished) < EPISODES:
        playing = [not restarting[row] and finished[row] < EPISODES for row in range(GAMES)]
        actions = [
            learner(rngs[row], info["action_mask"][row]) if playing[row] else first_legal(info["action_mask"][row])
            for row in range(GAMES)
        ]
        observations, rewards, terminated, truncated, info = batch.step(np.array(actions))
        for row in range(GAMES):
            seen = (observations[row].tolist(), int(info["mover"][row]), info["action_mask"][row].tolist())
            if restarting[row]:
                traces[row].append(("reset", *seen))
                restarting[row] = False
            elif playing[row]:
                traces[row].append((actions[row], *seen, rewards[row].tolist(), bool(terminated[row])))
                ended = bool(terminated[row] or truncated[row])
                finished[row] += ended
                restarting[row] = ended and finished[row] < EPISODES
    return traces


SEAT_CASES = [
    {"variant": "pig", "players": 2, "goal": GOAL},
    {"variant": "pig", "players": 3, "goal": GOAL, "endgame": "final-round"},
    {"variant": "two-dice-pig", "players": 4, "goal": GOAL, "endgame": "equal-turns", "ties": "first-to-reach"},
    {"variant": "hog", "players": 3, "goal": GOAL},
    {"variant": "pig-dice", "players": 2, "goal": GOAL},
    {"variant": "pig", "players": 3, "goal": GOAL, "hold_at_goal": False},  # rolling past the goal allowed
]


@pytest.mark.parametrize("settings", SEAT_CASES, ids=lambda s: "-".join(str(v) for v in s.values()))
def test_every_seat_batch_plays_the_aec_games(settings: dict[str, Any]) -> None:
    seed = 17
    traces = seats_traces(settings, seed)
    for row in range(GAMES):
        assert traces[row] == aec_trace(settings, seed + row, row), f"game {row}"


def test_every_seat_batch_refuses_bad_input() -> None:
    with pytest.raises(BadParameterError, match="swine-herd"):
        PigdiceSeatsBatch(4, "swine-herd", players=3)
    batch = PigdiceSeatsBatch(4, "pig", players=3, goal=GOAL)
    with pytest.raises(BadParameterError, match="reset"):
        batch.step(np.zeros(4, dtype=np.int64))
    batch.reset(seed=1)
    with pytest.raises(BadParameterError, match="shape"):
        batch.step(np.zeros(5, dtype=np.int64))
    with pytest.raises(IllegalActionError, match="out of range"):
        batch.step(np.full(4, 2))
