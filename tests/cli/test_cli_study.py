"""`pigdice compare` and `pigdice tournament`: JSON shapes, tables for people, CSV, and one-line errors."""

from __future__ import annotations

import csv
from fractions import Fraction
from pathlib import Path

import pytest
from clihelpers import run_json, runner

import pigdice.players.plugins as plugins
from pigdice.cli.app import app


@pytest.fixture(autouse=True)
def plugins_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Allow plug-ins here even if an earlier test (a web server) disabled them for the process."""
    monkeypatch.setattr(plugins, "_PLUGINS_ALLOWED", True)
    monkeypatch.delenv("PIGDICE_NO_PYTHON_SPECS", raising=False)


def assert_bad(args: list[str], expected: str) -> None:
    """Assert the command fails with exit 2 and one error line containing ``expected``."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: ") and expected in lines[0], lines[0]
    assert "Traceback" not in result.output


def test_compare_exact_json_shape() -> None:
    data = run_json("compare", "hold:20", "hold:25", "--variant", "pig", "--goal", "40", "--json")
    assert {"variant", "goal", "a", "b", "exact", "simulated"} <= set(data)
    assert (data["variant"], data["goal"], data["a"], data["b"]) == ("pig", 40, "hold:20", "hold:25")
    assert set(data["exact"]) == {"a_first", "b_first", "average"}
    assert data["simulated"] is None
    exact = data["exact"]
    assert exact["average"] == pytest.approx((exact["a_first"] + exact["b_first"]) / 2)


def test_compare_with_games_checks_exact_against_simulation() -> None:
    args = ["compare", "keep-pace", "max-score", "-v", "pig", "--goal", "50", "--games", "20000", "--seed", "4"]
    data = run_json(*args, "--json")
    sim = data["simulated"]
    assert {"games", "a_first", "b_first", "average", "ci95"} <= set(sim)
    assert sim["games"] == 20000 and sim["seed"] == 4 and sim["engine"] == "fast"
    lo, hi = sim["ci95"]
    assert lo < sim["average"] < hi
    assert lo - 0.01 < data["exact"]["average"] < hi + 0.01
    assert run_json(*args, "--json") == data  # same seed, same numbers
    people = runner.invoke(app, args)
    assert people.exit_code == 0
    assert "exact" in people.stdout and "95% confidence interval" in people.stdout


def test_compare_by_simulation_only_for_strategies_without_tables() -> None:
    data = run_json("compare", "rolls:3", "hold:10", "--goal", "20", "--games", "30", "--seed", "1", "--json")
    assert data["exact"] is None
    assert data["simulated"]["engine"] == "engine" and data["simulated"]["games"] == 30


def test_compare_hog_and_plugin(tmp_path: Path) -> None:
    data = run_json("compare", "dice:5", "max-score", "--variant", "hog", "--goal", "30", "--json")
    assert data["exact"]["average"] == pytest.approx(0.5, abs=0.01)  # max-score throws 5 dice too
    plugin = tmp_path / "mine.py"
    plugin.write_text("def Cautious(score, opponent, turn_total, variant):\n    return turn_total < 15\n")
    data = run_json("compare", f"py:{plugin}:Cautious", "hold:15", "--goal", "30", "--json")
    assert data["a"] == f"py:{plugin}:Cautious"
    assert data["exact"]["average"] == pytest.approx(0.5, abs=1e-12)


def test_compare_people_table_without_simulation() -> None:
    result = runner.invoke(app, ["compare", "hold:20", "optimal", "--goal", "30"])
    assert result.exit_code == 0
    assert "hold:20 moves first" in result.stdout and "optimal moves first" in result.stdout


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["compare", "rolls:3", "hold:20"], "--games"),
        (["compare", "random", "hold:20", "--goal", "20"], "--games"),
        (["compare", "hold:20", "hold:25", "--variant", "nope"], "unknown variant"),
        (["compare", "hold:20", "bogus"], "unknown strategy"),
        (["compare", "hold:20", "hold:25", "--games", "1"], "from 2 to"),
        (["compare", "hold:20", "you"], "human"),
        (["compare", "keep-pace", "dice:3", "--variant", "hog"], "one throw per turn"),
        (["compare", "hold:20", "hold:25", "--goal", "0"], "goal"),
        (["compare", "py:/no/such/file.py:f", "hold:20"], "no Python file"),
        (["compare", "hold:20", "rolls:3", "--variant", "swine-herd"], "--games"),
    ],
)
def test_compare_bad_input_is_one_line(args: list[str], expected: str) -> None:
    assert_bad(args, expected)


def test_tournament_json_shape() -> None:
    data = run_json("tournament", "--strategies", "hold:20,hold:10,keep-pace", "--goal", "30", "--seed", "2", "--json")
    assert set(data) >= {"variant", "goal", "players", "games", "seed", "strategies", "standings", "matches"}
    assert data["players"] == 2 and len(data["matches"]) == 3
    assert [s["rank"] for s in data["standings"]] == [1, 2, 3]
    assert set(data["standings"][0]) == {"rank", "strategy", "win_rate", "matches"}
    for match in data["matches"]:
        assert set(match) == {"players", "win_rates", "method", "games", "ci95"}
        assert match["method"] == "exact"


def test_tournament_multiplayer_table_and_csv(tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    result = runner.invoke(
        app,
        [
            "tournament",
            "-s",
            "hold:10,hold:20,max-score,rolls:2",
            "-k",
            "3",
            "-n",
            "30",
            "--goal",
            "20",
            "--seed",
            "5",
            "--csv",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.stderr
    assert "tournament, 3 players" in result.stdout and "rank" in result.stdout
    assert f"wrote 12 rows to {out}" in result.stderr.replace("\n", "")
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 12  # C(4, 3) matches x 3 players
    assert set(rows[0]) == {
        "match",
        "strategy",
        "opponents",
        "win_rate",
        "ci95_low",
        "ci95_high",
        "method",
        "games",
        "rank",
    }
    assert {row["method"] for row in rows} == {"simulated"}


def test_tournament_two_player_people_table_shows_who_beats_whom() -> None:
    result = runner.invoke(app, ["tournament", "-s", "hold:20,optimal", "--goal", "25", "--seed", "1"])
    assert result.exit_code == 0
    assert "P(row beats column)" in result.stdout


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["tournament", "-s", "hold:20,hold:20"], "differ"),
        (["tournament", "-s", "hold:20,,hold:25"], "empty strategy"),
        (["tournament", "-s", "hold:20,hold:25", "-k", "3"], "at least 3 strategies"),
        (["tournament", "-s", "hold:20,hold:25", "-k", "1"], "players"),
        (["tournament", "-s", "hold:20,hold:25", "-n", "0"], "from 1 to"),
        (["tournament", "-s", "hold:20,hold:25", "--json", "--csv", "x.csv"], "not both"),
        (["tournament", "-s", "hold:20,zzz"], "unknown strategy"),
        (["tournament", "-s", "hold:20,hold:25", "--csv", "/no/such/dir/t.csv", "--goal", "20"], "does not exist"),
    ],
)
def test_tournament_bad_input_is_one_line(args: list[str], expected: str) -> None:
    assert_bad(args, expected)


def hold_turn_gains(threshold: int, room: int) -> dict[int, Fraction]:
    """Return the distribution of points a Pig turn banks under hold:N with ``room`` points to the goal.

    The player rolls one die until the turn total reaches min(N, room); a 1 banks nothing.
    """
    target = min(threshold, room)
    gains: dict[int, Fraction] = {0: Fraction(0)}
    reach = {0: Fraction(1)}  # probability of standing at each turn total below the target
    for total in range(target):
        here = reach.pop(total, Fraction(0))
        gains[0] += here / 6
        for face in range(2, 7):
            after = total + face
            if after >= target:
                gains[after] = gains.get(after, Fraction(0)) + here / 6
            else:
                reach[after] = reach.get(after, Fraction(0)) + here / 6
    return gains


def first_player_wins(first: int, second: int, goal: int) -> float:
    """Return P(hold:first beats hold:second, moving first) in Pig to ``goal``: an independent 2x2 recursion.

    With x = P(first wins | first to move at (i, j)) and y = the same with second to move, a bust
    by both returns to (i, j): x = a0 y + sum_g a_g [i + g >= goal or y(i + g, j)], and
    y = b0 x + sum_g b_g x(i, j + g) (over the second's non-winning gains), solved per (i, j).
    """
    x = [[0.0] * goal for _ in range(goal)]
    y = [[0.0] * goal for _ in range(goal)]
    for i in range(goal - 1, -1, -1):
        for j in range(goal - 1, -1, -1):
            a = hold_turn_gains(first, goal - i)
            b = hold_turn_gains(second, goal - j)
            rest_x = sum(float(p) * (1.0 if i + g >= goal else y[i + g][j]) for g, p in a.items() if g)
            rest_y = sum(float(p) * x[i][j + g] for g, p in b.items() if g and j + g < goal)
            a0, b0 = float(a[0]), float(b[0])
            x[i][j] = (rest_x + a0 * rest_y) / (1 - a0 * b0)
            y[i][j] = b0 * x[i][j] + rest_y
    return x[0][0]


@pytest.mark.slow
def test_simulate_uses_the_fast_simulator_where_it_can_and_agrees_with_the_exact_value():
    """hold:20 vs hold:25 in Pig: the exact P(first wins), computed here, agrees with compare and 100k fast games."""
    exact = first_player_wins(20, 25, 100)
    assert 0.51 < exact < 0.53  # about 0.52003
    compared = run_json("compare", "hold:20", "hold:25", "--json")
    assert compared["exact"]["a_first"] == pytest.approx(exact, abs=1e-9)
    data = run_json("simulate", "pig", "--players", "hold:20,hold:25", "--games", "100000", "--seed", "3", "--json")
    share = data["wins"][0] / data["games"]
    assert abs(share - exact) < 4 * (0.25 / 100000) ** 0.5
    loop = run_json(
        "simulate", "pig", "--players", "hold:20,hold:25", "--games", "20", "--seed", "3", "--engine", "loop", "--json"
    )
    assert loop["games"] == 20
    bad = runner.invoke(app, ["simulate", "pig", "--players", "hold:20,random", "--engine", "fast"])
    assert bad.exit_code == 2 and "action tables" in bad.output


def test_simulate_table_shows_wilson_intervals() -> None:
    from pigdice.study.evaluate import wilson_interval

    result = runner.invoke(app, ["simulate", "pig", "--players", "hold:20,hold:25", "--games", "50", "--seed", "1"])
    assert result.exit_code == 0, result.stderr
    data = run_json("simulate", "pig", "--players", "hold:20,hold:25", "--games", "50", "--seed", "1", "--json")
    low, high = wilson_interval(data["wins"][0], 50)
    assert f"{100 * low:.2f}% .. {100 * high:.2f}%" in result.stdout


def test_a_round_robin_explains_a_strategy_ranked_above_the_perfect_player() -> None:
    from types import SimpleNamespace

    from pigdice.cli.study import ranking_note

    def field(*names: str, players: int = 2) -> SimpleNamespace:
        return SimpleNamespace(standings=[SimpleNamespace(name=n) for n in names], players=players)

    assert ranking_note(field("optimal", "keep-pace")) is None
    assert ranking_note(field("hold:20", "keep-pace")) is None  # no perfect player in the field
    note = ranking_note(field("keep-pace", "optimal", "hold:20"))
    assert note is not None and note.startswith("Why keep-pace can rank above the perfect player")
    assert "against a perfect opponent" in note and "at least half" in note
    assert "at least half" not in (ranking_note(field("keep-pace", "optimal", players=3)) or "")
