"""pigdice bench-learners: a tiny run writes the leaderboard with pigdice.evaluate's figures; bad input exits 2."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from clihelpers import assert_one_line_error, run_json, runner

from pigdice.cli.app import app
from pigdice.study.agent_evaluation import evaluate

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")


def test_a_tiny_run_writes_the_leaderboard(tmp_path: Path) -> None:
    data = run_json(
        "bench-learners", "--variants", "pig", "--baselines", "hold,keep-pace,tabular,ppo", "--tabular-steps", "300",
        "--neural-steps", "200", "--points", "2", "--goal", "10", "--seed", "4", "--out", str(tmp_path), "--json",
    )  # fmt: skip
    assert sorted(os.listdir(tmp_path)) == ["curves.png", "leaderboard.json", "leaderboard.md"]
    assert json.loads((tmp_path / "leaderboard.json").read_text(encoding="utf-8"))["variants"] == data["variants"]
    entries = {e["baseline"]: e for e in data["variants"][0]["entries"]}
    assert entries["tabular"]["steps"] == 300 and entries["ppo"]["steps"] == 200
    for spec_baseline in ("hold", "keep-pace"):
        entry = entries[spec_baseline]
        assert entry["seats"] == pytest.approx(evaluate(entry["agent"], "pig", goal=10).seats, abs=1e-12)
    assert entries["tabular"]["curve"][-1]["average"] == pytest.approx(entries["tabular"]["average"], abs=1e-9)


def test_the_table_for_people(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["bench-learners", "--variants", "hog", "--baselines", "hold,keep-pace", "--goal", "10", "--out",
              str(tmp_path)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    for words in ("Hog to 10, against the perfect player", "dice:", "does not apply", "exact"):
        assert words in " ".join(result.stdout.split())  # rich wraps long cells
    # the files' paths may break anywhere (a long temporary folder: "leaderboard.", "md" on two lines)
    assert str(tmp_path / "leaderboard.md") in "".join(result.stdout.split())


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--variants", "pig,nope"], ["nope"]),
        (["--variants", "swine-herd"], ["turn"]),
        (["--baselines", "hold,alphazero"], ["alphazero", "tabular"]),
        (["--neural-steps", "0"], ["--neural-steps"]),
        (["--out", "/no/such/folder"], ["does not exist"]),
        (["--out", "/etc/hostname"], ["not a folder"]),
        (["--out", ""], ["--out"]),
    ],
)
def test_bad_input_is_one_error_line(args: list[str], words: list[str]) -> None:
    assert_one_line_error(["bench-learners", *args], *words)


def test_a_linked_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert_one_line_error(["bench-learners", "--out", str(tmp_path / "link")], "not a folder")


def test_a_linked_file_in_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "leaderboard.md").symlink_to(tmp_path / "elsewhere.md")
    assert_one_line_error(["bench-learners", "--out", str(tmp_path)], "leaderboard.md")


def test_ctrl_c_stops_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pigdice.study.pigbench as pigbench

    def interrupted(*_args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(pigbench, "run_bench", interrupted)
    result = runner.invoke(app, ["bench-learners", "--out", str(tmp_path)])
    assert result.exit_code == 130 and "nothing was written" in result.stderr
    assert os.listdir(tmp_path) == []
