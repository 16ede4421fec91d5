"""Saved Stable-Baselines3 models evaluated exactly: the same as their exported tables; bad files one clear error."""

from __future__ import annotations

import json
import os
import re
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch", reason="saved models need torch (pip install 'pigdice[learn]')")
pytest.importorskip("stable_baselines3", reason="saved models need Stable-Baselines3 (pip install 'pigdice[learn]')")
pytest.importorskip("sb3_contrib", reason="MaskablePPO needs sb3-contrib (pip install 'pigdice[learn]')")

from sb3_contrib import MaskablePPO
from stable_baselines3 import DQN, PPO
from typer.testing import CliRunner

from pigdice.cli.app import app
from pigdice.engine.game import new_game
from pigdice.envs.encoding import observe_as
from pigdice.envs.gym import PigdiceEnv
from pigdice.errors import BadStrategyError
from pigdice.rules import find_variant
from pigdice.study.agent_evaluation import evaluate
from pigdice.study.agent_tables import agent_table
from pigdice.study.saved_models import load_model

GOAL = 20  # a small game: the model is asked at 20 x 20 x 20 positions
STEPS = 256  # a short training: the model need not be good, only saved and read back


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Train PPO (exact observation), DQN (full observation) and MaskablePPO briefly on Pig to 20; save them."""
    folder = tmp_path_factory.mktemp("models")
    made = {
        "ppo": PPO("MlpPolicy", PigdiceEnv("pig", "hold:10", goal=GOAL, observation="exact"), n_steps=128, seed=0),
        "dqn": DQN("MlpPolicy", PigdiceEnv("pig", "hold:10", goal=GOAL), buffer_size=1_000, learning_starts=64, seed=0),
        "maskable": MaskablePPO(
            "MlpPolicy", PigdiceEnv("pig", "keep-pace", goal=GOAL, observation="exact"), n_steps=128, seed=0
        ),
    }
    paths = {}
    for name, model in made.items():
        model.learn(STEPS)
        paths[name] = folder / f"{name}.zip"
        model.save(paths[name])
    return paths


def exported_table(model: Any, observation: str) -> np.ndarray:
    """Write a model out by hand: its greedy action in the environment's own observation of every position."""
    pig = find_variant("pig", goal=GOAL)
    start = new_game(pig, 2)
    positions = [(i, j, k) for i in range(GOAL) for j in range(GOAL) for k in range(GOAL - i)]
    states = [replace(start, scores=(i, j), turn_total=k, rolls_this_turn=int(k > 0)) for i, j, k in positions]
    observations = np.array([observe_as(observation, state, 0) for state in states])
    actions, _ = model.predict(observations, deterministic=True)
    table = np.ones((GOAL, GOAL, GOAL), dtype=np.int8)
    for (i, j, k), action in zip(positions, actions, strict=True):
        table[i, j, k] = 0 if action == 1 else 1  # the environments' hold is 1 in Pig; the table's hold is 0
    return table


@pytest.mark.parametrize(("name", "algorithm", "observation"), [("ppo", PPO, "exact"), ("dqn", DQN, "full")])
def test_a_saved_model_evaluates_as_its_exported_table(
    models: dict[str, Path], tmp_path: Path, name: str, algorithm: Any, observation: str
) -> None:
    path = models[name]
    table_file = tmp_path / "exported.npy"
    np.save(table_file, exported_table(algorithm.load(path), observation))
    by_model = evaluate(f"sb3:{path}", "pig", goal=GOAL)
    by_table = evaluate(str(table_file), "pig", goal=GOAL)
    assert by_model.seats == by_table.seats
    assert by_model.same_choice_share == by_table.same_choice_share
    assert by_model.agent == f"{algorithm.__name__} model {name}.zip"
    assert 0.0 <= by_model.average <= 1.0


def test_a_maskable_model_and_a_plain_zip_path_are_read(models: dict[str, Path]) -> None:
    pig = find_variant("pig", goal=GOAL)
    saved = load_model(models["maskable"], pig)
    assert (saved.algorithm, saved.observation) == ("MaskablePPO", "exact")
    by_path = agent_table(str(models["maskable"]), pig)
    by_spec = agent_table(f"sb3:{models['maskable']}", pig)
    assert np.array_equal(by_path.table, by_spec.table)


def test_reading_a_model_unpickles_nothing(models: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from stable_baselines3.common import save_util

    def refuse(*_: Any, **__: Any) -> None:
        raise AssertionError("a pickle in the model file was run")

    monkeypatch.setattr(save_util.cloudpickle, "loads", refuse)
    monkeypatch.setattr(save_util.pickle, "loads", refuse)
    assert load_model(models["dqn"], find_variant("pig", goal=GOAL)).algorithm == "DQN"


def rewritten(source: Path, target: Path, change: Any) -> Path:
    """Copy a model file with its settings changed by ``change(settings)``."""
    with zipfile.ZipFile(source) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    settings = json.loads(members["data"])
    change(settings)
    members["data"] = json.dumps(settings).encode()
    with zipfile.ZipFile(target, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return target


def test_bad_model_files_are_one_clear_error(models: dict[str, Path], tmp_path: Path) -> None:
    pig = find_variant("pig", goal=GOAL)
    text = tmp_path / "notes.zip"
    text.write_text("not an archive")
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr("readme.txt", "nothing")
    wide = rewritten(models["ppo"], tmp_path / "wide.zip", lambda s: s["observation_space"].update(_shape=[16]))
    odd = rewritten(models["ppo"], tmp_path / "odd.zip", lambda s: s.update(extra={":serialized:": "gAWVAA=="}))
    fifo = tmp_path / "pipe.zip"
    os.mkfifo(fifo)
    cases = [
        (f"sb3:{tmp_path / 'missing.zip'}", "no model file missing.zip"),
        ("sb3:", "name the model file"),
        (f"sb3:{text}", "not a zip archive"),
        (f"sb3:{empty}", "not a Stable-Baselines3 model file"),
        (f"sb3:{wide}", "shape [16]"),
        (f"sb3:{odd}", "does not read (extra)"),
        ("sb3:/dev/zero", "a device"),
        (f"sb3:{fifo}", "a pipe"),
    ]
    for spec, words in cases:
        with pytest.raises(BadStrategyError, match=re.escape(words)):
            load_model(spec, pig)
    with pytest.raises(BadStrategyError, match="hog has 26"):
        evaluate(f"sb3:{models['ppo']}", "hog", goal=GOAL)


@pytest.mark.slow  # evaluates trained models through the command: 8 s warm
def test_the_command_evaluates_a_model_and_refuses_bad_files(models: dict[str, Path]) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["evaluate", f"sb3:{models['ppo']}", "--goal", str(GOAL), "--json"])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    data = json.loads(result.stdout)
    assert data["seats"] == list(evaluate(f"sb3:{models['ppo']}", "pig", goal=GOAL).seats)
    for args, words in (
        (["evaluate", "sb3:/dev/zero"], "a device"),
        (["evaluate", f"sb3:{models['ppo']}", "--variant", "hog"], "hog has 26"),
        (["evaluate", "sb3:no-such-model.zip"], "no model file"),
    ):
        failed = runner.invoke(app, args)
        assert failed.exit_code == 2, failed.output
        lines = failed.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], failed.stderr
