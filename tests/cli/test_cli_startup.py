"""Start-up: the command line loads the solver (numba), the study modules and numpy only for commands that use them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("numba", "scipy", "pigdice.solve.solver", "pigdice.study.evaluate", "fastapi", "matplotlib", "plotly")


def _loaded_after(code: str, watched: tuple[str, ...] = HEAVY) -> set[str]:
    """Return which of the ``watched`` modules are loaded after running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport sys\nprint(','.join(m for m in {watched!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    return set(filter(None, out.split(",")))


def test_the_command_line_starts_without_the_solver() -> None:
    assert _loaded_after("import pigdice.cli.app") == set()


def _invoke(args: list[str]) -> str:
    return (
        "import sys\nfrom typer.testing import CliRunner\nfrom pigdice.cli.app import app\n"
        f"result = CliRunner().invoke(app, {args!r})\nassert result.exit_code == 0, result.output"
    )


def test_help_variants_and_rules_do_not_load_the_solver_or_numpy() -> None:
    for args in (["--help"], ["variants"], ["rules", "pig"]):
        assert _loaded_after(_invoke(args), (*HEAVY, "numpy")) == set(), args


def test_a_two_player_solve_leaves_numba_to_its_worker_process_until_its_kernels_are_compiled() -> None:
    # the worker sends the start turn along with the values: the summary then sweeps no turn here
    args = ["solve", "pig", "--goal", "30", "--no-cache", "--json"]
    unmark = (
        "from pigdice.kernelcache import ready_mark\nfrom pigdice.rules import find_variant\n"
        "from pigdice.solve.exact import kernel_work\n"
        "ready_mark(kernel_work(find_variant('pig'), 2)).unlink(missing_ok=True)  # as on a new machine\n"
    )
    assert _loaded_after(unmark + _invoke(args), ("numba", "pigdice.solve.two.rollhold")) == set()
    # the worker marked the kernels compiled: a solve this short runs here, without a second Python
    assert _loaded_after(_invoke(args), ("numba", "pigdice.solve.two.rollhold")) == {
        "numba",
        "pigdice.solve.two.rollhold",
    }


def test_a_game_between_robots_does_not_load_the_solver(tmp_path: Path) -> None:
    args = ["play", "pig", "--players", "hold:20,hold:25", "--seed", "3", "--save", str(tmp_path / "game.json")]
    code = f"import os\nos.environ['PIGDICE_FAST'] = '1'\n{_invoke(args)}"
    assert _loaded_after(code) == set()
    assert (tmp_path / "game.json").is_file()


def _hint_json(code: str) -> object:
    """Run a hint in a fresh interpreter and return its JSON."""
    run = subprocess.run([sys.executable, "-c", f"{code}\nprint(result.stdout)"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.mark.slow
def test_a_hint_from_a_cached_policy_loads_no_kernels_and_says_the_same(tmp_path: Path) -> None:
    args = ["hint", "big-pig-knizia", "--goal", "40", "--score", "12", "--opponent", "30", "--turn-total", "9"]
    args.append("--json")
    code = f"import os\nos.environ['PIGDICE_CACHE_DIR'] = {str(tmp_path)!r}\n{_invoke(args)}"
    solved = _hint_json(code)  # the first hint solves (and caches) the policy with the kernels
    assert _loaded_after(code) == set()  # the next one reads the cache: no numba, no solver
    assert _hint_json(code) == solved


def test_the_perfect_player_hints_plays_and_reviews_every_variant_without_numba(tmp_path: Path) -> None:
    # a fresh install: no policy cache; the shipped values answer in plain Python, nothing compiles
    game = tmp_path / "pig.json"
    code = f"""
import os
os.environ.update(PIGDICE_CACHE_DIR={str(tmp_path / "cache")!r}, PIGDICE_GAMES_DIR={str(tmp_path)!r}, PIGDICE_FAST="1")
from typer.testing import CliRunner
from pigdice.cli.app import app
from pigdice.rules.registry import all_variants

runner = CliRunner()
for variant in all_variants():
    turn = [] if variant.name == "hog" else ["--turn-total", "12"]
    result = runner.invoke(app, ["hint", variant.name, "--score", "50", "--opponent", "80", *turn])
    assert result.exit_code == 0 and "← best" in result.output, (variant.name, result.output)
    result = runner.invoke(app, ["play", variant.name, "--players", "optimal,you", "--seed", "2"], input="q\\n")
    assert result.exit_code == 0 and "Wilbur" in result.output.split("Round 1")[1], (variant.name, result.output)
result = runner.invoke(app, ["play", "pig", "--players", "you,optimal", "--seed", "2"], input="h\\ny\\nq\\n")
assert "Wilbur rolls" in result.output, result.output
result = runner.invoke(app, ["play", "pig", "--players", "hold:20,hold:25", "--seed", "5", "--save", {str(game)!r}])
result = runner.invoke(app, ["review", {str(game)!r}])
assert result.exit_code == 0 and "gave away" in result.output, result.output
"""
    assert _loaded_after(code, ("numba", "pigdice.solve.solver")) == set()
