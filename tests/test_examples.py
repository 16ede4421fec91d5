"""The scripts in examples/ run end to end at their small size (PIGDICE_EXAMPLE_SIZE=small) and print real figures."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NUMBER = r"([01]\.\d{3,4})"


def run_example(name: str, folder: Path, *args: str) -> str:
    """Run examples/NAME at the small size in ``folder``; return what it printed (a failure shows its stderr)."""
    env = {**os.environ, "PIGDICE_EXAMPLE_SIZE": "small", "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def figure(pattern: str, text: str) -> float:
    """Return the number after ``pattern`` in ``text`` (a chance, 0 to 1)."""
    found = re.search(pattern + r".*?" + NUMBER, text)
    assert found, f"{pattern!r} not in:\n{text}"
    return float(found.group(1))


def test_every_example_has_a_docstring_arguments_and_a_seed() -> None:
    scripts = sorted(EXAMPLES.glob("*.py"))
    assert {p.name for p in scripts} == {"train_ppo_and_evaluate.py", "designer_to_learner.py", "openspiel_mcts.py"}
    readme = (EXAMPLES / "README.md").read_text()
    for script in scripts:
        text = script.read_text()
        assert text.startswith('"""') and "argparse" in text and "default_rng(args.seed)" in text, script.name
        assert script.name in readme


@pytest.mark.slow  # trains a learner end to end: 10 s warm
def test_designer_to_learner(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("gymnasium")
    out = run_example("designer_to_learner.py", tmp_path)
    assert "proposal 1:" in out and (tmp_path / "designer-example" / "report.md").is_file()
    learned = figure("exact win chance", out)
    assert 0.0 < learned <= 0.5 + 1e-9  # never better than the perfect player, exactly
    assert figure("the perfect player in its place:", out) == pytest.approx(0.5, abs=1e-4)
    again = run_example("designer_to_learner.py", tmp_path)
    assert figure("exact win chance", again) == learned  # the same seed, the same learner


@pytest.mark.slow
def test_train_ppo_and_evaluate(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    out = run_example("train_ppo_and_evaluate.py", tmp_path)
    table = figure("exact win chance against the perfect player:", out)
    model = figure("the same model asked directly:", out)
    assert table == model and 0.0 <= table <= 0.5 + 1e-9  # the exported table is the model, exactly
    assert (tmp_path / "ppo-example" / "ppo-table.npy").is_file()


@pytest.mark.slow
def test_openspiel_mcts(tmp_path: Path) -> None:
    pytest.importorskip("pyspiel")
    out = run_example("openspiel_mcts.py", tmp_path)
    assert "MCTS" in out and "simulated" in out
    assert 0.0 < figure(r"hold at 10: simulated .*?exact", out) < 0.5
    assert figure("the perfect player in the same seats: exact", out) == pytest.approx(0.5, abs=1e-4)
