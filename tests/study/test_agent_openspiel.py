"""OpenSpiel policies evaluated exactly: python_pigdice and pig policies, tables and files, and bad input."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel policies need open_spiel (pip install 'pigdice[rl]')")

from open_spiel.python import policy as openspiel_policy  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import pigdice.envs.openspiel  # noqa: E402, F401  (registers python_pigdice)
from pigdice.cli.app import app  # noqa: E402
from pigdice.errors import BadStrategyError  # noqa: E402
from pigdice.rules import find_variant  # noqa: E402
from pigdice.study.agent_evaluation import evaluate  # noqa: E402
from pigdice.study.agent_tables import agent_table, decision_positions  # noqa: E402

GOAL = 10
HOLD_AT = 4
PIG_TOTAL = re.compile(r"Turn total: (\d+)")


def turn_total(state: Any) -> int:
    """Return the turn total of a python_pigdice or pig state."""
    if hasattr(state, "position"):
        return int(state.position.turn_total)
    return int(PIG_TOTAL.search(str(state))[1])


def hold_at_table(game: Any, hold_at: int = HOLD_AT) -> Any:
    """Return a TabularPolicy over every position of ``game`` that rolls below ``hold_at`` and holds from it."""
    table = openspiel_policy.TabularPolicy(game, to_string=str)  # one state per position: str is the position
    for index, state in enumerate(table.states):
        table.action_probability_array[index] = [1.0, 0.0] if turn_total(state) < hold_at else [0.0, 1.0]
    return table


class HoldAt(openspiel_policy.Policy):
    """A policy that is not a table: rolls below a turn total, holds from it (different seats: optional)."""

    def __init__(self, game: Any, hold_at: int = HOLD_AT, second_seat_hold_at: int | None = None) -> None:
        super().__init__(game, [0, 1])
        self.hold_at = (hold_at, hold_at if second_seat_hold_at is None else second_seat_hold_at)

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        """Return roll or hold with certainty."""
        player = state.current_player() if player_id is None else player_id
        holds = turn_total(state) >= self.hold_at[player]
        return {0: 0.0, 1: 1.0} if holds else {0: 1.0, 1: 0.0}


@pytest.fixture(scope="module")
def reference() -> Any:
    return evaluate(f"hold:{HOLD_AT}", "pig", goal=GOAL)


@pytest.fixture(scope="module")
def games() -> dict[str, Any]:
    return {
        "pig": pyspiel.load_game("pig", {"winscore": GOAL}),
        "python_pigdice": pyspiel.load_game("python_pigdice", {"goal": GOAL}),
    }


@pytest.mark.parametrize("name", ["pig", "python_pigdice"])
def test_a_hold_at_table_evaluates_to_hold_at_exactly(name: str, games: dict[str, Any], reference: Any) -> None:
    result = evaluate(hold_at_table(games[name]), "pig", goal=GOAL)
    assert result.seats == reference.seats
    assert result.average == reference.average
    assert result.same_choice_share == reference.same_choice_share
    assert result.agent == "OpenSpiel TabularPolicy"


@pytest.mark.parametrize("name", ["pig", "python_pigdice"])
def test_a_policy_asked_at_built_nodes_evaluates_to_hold_at(name: str, games: dict[str, Any], reference: Any) -> None:
    result = evaluate(HoldAt(games[name]), "pig", goal=GOAL)
    assert result.seats == reference.seats
    assert evaluate(HoldAt(games[name], HOLD_AT + 3), "pig", goal=GOAL).average != reference.average


def test_another_variant_through_python_pigdice() -> None:
    game = pyspiel.load_game("python_pigdice", {"variant": "two-dice-pig", "goal": 12})
    assert evaluate(HoldAt(game, 8), "two-dice-pig", goal=12).seats == evaluate("hold:8", "two-dice-pig", goal=12).seats


class Dice(openspiel_policy.Policy):
    """A Hog policy that always throws the same number of dice."""

    def __init__(self, game: Any, dice: int) -> None:
        super().__init__(game, [0, 1])
        self.action = game.variant.choices.index(dice)

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        """Return the one dice choice with certainty."""
        return {action: float(action == self.action) for action in state.legal_actions()}


def test_a_dice_choice_variant_through_python_pigdice() -> None:
    game = pyspiel.load_game("python_pigdice", {"variant": "hog", "goal": 12})
    assert evaluate(Dice(game, 5), "hog", goal=12).seats == evaluate("dice:5", "hog", goal=12).seats


def test_the_table_matches_the_spec_where_the_game_can_go(games: dict[str, Any]) -> None:
    pig = find_variant("pig", goal=GOAL)
    mine = agent_table(hold_at_table(games["pig"]), pig).table
    spec = agent_table(f"hold:{HOLD_AT}", pig).table
    reachable = decision_positions(pig)
    reachable[1, :, :] = reachable[:, 1, :] = reachable[:, :, 1] = False  # pig never makes a 1
    assert np.array_equal(mine[reachable], spec[reachable])
    assert np.all(mine[1] == 1) and np.all(mine[:, :, 1] == 1)  # the positions pig cannot reach are read as roll


def test_bad_policies_are_one_clear_error(games: dict[str, Any]) -> None:
    cases = [
        (HoldAt(games["pig"]), "pig", 12, "plays pig to 10"),
        (HoldAt(pyspiel.load_game("pig", {"winscore": GOAL, "diceoutcomes": 4})), "pig", GOAL, "4 faces"),
        (HoldAt(games["python_pigdice"]), "big-pig", GOAL, "plays pig to 10"),
        (openspiel_policy.UniformRandomPolicy(pyspiel.load_game("tic_tac_toe")), "pig", GOAL, "'tic_tac_toe'"),
        (HoldAt(games["python_pigdice"], HOLD_AT, HOLD_AT + 1), "pig", GOAL, "differently as the first and"),
    ]
    for policy, variant, goal, words in cases:
        with pytest.raises(BadStrategyError, match=re.escape(words)):
            evaluate(policy, variant, goal=goal)


def saved(table: Any, path: Path) -> Path:
    """Write a TabularPolicy in OpenSpiel's text form (pyspiel.TabularPolicy.serialize()) and return the path."""
    path.write_text(openspiel_policy.python_policy_to_pyspiel_policy(table).serialize())
    return path


def test_a_saved_table_evaluates_like_the_table(games: dict[str, Any], reference: Any, tmp_path: Path) -> None:
    for name in ("pig", "python_pigdice"):
        if name == "python_pigdice":  # its own keys are histories: key the table by position to save it
            table = hold_at_table(games[name])
            text = "TabularPolicy:" + "<~>".join(
                f"{state}<~>0={float(row[0])},1={float(row[1])}"
                for state, row in zip(table.states, table.action_probability_array, strict=True)
                if state.legal_actions() == [0, 1]
            )
            path = tmp_path / "pigdice.txt"
            path.write_text(text)
        else:
            path = saved(hold_at_table(games[name]), tmp_path / "pig.txt")
        result = evaluate(f"openspiel:{path}", "pig", goal=GOAL)
        assert result.seats == reference.seats, name
        assert result.agent == f"OpenSpiel policy {path.name}"


def test_the_command_evaluates_a_saved_table_and_refuses_bad_files(
    games: dict[str, Any], reference: Any, tmp_path: Path
) -> None:
    good = saved(hold_at_table(games["pig"]), tmp_path / "pig10.txt")
    smaller = saved(hold_at_table(pyspiel.load_game("pig", {"winscore": 8})), tmp_path / "pig8.txt")
    histories = saved(hold_at_table(games["python_pigdice"]), tmp_path / "histories.txt")
    pickled = tmp_path / "policy.pkl"
    pickled.write_bytes(b"\x80\x05cos\nsystem\n(S'echo hi'\ntR.")
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("TabularPolicy:Scores: 0 0, Turn total: 0\nCurrent player: 0\n<~>0=lots")
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    runner = CliRunner()
    result = runner.invoke(app, ["evaluate", f"openspiel:{good}", "--goal", str(GOAL), "--json"])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert json.loads(result.stdout)["seats"] == list(reference.seats)
    for spec, goal, words in (
        (f"openspiel:{good}", 8, "outside pig to 8"),
        (f"openspiel:{smaller}", GOAL, "a policy of a smaller goal?"),
        (f"openspiel:{histories}", GOAL, "not a position"),
        (f"openspiel:{pickled}", GOAL, "not an OpenSpiel policy"),
        (f"openspiel:{garbage}", GOAL, "not action=probability"),
        (f"openspiel:{fifo}", GOAL, "a pipe"),
        ("openspiel:/dev/zero", GOAL, "a device"),
        (f"openspiel:{tmp_path / 'missing.txt'}", GOAL, "no policy file missing.txt"),
        ("openspiel:", GOAL, "name the policy file"),
    ):
        failed = runner.invoke(app, ["evaluate", spec, "--goal", str(goal)])
        assert failed.exit_code == 2, failed.output
        lines = failed.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], failed.stderr
