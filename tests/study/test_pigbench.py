"""Pig-Bench: a tiny run writes every file, its figures are pigdice.evaluate's, and its pieces behave."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pigdice.errors import BadParameterError, PigdiceError, UnknownVariantError
from pigdice.players.specs import parse_strategy
from pigdice.players.tables import action_table
from pigdice.rules import find_variant
from pigdice.solve.solver import solve
from pigdice.solve.two.headtohead import head_to_head
from pigdice.study.agent_evaluation import evaluate
from pigdice.study.pigbench import BASELINES, BenchSettings, run_bench, write_board
from pigdice.study.pigbench.env import BenchEnv
from pigdice.study.pigbench.neural import model_table
from pigdice.study.pigbench.positions import observations
from pigdice.study.pigbench.tabular import TurnQLearner, tabular_learner

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

GOAL = 12


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, Path]:
    """Run every baseline on Pig to 12 for a few hundred steps; write the files."""
    settings = BenchSettings(("pig",), BASELINES, tabular_steps=400, neural_steps=300, points=3, seed=5, goal=GOAL)
    fractions: list[float] = []
    board = run_bench(settings, lambda fraction, _label: fractions.append(fraction))
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    folder = tmp_path_factory.mktemp("bench")
    write_board(board, str(folder))
    return board, folder


def test_a_tiny_run_writes_markdown_json_and_curves(tiny: tuple[object, Path]) -> None:
    _, folder = tiny
    page = (folder / "leaderboard.md").read_text(encoding="utf-8")
    data = json.loads((folder / "leaderboard.json").read_text(encoding="utf-8"))
    assert (folder / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "# Pig-Bench leaderboard" in page and "## Pig (to 12)" in page
    assert data["seed"] == 5 and data["date"] and data["machine"]["cores"]
    assert data["settings"]["neural_steps"] == 300
    (variant,) = data["variants"]
    assert {e["baseline"] for e in variant["entries"]} == set(BASELINES)
    for entry in variant["entries"]:
        assert f"{entry['average']:.6f}" in page  # every figure of the JSON is on the page
        assert entry["gap"] >= -1e-12


def test_the_figures_are_pigdice_evaluate_s(tiny: tuple[object, Path]) -> None:
    board, _ = tiny
    (variant,) = board.boards  # type: ignore[attr-defined]
    for entry in variant.entries:
        agent = entry.table if entry.table is not None else entry.agent
        expected = evaluate(agent, "pig", goal=GOAL)
        assert entry.seats == pytest.approx(expected.seats, abs=1e-12)
        assert entry.gap == pytest.approx(expected.gap, abs=1e-12)
        if entry.curve:  # a learner: its last curve point is the table evaluated
            assert entry.curve[-1].steps == entry.steps
            assert entry.curve[-1].average == pytest.approx(expected.average, abs=1e-9)


def test_the_best_hold_beats_every_other_hold(tiny: tuple[object, Path]) -> None:
    board, _ = tiny
    (variant,) = board.boards  # type: ignore[attr-defined]
    best = next(e for e in variant.entries if e.baseline == "hold")
    pig = find_variant("pig", goal=GOAL)
    optimal = solve(pig).action_table()
    chances = [head_to_head(pig, action_table(parse_strategy(f"hold:{n}", pig), pig), optimal).average
               for n in range(1, GOAL + 1)]  # fmt: skip
    assert best.average == pytest.approx(max(chances), abs=1e-12)
    assert best.agent == f"hold:{1 + int(np.argmax(chances))}"


def test_a_baseline_that_does_not_fit_says_why() -> None:
    board = run_bench(BenchSettings(("hog",), ("keep-pace", "hold"), goal=10))
    entries = {e.baseline: e for e in board.boards[0].entries}
    assert not entries["keep-pace"].applies and "one throw per turn" in entries["keep-pace"].note
    assert entries["hold"].agent.startswith("dice:") and entries["hold"].gap is not None


def test_the_turn_learner_learns_hog() -> None:
    hog = find_variant("hog", goal=10)
    learner = tabular_learner(hog, np.random.default_rng(1))
    assert isinstance(learner, TurnQLearner)
    optimal = solve(hog).action_table()
    before = head_to_head(hog, learner.action_table(), optimal).average
    learner.train(300_000)
    after = head_to_head(hog, learner.action_table(), optimal).average
    assert learner.games > 1000 and after > before + 0.02
    again = tabular_learner(hog, np.random.default_rng(1))
    again.train(100_000)
    again.train(200_000)
    assert np.array_equal(again.q, learner.q)  # training in pieces gives the same table


def test_the_env_plays_a_random_seat_and_shows_the_position() -> None:
    pig = find_variant("pig", goal=GOAL)
    env = BenchEnv(pig, solve(pig).action_table())
    seats = set()
    for seed in range(12):
        observation, _ = env.reset(seed=seed)
        seats.add(env.seat)
        state = env.state
        mine, theirs = (min(state.scores[seat], GOAL) for seat in (env.seat, 1 - env.seat))
        expected = observations(GOAL, np.array([mine]), np.array([theirs]), np.array([state.turn_total]))[0]
        assert np.array_equal(observation, expected)
        assert state.winners is not None or state.current == env.seat  # the perfect player may win before
        done = False
        while not done:
            _, reward, done, truncated, _ = env.step(np.array(7))  # out of range: the first legal action (roll)
            assert not truncated
        assert reward in (0.0, 1.0) and (reward == 1.0) == (env.state.winners == (env.seat,))
    assert seats == {0, 1}


class Always:
    """A fake model that answers the same action everywhere."""

    def __init__(self, action: int) -> None:
        self.action = action

    def predict(self, observations: np.ndarray, **_: object) -> tuple[np.ndarray, None]:
        return np.full(len(observations), self.action), None


def test_a_network_is_tabulated_at_every_position_evaluation_reads() -> None:
    pig = find_variant("pig", goal=GOAL)
    holds = model_table(Always(1), pig, masked=True)  # Pig: 0 rolls, 1 holds
    i, _, k = np.ogrid[:GOAL, :GOAL, :GOAL]
    inside = np.broadcast_to(i + k < GOAL, holds.shape)
    assert np.all(holds[inside] == 0) and np.all(model_table(Always(0), pig, masked=False)[inside] == 1)
    hog = find_variant("hog", goal=GOAL)
    three = model_table(Always(2), hog, masked=True)  # Hog: action 2 throws 3 dice (code 3)
    assert np.all(three == 3)


@pytest.mark.parametrize(
    ("settings", "error", "words"),
    [
        (BenchSettings(("pig", "nope")), UnknownVariantError, "nope"),
        (BenchSettings(baselines=("hold", "alphazero")), BadParameterError, "alphazero"),
        (BenchSettings(("swine-herd",)), PigdiceError, "turn"),
        (BenchSettings(neural_steps=0), BadParameterError, "neural steps"),
    ],
)
def test_bad_settings_are_one_clear_error(settings: BenchSettings, error: type, words: str) -> None:
    with pytest.raises(error, match=words):
        run_bench(settings)


@pytest.mark.parametrize("kind", ["ppo", "dqn"])
def test_a_network_trains_without_leaving_a_log_folder_behind(kind, tmp_path, monkeypatch) -> None:
    import tempfile

    from pigdice.study.pigbench.neural import make_model

    monkeypatch.delenv("SB3_LOGDIR", raising=False)  # the library's default: a new folder in the temporary folder
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    variant = find_variant("pig", goal=GOAL)
    env = BenchEnv(variant, action_table(parse_strategy("hold:5", variant), variant))
    make_model(kind, env, seed=0, total=64).learn(64)
    assert not list(tmp_path.glob("SB3-*"))
