"""Exact 2-player play under the final-round and equal-turns endings, with both tie rules.

Seed 003 solves every variant first-to-goal "for symmetry" and leaves the real endings open.
Here the player who banks a total T at or past the goal hands the other one last turn (or one
last roll: Pig Dice's ``final_turn=roll``), worth L[T - j] to them (``pigdice.solve.two.lastturn``),
so banking past the goal is worth 1 - L[T - j] instead of 1. Totals run past the goal: the
player who reaches it chooses how far to go, with the same turn sweep as first-to-goal, which
stops where holding is provably optimal (``rollhold._turn_sweep``). Under equal turns only a
goal reached by the first seat gives a last turn: a goal reached by the second seat ends the
game (it is ahead), so the values depend on the seat: V0[i, j] (seat 0 to move) pairs with
V1[j, i]. Everything else (levels of score sums, the 2x2 pair solve, resets) is the
first-to-goal solver's (``pigdice.solve.solver.solve_values``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Decision, Endgame, FinalTurn, TieRule, Variant
from pigdice.solve.memory import check_memory, values_bytes
from pigdice.solve.policyreader import ArraySpec, Expected, Number, PolicySchema, read_policy_file
from pigdice.solve.positions import TRUNCATION_ERROR, Position
from pigdice.solve.solved import SolvedPolicy
from pigdice.solve.solver import TOLERANCE, Progress, solve_values
from pigdice.solve.storage import RowCache, save_npz
from pigdice.solve.tables import EffectTable, effect_table
from pigdice.solve.two import dicechoice, lastturn, rollhold
from pigdice.solve.two.bundles import NO_LAST, Ends

FORMAT_VERSION = 1
MIN_LAST = 256  # the last-turn table's first length; it doubles while it is too short
MAX_LAST = lastturn.MAX_LENGTH  # ... up to this length: past it the truncation error is reported as it is
ACCEPTABLE_TRUNCATION = 1e-9  # a solve whose values may be off by more is refused


def solves_endgame(variant: Variant) -> bool:
    """Return True if ``variant`` has a final round or equal turns (the ending this module solves)."""
    return variant.endgame is not Endgame.FIRST_TO_GOAL


def tie_value(variant: Variant) -> float:
    """Return what the last player's tie with the leader is worth to them: 1/2 shared, 0 first-to-reach."""
    return 0.5 if variant.ties is TieRule.SHARED else 0.0


def single_last_throw(variant: Variant) -> bool:
    """Return True if the last turn is one banked throw (a final roll, or Hog's one throw per turn)."""
    final_roll = variant.endgame is Endgame.FINAL_ROUND and variant.final_turn is FinalTurn.ROLL
    return final_roll or variant.decision is Decision.DICE_PER_TURN


def bust_chance(table: EffectTable) -> float:
    """Return the smallest chance of a bust among the roll choices (the margin of ``_turn_sweep``'s stop)."""
    return table.lowest_bust_chance


def last_turn_table(variant: Variant, table: EffectTable, length: int, known: np.ndarray | None = None) -> np.ndarray:
    """Return L[d] for d < ``length``: the last player's share at the start of their last turn,
    d = the leader's total - their score. Past the end the kernels read L[-1] and count it as error.
    ``known``: a shorter table of the same game, kept as the start of this one.
    """
    tie, single = tie_value(variant), single_last_throw(variant)
    out = np.empty(length)
    start = 0 if known is None else min(known.size, length)
    out[:start] = known[:start] if known is not None else out[:0]
    lastturn.extend_starts(start, length, tie, single, table, out)
    return out


def first_table_length(variant: Variant, table: EffectTable, cap: int) -> int:
    """Return the last-turn table's first length: past every total one throw from below the goal (or cap)."""
    return max(MIN_LAST, variant.goal + int(table.amounts.max()) + 2, 2 * cap + int(table.amounts.max()) + 2)


def _endgame_bytes(width: int) -> Callable[[int], int]:
    """Return the solve's memory need at a goal: V0, V1 and the kernel's rows C and D (goal x goal + width)."""
    return lambda g: 2 * values_bytes(g) + 2 * 8 * g * (g + width)


@dataclass
class EndgamePolicy(SolvedPolicy):
    """Exact 2-player values under a final-round or equal-turns ending; actions derived on demand."""

    variant: Variant
    values: np.ndarray  # (seats, goal, goal): 1 seat (final round) or 2 (equal turns), mover's score first
    last: np.ndarray  # L[d], see last_turn_table
    iterations: int = 0
    residual: float = 0.0
    truncation: float = 0.0  # the most the stop past the goal may move a value (<= TRUNCATION_ERROR)
    seconds: float = 0.0
    cap: int = 0  # > 0: totals were cut there (tests)
    from_cache: bool = False
    _rows: RowCache[tuple[int, int, int], tuple[np.ndarray, ...]] = field(default_factory=RowCache, repr=False)

    players = 2

    @property
    def nbytes(self) -> int:
        """Return the bytes of the arrays kept: values, the last-turn table and cached rows."""
        return int(self.values.nbytes + self.last.nbytes) + self._rows.nbytes

    @property
    def states(self) -> int:
        """Return the decision states before the goal: (seat,) i, j, k with i + k < goal (Hog: i, j)."""
        g = self.goal
        per_seat = g * g if self.variant.decision is Decision.DICE_PER_TURN else g * g * (g + 1) // 2
        return int(self.values.shape[0]) * per_seat

    @cached_property
    def table(self) -> EffectTable:
        """Return the numeric effect table."""
        return effect_table(self.variant)

    @cached_property
    def pbust(self) -> float:
        """Return the smallest bust chance of a roll choice."""
        return bust_chance(self.table)

    def _seat_values(self, seat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return (the mover's values, the next mover's values, the mover's last-turn table) for ``seat``."""
        if self.values.shape[0] == 1:
            return self.values[0], self.values[0], self.last
        mover_last = self.last if seat == 0 else NO_LAST  # the second seat's goal ends the game
        return self.values[seat], self.values[1 - seat], mover_last

    def _names(self) -> list[str]:
        variant = self.variant
        return ["roll"] if not variant.chooses_dice else [f"roll:{n}" for n in variant.choices]

    def _check(self, position: Position) -> None:
        if position.players != 2:
            raise BadParameterError(f"this policy is for 2 players, not {position.players}")
        score, other = position.scores
        if position.final is None:
            if score >= self.goal or other >= self.goal:
                raise BadParameterError(
                    f"a score at or past the goal {self.goal} means the final round is on: "
                    "give the position's final turns"
                )
        elif position.final:
            raise BadParameterError("with 2 players nobody plays after the last turn")
        elif other < self.goal or score >= self.goal:
            raise BadParameterError(
                f"in the last turn the other player has reached the goal {self.goal} and you have not"
            )
        if self.variant.decision is Decision.DICE_PER_TURN and position.turn_total:
            raise BadParameterError(f"{self.variant.name} has no turn total")
        # past the last-turn table a value would be read off its end (off by up to last[-1])
        stretch = 2 if self.table.has_double else 1  # a doubling jumps furthest
        jump = int(self.table.amounts.max())
        if position.final is None and stretch * (score + position.turn_total) + jump - other >= self.last.size:
            top = (self.last.size - jump + other) // stretch - 1
            raise BadParameterError(
                f"a total of {score + position.turn_total} is past the {top} this solve follows; "
                f"holding there wins with probability at least {1.0 - float(self.last[-1]):.6f}"
            )

    # -- the last turn -----------------------------------------------------------------------
    def _last_turn(self, need: int, turn_total: int) -> dict[str, float]:
        """Return the last player's share for each option at deficit ``need`` and ``turn_total``."""
        t = self.table
        tie = tie_value(self.variant)
        names = self._names()
        if single_last_throw(self.variant):
            values = np.empty(len(names))
            lastturn.single_throw(need, tie, t, values)
            return dict(zip(names, (float(v) for v in values), strict=True))
        if turn_total > need:
            return {"hold": 1.0}
        key = (-1, need, 0)
        row = self._rows.get(key)
        if row is None:
            rows = lastturn.last_turn_rows(t, need + 1)
            lastturn.last_turn_row(need, tie, t, rows)
            row = self._rows.keep(key, tuple(rows), sum(part.nbytes for part in rows))
        _, _, hold, rolls = row
        return {"hold": float(hold[turn_total]), **{n: float(rolls[c, turn_total]) for c, n in enumerate(names)}}

    # -- before the goal is reached ----------------------------------------------------------
    def _turn(self, position: Position) -> dict[str, float]:
        score, other = position.scores
        k = position.turn_total
        _, nxt, last = self._seat_values(position.seat)
        names = self._names()
        if last.shape[0] == 0 and score + k >= self.goal:
            return {"hold": 1.0}  # the second seat's goal under equal turns: the game ends, won
        if self.variant.decision is Decision.DICE_PER_TURN:
            const = np.empty(len(names))
            coef = np.empty(len(names))
            x = float(nxt[other, score])
            dicechoice.throw_values(nxt, score, other, self.goal, x, self.table, const, coef, last)
            return dict(zip(names, (float(v) for v in const + coef * x), strict=True))
        key = (position.seat if self.values.shape[0] == 2 else 0, score, other)
        row = self._rows.get(key)
        if row is None or row[0].shape[0] <= k:
            ends = Ends(last, NO_LAST, self.pbust, self.cap)
            row = rollhold.turn_row(nxt, score, other, self.goal, self.table, rollhold.NO_FIXED, ends, k + 1)
            row = self._rows.keep(key, row, sum(a.nbytes for a in row))
        _, _, hold, rolls = row
        values = {"hold": float(hold[k])}
        for c, name in enumerate(names):
            values[name] = float(rolls[c, k])
        return values

    # -- the common interface ----------------------------------------------------------------
    def action_values(self, position: Position) -> dict[str, float]:
        """Return the mover's win probability (expected share) for each legal option at ``position``."""
        self._check(position)
        if position.final is not None:
            score, leader = position.scores
            return self._last_turn(leader - score, position.turn_total)
        return self._turn(position)

    def best(self, position: Position) -> str:
        """Return the option the tie-break picks (``positions.py``) at ``position``."""
        values = self.action_values(position)
        rolls = [name for name in values if name != "hold"]
        if not rolls:
            return "hold"
        options = np.array([values.get("hold", -1.0)] + [values[name] for name in rolls])
        best = lastturn.prefer(options, len(options), position.turn_total == 0 or "hold" not in values)
        return "hold" if best == 0 else rolls[best - 1]

    def win_vector(self, position: Position) -> tuple[float, float]:
        """Return (the mover's, the other's) win probability at ``position`` under optimal play."""
        values = self.action_values(position)
        mine = values[self.best(position)]
        return mine, 1.0 - mine

    def win_probability_by_seat(self) -> list[float]:
        """Return each seat's win probability at the start of the game, in turn order."""
        first = float(self.values[0, 0, 0])
        return [first, 1.0 - first]

    # -- persistence -------------------------------------------------------------------------
    def save(self, path: Path) -> None:
        """Save to ``path`` (.npz) with the variant's parameters, ending and format version."""
        meta = {
            "format": FORMAT_VERSION,
            "kind": "endgame",
            "key": endgame_key(self.variant),
            "variant": self.variant.describe(),
            "iterations": self.iterations,
            "residual": self.residual,
            "truncation": self.truncation,
            "seconds": self.seconds,
        }
        save_npz(path, meta, values=self.values, last=self.last)

    @classmethod
    def load(cls, path: Path, variant: Variant) -> EndgamePolicy:
        """Load a policy saved for ``variant``; raise BadParameterError if the file is not a sound one for it."""
        read = read_policy_file(path, endgame_schema(variant))
        numbers = read.numbers
        values, last = read.arrays["values"], read.arrays["last"]
        iterations, residual, truncation = int(numbers["iterations"]), numbers["residual"], numbers["truncation"]
        return cls(variant, values, last, iterations, residual, truncation, numbers["seconds"], 0, True)


def endgame_schema(variant: Variant) -> PolicySchema:
    """Return what an endgame policy file of ``variant`` holds: V per seat, the last-turn table L and the solve."""
    goal = variant.goal
    seats = 2 if variant.endgame is Endgame.EQUAL_TURNS else 1
    longest = 2 * max(MAX_LAST, 2 * goal + 4096)  # the table doubles from its first length while it is short
    return PolicySchema(
        what=f"the policy of {variant.name}",
        goal=goal,
        arrays={"values": ArraySpec((seats, goal, goal)), "last": ArraySpec((range(goal, longest + 1),))},
        expected=(
            Expected("format", FORMAT_VERSION, f"solved for another format or other parameters than {variant.name}"),
            Expected("key", endgame_key(variant), f"solved for another format or other parameters than {variant.name}"),
        ),
        numbers=(Number("iterations"), Number("residual"), Number("truncation"), Number("seconds")),
        memory=lambda g: 3 * seats * values_bytes(g),
    )


def endgame_key(variant: Variant) -> str:
    """Return what identifies an endgame solve: the rules' fingerprint plus ending, ties and final turn."""
    return f"{variant.fingerprint()}-{variant.endgame}-{variant.ties}-{variant.final_turn}"


def solve_endgame(
    variant: Variant, progress: Progress | None = None, cap: int = 0, tolerance: float = TOLERANCE
) -> EndgamePolicy:
    """Solve 2-player ``variant`` under its final-round or equal-turns ending, exactly.

    ``cap`` > 0 cuts totals there (a player at or past it holds); used by the tests' reference.
    """
    variant = variant.require_turns("the endgame solver")
    if not solves_endgame(variant):
        raise BadParameterError(f"{variant.name} is first-to-goal: use pigdice.solve.solve")
    goal = variant.goal
    if cap and cap <= goal:
        raise BadParameterError(f"the cap must lie past the goal {goal}, got {cap}")
    table = effect_table(variant)
    started = time.perf_counter()
    pbust = bust_chance(table)
    length = first_table_length(variant, table, cap)
    last = None
    while True:
        # the table grows until the stop past the goal and every read lie inside it (or it is long)
        last = last_turn_table(variant, table, length, last)
        check_memory(f"solving {variant.name} ({variant.endgame})", goal, _endgame_bytes(last.size))
        if variant.endgame is Endgame.EQUAL_TURNS:
            values = np.full((2, goal, goal), 0.5)
            ends = Ends(last, NO_LAST, pbust, cap)  # only the first seat's goal gives a last turn
            seats = [values[0], values[1]]
        else:
            values = np.full((1, goal, goal), 0.5)
            ends = Ends(last, last, pbust, cap)
            seats = [values[0]]
        sweeps = solve_values(variant, table, seats, ends, tolerance, progress)
        if sweeps.truncation <= TRUNCATION_ERROR or length >= MAX_LAST:
            break
        length *= 2
    if sweeps.truncation > ACCEPTABLE_TRUNCATION:
        raise BadParameterError(
            f"{variant.name}: cutting the totals past the goal may move values by {sweeps.truncation:.3g}"
        )
    seconds = time.perf_counter() - started
    return EndgamePolicy(variant, values, last, sweeps.passes, sweeps.residual, sweeps.truncation, seconds, cap)
