"""Other equilibria of the n-player solver: the search finds the second equilibria of 3-player Pig to 50 and
58, a plain best-reply check confirms them, and the start's bounds over them match the golden files."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from pigdice.rules import find_variant
from pigdice.solve.n.equilibria import (
    SELECTION_RULE,
    LevelSearch,
    count_cycles,
    equilibrium_report,
    search_policy,
    start_bounds,
)
from pigdice.solve.n.nplayer import PlayersPolicy, solve_players
from pigdice.solve.positions import INDIFFERENCE

GOLDEN = json.loads((Path(__file__).parents[1] / "data" / "equilibria.json").read_text())
CASES = {case["goal"]: case for case in GOLDEN["cases"]}
# 58's start under every combination of its cycles' equilibria (tests/data/make_equilibria_starts.py)
STARTS = json.loads((Path(__file__).parents[1] / "data" / "equilibria_starts.json").read_text())
COMBINATIONS = STARTS["combinations"]
BEST_REPLY = 1e-12  # a mover's best reply, recomputed in plain Python, agrees with the solver's value this closely
_SOLVED: dict[tuple[int, bool], PlayersPolicy] = {}


def solved(goal: int, other: bool = False) -> PlayersPolicy:
    """Return 3-player Pig to ``goal`` solved (with the golden cycle's other equilibrium if ``other``), once."""
    if (goal, other) not in _SOLVED:
        variant = find_variant("pig").with_goal(goal)
        hook = LevelSearch(variant, 3, CASES[goal]["other"]["selection"]) if other else None
        _SOLVED[goal, other] = solve_players(variant, 3, level_hook=hook)
    return _SOLVED[goal, other]


def rotations(scores: list[int]) -> list[tuple[int, ...]]:
    return [tuple(scores[m:] + scores[:m]) for m in range(len(scores))]


def pig_turn_value(policy: PlayersPolicy, scores: tuple[int, ...], fallback: np.ndarray) -> np.ndarray:
    """Return the win vector (mover first) of the mover's best turn at ``scores``, in plain Python: one die,
    a 1 busts to ``fallback`` (the next turn start's vector, seen from the mover), 2-6 add; ties as the solver
    breaks them (roll at turn total 0, else hold unless rolling is better by more than INDIFFERENCE)."""
    goal, n = policy.goal, policy.players
    a0, rest = scores[0], scores[1:]

    def hold(k: int) -> np.ndarray:
        if a0 + k >= goal:
            return np.eye(n)[0]
        after = policy.W[0, policy._index((*rest, a0 + k))]
        return np.roll(after, 1)  # the next mover's vector seen from this mover: entry r is after's r - 1

    values: dict[int, np.ndarray] = {}
    for k in range(goal - a0 - 1, -1, -1):
        roll = fallback / 6
        for face in range(2, 7):
            roll = roll + (values[k + face] if a0 + k + face < goal else np.eye(n)[0]) / 6
        if k == 0:
            values[k] = roll
        else:
            held = hold(k)
            values[k] = roll if roll[0] > held[0] + INDIFFERENCE else held
    return values[0]


@pytest.mark.parametrize("goal", sorted(CASES))
def test_the_search_finds_the_golden_cycles(goal) -> None:
    policy, case = solved(goal), CASES[goal]
    found = search_policy(policy)
    assert found["searched"] == count_cycles(goal, 3, 1) == case["cycles"]
    assert found["multiple"] == len(case["several"])
    assert found["capped"] == 0
    for got, want in zip(found["cycles"], case["several"], strict=True):
        assert got["scores"] == want["scores"]
        assert got["equilibria"] == want["equilibria"]
        assert got["spread"] == pytest.approx(want["spread"], abs=1e-12)


def test_the_search_reads_compact_values_without_expanding_them(monkeypatch) -> None:
    # 4 players to 100 with equal turns keep 9 GiB of compact vectors: a full copy (12 GiB more) ran the
    # machine out of memory, so the search reads the stored entries as the solve does
    goal = min(CASES)
    compact = solve_players(find_variant("pig").with_goal(goal), 3, compact=True)
    assert compact.compact
    monkeypatch.setattr(PlayersPolicy, "full_W", lambda self: pytest.fail("the search copied the values"))
    found, want = search_policy(compact), search_policy(solved(goal))
    assert (found["searched"], found["multiple"], found["capped"]) == (want["searched"], want["multiple"], 0)
    for got, expected in zip(found["cycles"], want["cycles"], strict=True):
        assert got["scores"] == expected["scores"] and got["equilibria"] == expected["equilibria"]
        assert got["spread"] == pytest.approx(expected["spread"], abs=1e-12)


@pytest.mark.parametrize("other", [False, True])
@pytest.mark.parametrize("goal", sorted(CASES))
def test_both_equilibria_are_best_replies_everywhere_in_the_cycle(goal, other) -> None:
    policy = solved(goal, other)
    members = rotations(CASES[goal]["other"]["scores"])
    for m, member in enumerate(members):
        following = members[(m + 1) % len(members)]
        fallback = np.roll(policy.W[0, policy._index(following)], 1)
        best = pig_turn_value(policy, member, fallback)
        assert np.max(np.abs(best - policy.W[0, policy._index(member)])) < BEST_REPLY


@pytest.mark.parametrize("goal", sorted(CASES))
def test_the_other_equilibrium_changes_the_cycle_and_only_what_lies_below(goal) -> None:
    first, second, case = solved(goal), solved(goal, True), CASES[goal]
    scores = case["other"]["scores"]
    index = first._index(tuple(scores))
    assert np.max(np.abs(second.W[0, index] - first.W[0, index])) > 1e-4  # not a rounding of the first
    level = sum(scores)
    sums = np.indices((goal,) * 3).sum(axis=0).reshape(-1)
    assert np.array_equal(second.W[0, sums > level], first.W[0, sums > level])
    assert second.win_probability_by_seat() == pytest.approx(case["other"]["start"], abs=1e-12)
    moved = not np.allclose(case["other"]["start"], case["start"], rtol=0, atol=1e-9)
    assert moved == (goal == 58)  # at 50 no best move below reaches the cycle; at 58 one does


def test_the_hook_without_a_selection_leaves_every_value_unchanged() -> None:
    variant = find_variant("pig").with_goal(50)
    again = solve_players(variant, 3, level_hook=LevelSearch(variant, 3))
    assert np.array_equal(again.values, solved(50).values)


def check_report(goal: int) -> None:
    policy, case = solved(goal), CASES[goal]
    report = equilibrium_report(policy)
    assert report.complete and report.solves == case["start_solves"]
    assert report.start_low == pytest.approx(case["start_low"], abs=1e-12)
    assert report.start_high == pytest.approx(case["start_high"], abs=1e-12)
    for start in (case["start"], case["other"]["start"]):
        assert np.all(np.array(report.start_low) <= start) and np.all(np.array(start) <= report.start_high)
    summary = report.to_json()
    assert summary["selection_rule"] == SELECTION_RULE
    assert summary["cycles_with_several_equilibria"] == len(case["several"])
    assert summary["start_bounds_complete"] is True


def test_the_start_bounds_at_50_are_one_value() -> None:
    check_report(50)
    assert CASES[50]["start_low"] == CASES[50]["start_high"]


def test_the_golden_combinations_at_58_give_the_golden_start_bounds() -> None:
    """The start under each of the 32 combinations of 58's equilibria (tests/data/equilibria_starts.json, solved
    again in the slow tier four at a time): every combination once, and their bounds are the golden ones."""
    case = CASES[58]
    assert (STARTS["variant"], STARTS["goal"], STARTS["players"]) == ("pig", 58, 3)
    found = COMBINATIONS[0]["found"]
    assert len(found) == len(case["several"]) and all(row["found"] == found for row in COMBINATIONS)
    selections = [tuple(row["selection"]) for row in COMBINATIONS]
    assert sorted(selections) == list(itertools.product(*(range(count) for count in found)))
    assert len(selections) == case["start_solves"]
    starts = np.array([row["start"] for row in COMBINATIONS])
    assert starts.min(axis=0) == pytest.approx(case["start_low"], abs=1e-12)
    assert starts.max(axis=0) == pytest.approx(case["start_high"], abs=1e-12)
    assert COMBINATIONS[0]["start"] == pytest.approx(case["start"], abs=1e-12)  # every cycle's first equilibrium
    assert any(row["start"] == pytest.approx(case["other"]["start"], abs=1e-12) for row in COMBINATIONS)


@pytest.mark.slow
@pytest.mark.parametrize("part", range(8))
def test_the_start_at_58_under_every_combination_equals_its_golden_value(part: int) -> None:
    """Four whole-game solves a test (every eighth combination): each finds the same cycles with as many
    equilibria and gives the stored start (together they are the 32 solves of the start bounds at 58)."""
    variant = find_variant("pig").with_goal(58)
    for row in COMBINATIONS[part::8]:
        search = LevelSearch(variant, 3, row["selection"])
        policy = solve_players(variant, 3, level_hook=search)
        assert search.found == row["found"]
        assert policy.win_probability_by_seat() == pytest.approx(row["start"], abs=1e-12)


@pytest.mark.slow
def test_the_start_bounds_at_58_walk_the_combinations_depth_first() -> None:
    """``start_bounds`` stopped after 3 solves has met the first 3 golden combinations, in their order."""
    low, high, solves, complete, why = start_bounds(find_variant("pig").with_goal(58), 3, max_solves=3)
    first = np.array([row["start"] for row in COMBINATIONS[:3]])
    assert solves == 3 and not complete and "after 3" in why
    assert low == pytest.approx(first.min(axis=0), abs=1e-12)
    assert high == pytest.approx(first.max(axis=0), abs=1e-12)


def test_a_game_without_several_equilibria_has_equal_bounds() -> None:
    policy = solve_players(find_variant("pig").with_goal(20), 3)
    report = equilibrium_report(policy)
    assert report.multiple == 0 and report.complete
    assert report.start_low == report.start_high == policy.win_probability_by_seat()


def test_a_capped_search_says_how_far_it_got() -> None:
    report = equilibrium_report(solved(50), max_cycles=1000)
    assert report.searched < report.cycles
    assert report.start_low is None and report.why_not.startswith(f"searched {report.searched:,} of")


def test_too_many_combinations_are_not_solved() -> None:
    report = equilibrium_report(solved(58), max_solves=8)
    assert report.multiple == 5 and report.start_low is None and "2^5" in report.why_not


@pytest.mark.slow  # searches the equilibria twice: 7 s warm
def test_solve_json_and_table_state_the_equilibria() -> None:
    from typer.testing import CliRunner

    from pigdice.cli.app import app

    runner = CliRunner()
    result = runner.invoke(app, ["solve", "pig", "--players", "3", "--goal", "50", "--json"])
    assert result.exit_code == 0, result.output
    equilibria = json.loads(result.stdout)["equilibria"]
    assert equilibria["selection_rule"] == SELECTION_RULE
    assert equilibria["cycles_searched"] == equilibria["cycles"] == CASES[50]["cycles"]
    assert equilibria["cycles_with_several_equilibria"] == 1
    assert equilibria["examples"][0]["scores"] == [0, 7, 7]
    assert equilibria["start_low_by_seat"] == pytest.approx(CASES[50]["start_low"], abs=1e-12)
    assert equilibria["start_high_by_seat"] == pytest.approx(CASES[50]["start_high"], abs=1e-12)
    table = runner.invoke(app, ["solve", "pig", "--players", "3", "--goal", "50"])
    assert table.exit_code == 0, table.output
    words = " ".join(table.stdout.split())
    assert "other equilibria" in words and "41,700" in words and "combinations solved" in words
    two = json.loads(runner.invoke(app, ["solve", "pig", "--goal", "50", "--json"]).stdout)
    assert "equilibria" not in two  # 2 players: zero-sum, one value


@pytest.mark.slow  # searches the equilibria twice: 6 s warm
def test_a_report_is_kept_for_the_same_values_and_a_damaged_one_searched_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pigdice.solve.n import equilibria

    monkeypatch.setenv("PIGDICE_CACHE_DIR", str(tmp_path))
    policy = solved(50)
    first = equilibria.kept_equilibrium_report(policy)
    path = equilibria.report_path(policy)
    assert path.is_file() and path.parent == tmp_path / "equilibria"

    def no_search(*args: object, **kwargs: object) -> None:
        raise AssertionError("searched again although a report was kept")

    monkeypatch.setattr(equilibria, "equilibrium_report", no_search)
    assert equilibria.kept_equilibrium_report(policy) == first
    path.write_text('{"cycles": "damaged"')
    monkeypatch.undo()
    monkeypatch.setenv("PIGDICE_CACHE_DIR", str(tmp_path))
    assert equilibria.kept_equilibrium_report(policy) == first
    assert json.loads(path.read_text())["multiple"] == first.multiple
