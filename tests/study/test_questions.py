"""Seed 003's open questions: figures equal to the exact solvers', read from the policies, and the command line."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from pigdice.cli.app import app
from pigdice.rules import find_variant
from pigdice.rules.dice import Die
from pigdice.rules.effects import Effect, add, bust
from pigdice.rules.outcomes import ByFaces, RollSpec
from pigdice.rules.variant import Decision, Endgame, FinalTurn, TieRule, Variant
from pigdice.solve import solve
from pigdice.solve.exact import exact_policy, exactness
from pigdice.solve.positions import Position
from pigdice.study.analysis.questions import (
    ENDINGS,
    SEED_ENDING,
    Ending,
    Questions,
    last_turn,
    margins,
    open_questions,
    seat_chances,
)
from pigdice.study.questions_report import questions_text

runner = CliRunner()


def coin(goal: int) -> Variant:
    """Return a risky one-die game: bust 1/2, +1 or +2 a quarter each (a last player may hold on a tie)."""
    faces: tuple[tuple[Effect, str], ...] = ((bust(), "1/2"), (add(1), "1/4"), (add(2), "1/4"))
    die = Die("coin", (1, 2, 3), ("bust", "+1", "+2"), tuple(Fraction(p) for _, p in faces))
    effects = {n + 1: effect for n, (effect, _) in enumerate(faces)}
    roll = RollSpec((die,), ByFaces(lambda thrown: effects[thrown[0]]))
    return Variant("coin", "Coin", (), "", (), goal, Decision.ROLL_HOLD, (1,), (roll,))


@pytest.fixture(scope="module")
def pig30() -> Questions:
    return open_questions(find_variant("pig", goal=30), players=3)


def test_the_endings_listed() -> None:
    labels = [e.label for e in ENDINGS]
    assert len(labels) == len(set(labels)) == 7
    assert SEED_ENDING in ENDINGS and SEED_ENDING.label == "final round, last turn, first to reach wins ties"
    assert ENDINGS[0].of(find_variant("pig-dice")).endgame is Endgame.FIRST_TO_GOAL
    assert [e.is_own(find_variant("pig-dice")) for e in ENDINGS].count(True) == 1


def test_pig_to_100_first_to_goal_reference() -> None:
    # Neller & Presser 2004 (Optimal play of the dice game Pig): the first player wins 0.5306 with optimal play
    found = seat_chances(find_variant("pig"), ENDINGS[0], 2)
    assert found.seats is not None and found.seats[0] == pytest.approx(0.5306, abs=5e-5)
    assert found.own and found.reason is None


@pytest.mark.slow
def test_first_player_chances_are_the_solvers(pig30: Questions) -> None:
    pig = find_variant("pig", goal=30)
    assert [f.ending for f in pig30.endings] == list(ENDINGS)
    for found in pig30.endings:
        assert found.reason is None and found.seats is not None
        expected = exact_policy(found.ending.of(pig), 2).win_probability_by_seat()
        assert found.seats == pytest.approx(expected, abs=1e-12)
    assert pig30.endings[0].seats is not None
    assert pig30.endings[0].seats[0] == pytest.approx(float(solve(pig).values[0, 0]), abs=1e-12)


def test_by_how_much_is_read_from_the_policy(pig30: Questions) -> None:
    pig = find_variant("pig", goal=30)
    goal = pig.goal
    found = pig30.margins_for(SEED_ENDING)
    assert found is not None and found.stop is not None
    policy = exact_policy(SEED_ENDING.of(pig), 2)
    assert (found.stop >= goal).all()
    for i, j in [(0, 0), (20, 25), (25, 29), (29, 29), (10, 28), (28, 5)]:
        stop = int(found.stop[i, j])
        for k in range(goal - i, stop - i):  # rolls on past the goal until the stop ...
            assert policy.best(Position((i, j), k)) != "hold", (i, j, k)
        values = policy.action_values(Position((i, j), stop - i))  # ... and holds there
        assert policy.best(Position((i, j), stop - i)) == "hold"
        assert values["hold"] >= values["roll"] - 1e-12
    summary = found.summary(goal)
    assert summary["largest_margin"] == int((found.stop - goal).max()) > 0
    # with a big turn total at stake and the other far behind, stop at the goal; close to the goal with
    # little at stake, or against a close opponent, go on
    assert (found.stop[:10, 0] == goal).all()
    assert found.stop[29, 0] > goal and found.stop[0, 29] > goal
    first_to_goal = margins(pig, ENDINGS[0])
    assert first_to_goal.stop is None and "nobody goes past" in str(first_to_goal.reason)


def test_the_last_player_rolls_until_passing_the_leader_in_pig(pig30: Questions) -> None:
    turn = next(t for t in pig30.last_turns if t.ending == SEED_ENDING)
    assert turn.hold_at is not None
    leads = np.arange(1, len(turn.hold_at) + 1)
    assert (turn.hold_at == leads + 1).all()
    assert turn.rule.startswith("rolls until passing the leader")
    assert turn.chance[1] == pytest.approx(5 / 6, abs=1e-12)  # one roll of 2-6 passes a lead of 1
    roll = next(t for t in pig30.last_turns if t.ending.final_turn is FinalTurn.ROLL)
    assert roll.hold_at is None and "one last throw" in roll.rule
    assert roll.chance[6] == 0.0  # one die cannot pass a lead of 6


def test_the_last_player_holds_on_a_shared_tie_when_rolling_is_no_better() -> None:
    # with the coin, rolling from a tie wins 1/2 (bust 1/2, else pass): no better than half a shared tie,
    # so the tie-break holds; with ties to the first to reach, a tie is worth nothing and they roll on
    game = coin(8)
    shared = last_turn(game, Ending(Endgame.FINAL_ROUND, TieRule.SHARED, FinalTurn.TURN))
    first = last_turn(game, Ending(Endgame.FINAL_ROUND, TieRule.FIRST_TO_REACH, FinalTurn.TURN))
    assert shared is not None and first is not None
    assert shared.hold_at is not None and first.hold_at is not None
    leads = np.arange(1, len(shared.hold_at) + 1)
    assert (shared.hold_at == leads).all() and "holds on a tie" in shared.rule
    assert (first.hold_at == leads + 1).all()


def test_seat_chances_follow_exactness(pig30: Questions) -> None:
    pig = find_variant("pig", goal=30)
    (answer,) = pig30.players
    assert answer.players == 3 and answer.goal == 30
    for found in answer.chances:
        reason = exactness(found.ending.of(pig), 3)
        assert found.reason == reason
        if reason is None:
            assert found.seats is not None and sum(found.seats) == pytest.approx(1.0, abs=1e-9)
            expected = exact_policy(found.ending.of(pig), 3).win_probability_by_seat()
            assert found.seats == pytest.approx(expected, abs=1e-12)
    study = answer.approximation
    assert study is not None and study.check is not None and study.check < 1e-9
    assert [s.seat for s in study.seats] == [0, 1, 2]
    assert all(s.loss > -1e-12 for s in study.seats)


def test_variants_without_a_total_or_a_solver() -> None:
    hog = open_questions(find_variant("hog", goal=20), players=2)
    assert all(m.stop is None and "one throw per turn" in str(m.reason) for m in hog.margins)
    assert all(t.hold_at is None for t in hog.last_turns)
    herd = open_questions(find_variant("swine-herd", goal=20), players=3)
    (own,) = [f for f in herd.endings if f.own]  # everyone's turns at once: solved exactly, the seats equal
    assert own.seats == [0.5, 0.5]
    assert all(f.seats is None and f.reason for f in herd.endings if not f.own)
    assert herd.margins == [] and herd.last_turns == []
    (answer,) = herd.players
    assert answer.approximation is None and answer.reason
    text = questions_text(herd, "md")
    assert "not solved exactly" in text


def test_report_text_in_both_formats(pig30: Questions) -> None:
    markdown = questions_text(pig30, "md")
    assert "# Pigtail's open questions: Pig, goal 30" in markdown and "seed 00" not in markdown.lower()
    assert "## By how much?" in markdown and "how good is the approximation?" in markdown
    page = questions_text(pig30, "html")
    assert page.startswith("<!doctype html>") and "<table>" in page and "</html>" in page


# -- the command line ------------------------------------------------------------------------------
def run(*args: str) -> Any:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def refused(args: list[str], *words: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    for word in words:
        assert word in lines[0], lines[0]


def test_cli_questions_json() -> None:
    data = json.loads(run("analyze", "pig", "--goal", "20", "--questions", "--json").stdout)
    for key in ("variant", "goal", "first_player_by_ending", "by_how_much", "last_player", "players", "seconds"):
        assert key in data, key
    assert data["goal"] == 20 and len(data["first_player_by_ending"]) == 7
    first = data["first_player_by_ending"][0]
    assert first["endgame"] == "first-to-goal" and first["exact"] and first["variant_ending"]
    assert first["first_player"] == pytest.approx(float(solve(find_variant("pig", goal=20)).values[0, 0]), abs=1e-12)
    (three,) = data["players"]
    assert three["players"] == 3 and three["approximation"]["seats"][0]["seat"] == 1
    assert {"optimal", "approximate", "loss", "seat_chances"} <= set(three["approximation"]["seats"][0])
    assert "arrays" not in data
    with_maps = json.loads(
        run("analyze", "pig", "--goal", "12", "--questions", "--players", "2", "--arrays", "--json").stdout
    )
    maps = with_maps["arrays"]["stop_totals"]
    assert len(maps) == 6 and len(maps[SEED_ENDING.label]) == 12
    assert with_maps["players"] == []


@pytest.mark.slow
def test_cli_questions_tables_and_report(tmp_path: Path) -> None:
    shown = run("analyze", "pig", "--goal", "15", "--questions", "--players", "2").stdout
    assert "first player's chance" in shown and "By how much" in shown
    out = tmp_path / "q.html"
    data = json.loads(
        run("analyze", "pig", "--goal", "15", "--questions", "--players", "2", "--out", str(out), "--json").stdout
    )
    assert data["files"][0] == str(out) and out.read_text().startswith("<!doctype html>")
    for name in ("q-margin.png", "q-last-turn.png"):
        assert (tmp_path / name).stat().st_size > 10_000, name
    markdown = tmp_path / "q.md"
    run("analyze", "pig", "--goal", "15", "--questions", "--players", "2", "--out", str(markdown))
    assert "![By how much](q-margin.png)" in markdown.read_text()


def test_cli_questions_refusals() -> None:
    refused(["analyze", "pig", "--goal", "10", "--players", "3"], "--players", "--questions")
    refused(["analyze", "pig", "--goal", "10", "--players-goal", "8"], "--players-goal", "--questions")
    refused(["analyze", "pig,hog", "--goal", "10", "--questions"], "one variant")
    refused(["analyze", "pig", "--goal", "10", "--questions", "--strategies", "hold:5"], "--strategies")
    refused(["analyze", "pig", "--goal", "10", "--questions", "--players", "9"], "--players")
    refused(["analyze", "pig", "--goal", "10", "--questions", "--players-goal", "11"], "past the variant's 10")
    refused(["analyze", "pig", "--goal", "10", "--questions", "--players", "2", "--players-goal", "8"], "3 or more")
