"""Swine Herd in the terminal: every standing seat chooses on the same state, and the game replays."""

from __future__ import annotations

import io

import numpy as np
from rich.console import Console

from pigdice.engine.game import GameState, Hold, Roll, replay
from pigdice.players.base import Human
from pigdice.rules import find_variant
from pigdice.terminal.game import TerminalGame


class Watcher:
    """A robot that stays standing and remembers every state it was shown."""

    name = "watcher"

    def __init__(self) -> None:
        self.seen: list[GameState] = []

    def choose(self, state: GameState, rng: np.random.Generator) -> Roll | Hold:
        self.seen.append(state)
        return Roll()


def test_a_robot_never_sees_the_choice_a_person_made_at_the_same_moment() -> None:
    herd = find_variant("swine-herd", goal=12)
    watcher = Watcher()
    asked: list[tuple[int, int]] = []  # (turn, roll) of every moment the person chose at

    def sit(prompt: object) -> str:
        asked.append((game.state.turn, game.state.rolls_this_turn))
        return "s"

    out = io.StringIO()
    game = TerminalGame(herd, [Human("you"), watcher], 4, console=Console(file=out, width=200), read=sit, pause=0)
    assert game.run() == 0
    assert asked and watcher.seen, "both were asked"
    moments = {(seen.turn, seen.rolls_this_turn): seen for seen in watcher.seen}
    shared = [moment for moment in asked if moment in moments]
    assert shared, "the person and the robot chose at the same moment at least once"
    for moment in shared:  # the person sat down then, and the robot, choosing then too, saw them standing
        assert moments[moment].standing == (True, True)
        assert moments[moment].current == 1
    final, _ = replay(herd, 2, 4, game.actions)
    assert final.scores == game.state.scores and final.winners == game.state.winners
    assert "You sit down and bank" in out.getvalue()


def test_a_record_cut_in_the_middle_of_a_moment_replays_its_moves_one_by_one() -> None:
    herd = find_variant("swine-herd", goal=30)
    robots = [Watcher(), Watcher(), Watcher()]
    played = TerminalGame(herd, robots, 8, console=Console(file=io.StringIO(), width=200), pause=0)
    assert played.run() == 0
    first_choice = next(i for i, state in enumerate(robots[0].seen) if state.turn_total > 0)
    cut = 3 * first_choice + 1  # the first rolls (everyone stands), then seat 0's choice of the next moment
    out = io.StringIO()
    replayed = TerminalGame(herd, robots, 8, console=Console(file=out, width=200), pause=0, script=played.actions[:cut])
    assert replayed.run() == 0
    assert replayed.actions == played.actions[:cut]
    assert replayed.state.current == 1 and replayed.state.turn_total > 0  # seat 0 chose; seats 1 and 2 still to
    assert "The record ends here" in out.getvalue()
