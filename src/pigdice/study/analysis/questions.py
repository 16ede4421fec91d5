"""Seed 003's open questions, answered with exact figures wherever an exact solver exists.

Seed 003 ("Future Challenges") solves every variant first to the goal and leaves open:

- **Endgame variations.** Once a player reaches the goal the others get one more turn (a final
  round), or the round is finished so everyone has had as many turns; the best score wins, ties
  going to the first to reach it. "These endgame variations presumably encourage players to
  exceed the goal score by a margin in close games, but by how much? What fraction of the time
  does the first optimal player win against an optimal opponent?"
- **Three or more players.** Play the optimal 2-player policy against the highest opponent
  score: "How good an approximation is this?"

``open_questions`` answers them for one variant: the first player's chance under every ending and
tie rule (2 players); by how much the player who reaches the goal goes past it, as a function of
both scores, and the total the last player rolls to, read from the exact policies (not assumed);
each seat's chance with 3 and more players; and the approximation's exact loss per seat
(``approximation``). Which combinations are exact is ``pigdice.solve.exact.exactness``'s answer,
never a list kept here: the rest is reported as not solved exactly, with the reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pigdice.errors import BadParameterError, ResourceLimitError
from pigdice.rules.variant import Decision, Endgame, FinalTurn, TieRule, Variant
from pigdice.solve.exact import exact_policy, exactness
from pigdice.solve.positions import Position
from pigdice.solve.two.endgame import EndgamePolicy
from pigdice.study.analysis.approximation import (
    MAX_EVALUATION_PLAYERS,
    Approximation,
    approximation_study,
    choose_goal,
)
from pigdice.study.question_limits import MARGIN_MAX_GOAL, MAX_QUESTION_PLAYERS

Progress = Callable[[float, str], None]

LAST_TURN_DEFICITS = 200  # the last player's target is read for leads 1 .. min(goal, this)


@dataclass(frozen=True)
class Ending:
    """One way of ending the game: first to the goal, a final round (last turn or roll), or equal turns."""

    endgame: Endgame
    ties: TieRule | None = None  # None where no tie can happen (first to the goal)
    final_turn: FinalTurn | None = None  # None unless a final round

    def of(self, variant: Variant) -> Variant:
        """Return ``variant`` played with this ending."""
        return variant.with_endgame(self.endgame, self.ties, self.final_turn)

    def is_own(self, variant: Variant) -> bool:
        """Return True if this is ``variant``'s own ending (the parts of it that matter)."""
        if variant.endgame is not self.endgame:
            return False
        if self.endgame is Endgame.FIRST_TO_GOAL:
            return True
        return variant.ties is self.ties and (self.final_turn is None or variant.final_turn is self.final_turn)

    @property
    def label(self) -> str:
        """Return the ending for people, e.g. 'final round, last turn, first to reach wins ties'."""
        if self.endgame is Endgame.FIRST_TO_GOAL:
            return "first to the goal wins"
        ties = "ties shared" if self.ties is TieRule.SHARED else "first to reach wins ties"
        if self.endgame is Endgame.EQUAL_TURNS:
            return f"equal turns, {ties}"
        last = "last roll" if self.final_turn is FinalTurn.ROLL else "last turn"
        return f"final round, {last}, {ties}"

    def to_json(self) -> dict[str, Any]:
        """Return the ending as JSON-ready data (None where a part does not apply)."""
        return {
            "endgame": str(self.endgame),
            "ties": None if self.ties is None else str(self.ties),
            "final_turn": None if self.final_turn is None else str(self.final_turn),
            "label": self.label,
        }


ENDINGS = (
    Ending(Endgame.FIRST_TO_GOAL),
    *(
        Ending(Endgame.FINAL_ROUND, ties, final)
        for final in (FinalTurn.TURN, FinalTurn.ROLL)
        for ties in (TieRule.FIRST_TO_REACH, TieRule.SHARED)
    ),
    *(Ending(Endgame.EQUAL_TURNS, ties) for ties in (TieRule.FIRST_TO_REACH, TieRule.SHARED)),
)


def own_ending(variant: Variant) -> Ending:
    """Return the variant's own ending among ``ENDINGS``."""
    return next(e for e in ENDINGS if e.is_own(variant))


SEED_ENDING = Ending(Endgame.FINAL_ROUND, TieRule.FIRST_TO_REACH, FinalTurn.TURN)  # 003: "the last round of turns"


@dataclass
class SeatChances:
    """Each seat's win probability under optimal play with one ending, or why it is not solved exactly."""

    ending: Ending
    players: int
    goal: int
    seats: list[float] | None
    reason: str | None = None  # set when not solved exactly
    own: bool = False  # the variant's own ending
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """Return the chances as JSON-ready data."""
        return {
            **self.ending.to_json(),
            "players": self.players,
            "goal": self.goal,
            "exact": self.seats is not None,
            "seats": self.seats,
            "first_player": None if self.seats is None else self.seats[0],
            "not_solved_exactly": self.reason,
            "variant_ending": self.own,
            "seconds": self.seconds,
        }


@dataclass
class Margins:
    """By how much: the total the player who can reach the goal stops at, from every (score i, other's score j)."""

    ending: Ending
    stop: np.ndarray | None  # (goal, goal) int64: the first total >= goal at which the mover holds
    reason: str | None = None

    def margin(self, goal: int) -> np.ndarray:
        """Return stop - goal: how far past the goal the mover goes."""
        if self.stop is None:
            raise BadParameterError(f"no margins: {self.reason}")
        return self.stop - goal

    def summary(self, goal: int) -> dict[str, Any]:
        """Return the map in a few numbers: the largest margin (and where), and up to which other's score it is 0."""
        if self.stop is None:
            return {**self.ending.to_json(), "reason": self.reason}
        margin = self.margin(goal)
        by_other = margin.max(axis=0)
        nonzero = np.flatnonzero(by_other > 0)
        i, j = np.unravel_index(int(np.argmax(margin)), margin.shape)
        return {
            **self.ending.to_json(),
            "largest_margin": int(margin[i, j]),
            "largest_at": {"score": int(i), "other": int(j)},
            "stops_at_goal_while_other_below": int(nonzero[0]) if nonzero.size else goal,
            "largest_margin_by_other": [int(v) for v in by_other],
            "mean_margin": float(margin.mean()),
        }


@dataclass
class LastTurn:
    """The last player's turn against a leader who reached the goal: their chance and the total they roll to."""

    ending: Ending
    chance: np.ndarray  # chance[d]: the last player's chance (expected share) against a lead of d
    hold_at: np.ndarray | None  # hold_at[d - 1]: the smallest turn total at which they hold, lead d >= 1
    rule: str

    def to_json(self, arrays: bool = True) -> dict[str, Any]:
        """Return the last turn as JSON-ready data."""
        data: dict[str, Any] = {**self.ending.to_json(), "rule": self.rule}
        data["chance_by_lead"] = [float(v) for v in self.chance]
        if self.hold_at is not None:
            data["holds_at_by_lead"] = [int(v) for v in self.hold_at]
            data["leads_from"] = 1
        return data


@dataclass
class PlayersAnswer:
    """Each seat's chance with n players (every ending) and the approximation's loss (first to the goal)."""

    players: int
    goal: int
    goal_note: str
    chances: list[SeatChances]
    approximation: Approximation | None
    reason: str | None = None  # why the approximation was not measured

    def to_json(self) -> dict[str, Any]:
        """Return the answer as JSON-ready data."""
        return {
            "players": self.players,
            "goal": self.goal,
            "goal_note": self.goal_note,
            "endings": [c.to_json() for c in self.chances],
            "approximation": None if self.approximation is None else self.approximation.to_json(),
            "approximation_not_measured": self.reason,
        }


@dataclass
class Questions:
    """Seed 003's open questions for one variant, answered."""

    variant: Variant
    endings: list[SeatChances]  # 2 players, every ending
    margins: list[Margins]
    last_turns: list[LastTurn]
    players: list[PlayersAnswer]
    seconds: float
    timings: dict[str, float] = field(default_factory=dict)

    def margins_for(self, ending: Ending) -> Margins | None:
        """Return the margins map of ``ending``, if it was computed."""
        return next((m for m in self.margins if m.ending == ending and m.stop is not None), None)

    def to_json(self, arrays: bool = False) -> dict[str, Any]:
        """Return every figure as JSON-ready data; ``arrays`` adds the margin maps, indexed [i][j]."""
        goal = self.variant.goal
        data: dict[str, Any] = {
            "variant": self.variant.name,
            "goal": goal,
            "variant_ending": own_ending(self.variant).to_json(),
            "source": "Neller & Presser, Pigtail: A Pig Addendum (2005), Future Challenges",
            "first_player_by_ending": [e.to_json() for e in self.endings],
            "by_how_much": [m.summary(goal) for m in self.margins],
            "last_player": [t.to_json() for t in self.last_turns],
            "players": [p.to_json() for p in self.players],
            "seconds": self.seconds,
            "timings": self.timings,
        }
        if arrays:
            data["arrays"] = {
                "index": "[i][j]: the mover's score i, the other's score j; the total they stop at, past the goal",
                "stop_totals": {m.ending.label: m.stop.tolist() for m in self.margins if m.stop is not None},
            }
        return data


# -- the parts --------------------------------------------------------------------------------------
def _labelled(progress: Progress | None, prefix: str) -> Progress | None:
    return None if progress is None else lambda f, what: progress(f, f"{prefix}{what}")


def seat_chances(variant: Variant, ending: Ending, players: int, progress: Progress | None = None) -> SeatChances:
    """Return each seat's chance under optimal play with ``ending``, or why it is not solved exactly."""
    own = ending.is_own(variant)
    try:
        game = ending.of(variant)
    except BadParameterError as exc:  # an ending this variant cannot have (Swine Herd's is fixed)
        return SeatChances(ending, players, variant.goal, None, str(exc), own)
    reason = exactness(game, players)
    if reason is not None:
        return SeatChances(ending, players, variant.goal, None, reason, own)
    started = time.perf_counter()
    try:
        policy = exact_policy(game, players, progress=progress)
    except ResourceLimitError as exc:
        return SeatChances(ending, players, variant.goal, None, str(exc), own)
    seats = policy.win_probability_by_seat()
    return SeatChances(ending, players, variant.goal, seats, None, own, time.perf_counter() - started)


def margins(variant: Variant, ending: Ending, progress: Progress | None = None) -> Margins:
    """Return the total the mover stops at once at or past the goal, from every (i, j), 2 players, exact.

    Read from the exact policy (the first total >= goal at which it holds; under equal turns the
    first seat's, since the second seat's goal ends the game at once).
    """
    game = ending.of(variant)
    if ending.endgame is Endgame.FIRST_TO_GOAL:
        return Margins(ending, None, "first to the goal: reaching it wins, so nobody goes past it")
    if not variant.can_hold:
        return Margins(ending, None, f"{variant.name} has one throw per turn: there is no total to stop at")
    reason = exactness(game, 2)
    if reason is not None:
        return Margins(ending, None, reason)
    goal = variant.goal
    if goal > MARGIN_MAX_GOAL:
        return Margins(ending, None, f"the map is drawn up to goal {MARGIN_MAX_GOAL} ({goal}^2 positions here)")
    try:
        policy = exact_policy(game, 2, progress=progress)
    except ResourceLimitError as exc:
        return Margins(ending, None, str(exc))
    stop = np.empty((goal, goal), dtype=np.int64)
    for i in range(goal):
        for j in range(goal):
            k = goal - i
            # past the solver's provable stop holding is optimal, so this ends; the bound is a guard
            while policy.best(Position((i, j), k)) != "hold" and k < 100 * goal:
                k += 1
            stop[i, j] = i + k
        if progress is not None:
            progress((i + 1) / goal, f"by how much: {ending.label}")
    return Margins(ending, stop)


def last_turn(variant: Variant, ending: Ending, progress: Progress | None = None) -> LastTurn | None:
    """Return the last player's chance and target against each lead, read from the exact policy (2 players).

    None for first to the goal (no last turn) or where the ending is not solved exactly.
    """
    if ending.endgame is Endgame.FIRST_TO_GOAL:
        return None
    game = ending.of(variant)
    if exactness(game, 2) is not None:
        return None
    try:
        policy = exact_policy(game, 2, progress=progress)
    except ResourceLimitError:
        return None
    if not isinstance(policy, EndgamePolicy):
        raise BadParameterError(f"the exact policy of {game.name} ({ending.label}) has no last turn")
    goal = variant.goal
    deficits = min(goal, LAST_TURN_DEFICITS)
    chance = np.array(policy.last[: deficits + 1], dtype=np.float64)
    one_throw = variant.decision is Decision.DICE_PER_TURN or ending.final_turn is FinalTurn.ROLL
    if one_throw or not variant.can_hold:
        return LastTurn(ending, chance, None, "one last throw, banked: there is no total to roll to")
    hold_at = np.empty(deficits, dtype=np.int64)
    behind = goal - 1  # the last player's score; the leader has behind + d >= goal
    for d in range(1, deficits + 1):
        k = 1
        while policy.best(Position((behind, behind + d), k, final=())) != "hold":
            k += 1
        hold_at[d - 1] = k
    return LastTurn(ending, chance, hold_at, _last_rule(hold_at))


def _last_rule(hold_at: np.ndarray) -> str:
    """Return what the last player's holds say: roll until passing the leader, or where they differ."""
    leads = np.arange(1, len(hold_at) + 1)
    past = hold_at == leads + 1
    if past.all():
        return f"rolls until passing the leader (holds one point past the lead), at every lead from 1 to {len(leads)}"
    tie = hold_at == leads
    parts = []
    if tie.any():
        parts.append(f"holds on a tie at leads {_ranges(leads[tie])}")
    other = ~(past | tie)
    if other.any():
        parts.append(f"holds elsewhere at leads {_ranges(leads[other])}")
    return f"rolls until passing the leader except: {'; '.join(parts)}"


def _ranges(values: np.ndarray) -> str:
    """Return sorted whole numbers as ranges, e.g. '1-3, 7'."""
    out: list[str] = []
    start = prev = int(values[0])
    for v in [int(x) for x in values[1:]] + [None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        out.append(f"{start}-{prev}" if prev > start else f"{start}")
        if v is not None:
            start = prev = v
    return ", ".join(out)


def players_answer(variant: Variant, players: int, goal: int | None, progress: Progress | None = None) -> PlayersAnswer:
    """Return each seat's chance with ``players`` players under every ending, and the approximation's losses."""
    if variant.is_simultaneous:  # nothing to solve: every ending says why
        unsolved = [seat_chances(variant, e, players) for e in ENDINGS]
        return PlayersAnswer(
            players, variant.goal, f"the variant's goal {variant.goal}", unsolved, None, unsolved[0].reason
        )
    asked = goal
    goal, note = choose_goal(variant.first_to_goal(), players, asked)
    game = variant.with_goal(goal)
    approximation: Approximation | None = None
    reason: str | None = None
    chances: list[SeatChances] = []
    first = ENDINGS[0]
    if exactness(first.of(game), players) is None:
        try:
            approximation = approximation_study(variant, players, asked, progress)
        except ResourceLimitError as exc:
            reason = str(exc)
    else:
        reason = exactness(first.of(game), players)
    for ending in ENDINGS:
        if ending == first and approximation is not None:
            seconds = approximation.solve_seconds
            chances.append(
                SeatChances(ending, players, goal, approximation.optimal, None, ending.is_own(variant), seconds)
            )
            continue
        found = seat_chances(game, ending, players, _labelled(progress, f"{players} players, {ending.label}: "))
        found.own = ending.is_own(variant)
        chances.append(found)
    return PlayersAnswer(players, goal, note, chances, approximation, reason)


def open_questions(
    variant: Variant,
    players: int = 3,
    players_goal: int | None = None,
    progress: Progress | None = None,
) -> Questions:
    """Answer seed 003's open questions for ``variant`` with exact figures where exact solvers exist.

    ``players``: the most players studied (2: only the 2-player questions; 4 takes minutes at goal 100).
    ``players_goal``: the goal of the games of 3 or more players (default: the variant's, lowered to the
    largest whose arrays fit in ``APPROXIMATION_BYTES``).
    """
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= MAX_QUESTION_PLAYERS:
        raise BadParameterError(
            f"the open questions are answered for 2 to {MAX_QUESTION_PLAYERS} players, not {players!r}"
        )
    if players_goal is not None and players_goal > variant.goal:
        raise BadParameterError(f"the goal for 3 or more players ({players_goal}) is past the variant's {variant.goal}")
    if players > MAX_EVALUATION_PLAYERS:  # pragma: no cover - MAX_QUESTION_PLAYERS is smaller
        raise BadParameterError(f"at most {MAX_EVALUATION_PLAYERS} players")
    started = time.perf_counter()
    timings: dict[str, float] = {}
    mark = time.perf_counter()
    endings = [seat_chances(variant, e, 2, _labelled(progress, f"2 players, {e.label}: ")) for e in ENDINGS]
    timings["endings"] = time.perf_counter() - mark
    mark = time.perf_counter()
    maps: list[Margins] = []
    turns: list[LastTurn] = []
    if not variant.is_simultaneous:
        for ending in ENDINGS[1:]:
            maps.append(margins(variant, ending, progress))
            found = last_turn(variant, ending, progress)
            if found is not None:
                turns.append(found)
    timings["by_how_much"] = time.perf_counter() - mark
    answers: list[PlayersAnswer] = []
    for n in range(3, players + 1):
        mark = time.perf_counter()
        answers.append(players_answer(variant, n, players_goal, progress))
        timings[f"{n}_players"] = time.perf_counter() - mark
    return Questions(variant, endings, maps, turns, answers, time.perf_counter() - started, timings)
