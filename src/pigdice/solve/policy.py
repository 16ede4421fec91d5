"""Policy: the solved turn-start win probabilities of a variant, with actions derived on demand.

Only V[i, j] (the win probability at the start of a turn, my score i, opponent's j) is stored:
every in-turn value P_{i,j,k} follows from V by one backward sweep (``turn_row``), so a goal
1000 policy is 8 MB instead of gigabytes and hints stay instant.

No numba at import: the kernels (``rollhold``, ``dicechoice``) load on the first turn swept, so a
process that only reads values, or the start turn a worker process swept (it travels with the
pickled policy), never imports numba (0.4 s of CPU, and more to load the kernels).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.actions import first_hold
from pigdice.solve.memory import action_table_bytes, check_memory
from pigdice.solve.policyfile import FORMAT_VERSION, read_values
from pigdice.solve.storage import RowCache, save_npz
from pigdice.solve.tables import EffectTable, effect_table
from pigdice.solve.two.bundles import FIRST_TO_GOAL_ENDS, NO_LAST, game_of

START = (0, 0)  # the turn a pickled policy keeps (the start action): the caller of a worker asks it first


@dataclass(frozen=True)
class TurnRow:
    """The optimal turn at (score, opponent): one entry per turn total k = 0 .. goal - score - 1."""

    win: np.ndarray  # win probability under optimal play
    action: np.ndarray  # 0 = hold, c + 1 = roll with choice c
    hold: np.ndarray  # win probability if holding now
    rolls: np.ndarray  # (choices, k): win probability if rolling with each choice


@dataclass
class Policy:
    """Win probabilities and best actions of a solved 2-player, first-to-goal variant."""

    variant: Variant
    values: np.ndarray  # V[i, j], float64, shape (goal, goal)
    iterations: int = 0
    residual: float = 0.0
    seconds: float = 0.0
    from_cache: bool = False
    _rows: RowCache[tuple[int, int], TurnRow] = field(default_factory=RowCache, repr=False)

    def __getstate__(self) -> dict[str, object]:
        """Pickle the values and the variant, and of the caches derived from them only the start turn's row."""
        state = dict(self.__dict__)  # the row cache pickles empty
        state.pop("table", None)
        state["start_row"] = self._rows.get(START)
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        """Unpickle, keeping the start turn's row if it came along (no kernel then sweeps it again)."""
        start = state.pop("start_row", None)
        self.__dict__.update(state)
        if isinstance(start, TurnRow):
            self._rows.keep(
                START, start, start.win.nbytes + start.action.nbytes + start.hold.nbytes + start.rolls.nbytes
            )

    @property
    def nbytes(self) -> int:
        """Return the bytes of the policy's arrays: the values and the cached turn rows."""
        return int(self.values.nbytes) + self._rows.nbytes

    @property
    def goal(self) -> int:
        """Return the goal the policy was solved for."""
        return self.variant.goal

    @cached_property
    def table(self) -> EffectTable:
        """Return the numeric effect table the policy was solved with."""
        return effect_table(self.variant)

    @property
    def states(self) -> int:
        """Return the number of non-terminal states: (i, j, k) with i + k < goal, or (i, j) for Hog."""
        g = self.goal
        if self.variant.decision is Decision.DICE_PER_TURN:
            return g * g
        return g * g * (g + 1) // 2

    def _check(self, score: int, opponent: int, turn_total: int = 0) -> None:
        for name, value in (("score", score), ("opponent", opponent), ("turn total", turn_total)):
            if value < 0:
                raise BadParameterError(f"{name} must be >= 0, got {value}")
        if opponent >= self.goal:
            raise BadParameterError(f"opponent score {opponent} has already reached the goal {self.goal}")

    def turn(self, score: int, opponent: int) -> TurnRow:
        """Return the optimal turn at (score, opponent) for every turn total (roll/hold games)."""
        if self.variant.decision is Decision.DICE_PER_TURN:
            raise BadParameterError(f"{self.variant.name} has no turn total; use dice_values()")
        self._check(score, opponent)
        if score >= self.goal:
            raise BadParameterError(f"score {score} has already reached the goal {self.goal}")
        key = (score, opponent)
        row = self._rows.get(key)
        if row is None:
            from pigdice.solve.two import rollhold

            win, action, hold, rolls = rollhold.turn_row(
                self.values, score, opponent, self.goal, self.table, rollhold.NO_FIXED, FIRST_TO_GOAL_ENDS, 0
            )
            size = win.nbytes + action.nbytes + hold.nbytes + rolls.nbytes
            row = self._rows.keep(key, TurnRow(win, action, hold, rolls), size)
        return row

    def dice_values(self, score: int, opponent: int) -> np.ndarray:
        """Return the win probability of each dice choice at (score, opponent) (Hog)."""
        self._check(score, opponent)
        if score >= self.goal:
            return np.ones(len(self.variant.choices))
        from pigdice.solve.two import dicechoice

        const = np.empty(len(self.variant.choices))
        coef = np.empty(len(self.variant.choices))
        x = float(self.values[opponent, score])
        dicechoice.throw_values(self.values, score, opponent, self.goal, x, self.table, const, coef, NO_LAST)
        return const + coef * x

    def win_probability(self, score: int, opponent: int, turn_total: int = 0) -> float:
        """Return the probability that the player to move wins under optimal play from here on."""
        self._check(score, opponent, turn_total)
        if score + turn_total >= self.goal:
            return 1.0
        if self.variant.decision is Decision.DICE_PER_TURN:
            return float(self.values[score, opponent])
        return float(self.turn(score, opponent).win[turn_total])

    def best_choice(self, score: int, opponent: int, turn_total: int = 0) -> int:
        """Return 0 to hold or c + 1 to roll with choice c (Hog: always a roll choice)."""
        self._check(score, opponent, turn_total)
        if score + turn_total >= self.goal:
            return 0 if self.variant.can_hold else len(self.variant.choices)
        if self.variant.decision is Decision.DICE_PER_TURN:
            return int(np.argmax(self.dice_values(score, opponent))) + 1
        return int(self.turn(score, opponent).action[turn_total])

    def action_values(self, score: int, opponent: int, turn_total: int = 0) -> dict[str, float]:
        """Return the win probability of every legal choice, keyed 'hold', 'roll' or 'roll:N'."""
        self._check(score, opponent, turn_total)
        choices = self.variant.choices
        names = ["roll"] if not self.variant.chooses_dice else [f"roll:{n}" for n in choices]
        if score + turn_total >= self.goal:
            if not self.variant.can_hold:
                return {name: 1.0 for name in names}
            rolls = (
                self._roll_past_goal(score, opponent, turn_total, n if self.variant.chooses_dice else None)
                for n in choices
            )
            return {"hold": 1.0, **dict(zip(names, rolls, strict=True))}
        if self.variant.decision is Decision.DICE_PER_TURN:
            return dict(zip(names, (float(v) for v in self.dice_values(score, opponent)), strict=True))
        row = self.turn(score, opponent)
        values = {"hold": float(row.hold[turn_total])}
        for index, name in enumerate(names):
            values[name] = float(row.rolls[index, turn_total])
        return values

    def _roll_past_goal(self, score: int, opponent: int, turn_total: int, dice: int | None) -> float:
        """Return the mover's chance after rolling once more where holding wins at once (the goal is in hand).

        One step of the optimality equation over the roll's exact outcomes: a roll that keeps the total at or
        past the goal still wins (holding next), one that ends the turn hands the opponent their turn start
        (1 - V[opponent, new score]) unless it banked the goal, and one that drops the total back below the
        goal continues at that turn total.
        """
        value = 0.0
        for effect, probability in self.variant.roll_spec(dice).distribution():
            new_score, new_total, ends = effect.resolve(score, turn_total)
            if new_score + new_total >= self.goal:
                chance = 1.0
            elif ends:
                chance = 1.0 - self.win_probability(opponent, new_score, 0)
            else:
                chance = self.win_probability(new_score, opponent, new_total)
            value += float(probability) * chance
        return value

    def action_table(self, progress: Callable[[float], None] | None = None) -> np.ndarray:
        """Return every state's optimal action, T[i, j, k] (0 hold, c + 1 roll choice c; Hog: all k alike).

        Raises ResourceLimitError first if the goal^3 bytes of the table do not fit in memory.
        """
        from pigdice.solve.two import dicechoice, rollhold

        goal = self.goal
        check_memory(f"the action table of {self.variant.name}", goal, action_table_bytes)
        table = np.zeros((goal, goal, goal), dtype=np.int8)
        block = max(1, goal // 50)
        game = game_of(goal, self.table)
        for i0 in range(0, goal, block):
            i1 = min(goal, i0 + block)
            if self.variant.decision is Decision.DICE_PER_TURN:
                dicechoice.best_throws(self.values, i0, i1, goal, self.table, table)
            else:
                rollhold.optimal_actions(self.values, i0, i1, game, table)
            if progress is not None:
                progress(i1 / goal)
        return table

    def hold_threshold(self, score: int = 0, opponent: int = 0) -> int | None:
        """Return the smallest turn total at which holding is optimal at (score, opponent)."""
        if not self.variant.can_hold:
            return None
        return first_hold(self.turn(score, opponent).action, self.goal - score)

    def start_action(self) -> int | str:
        """Return the hold threshold at (0, 0) (roll/hold games) or the dice to throw first (Hog)."""
        if self.variant.decision is Decision.DICE_PER_TURN:
            return self.variant.choices[self.best_choice(0, 0) - 1]
        threshold = self.hold_threshold(0, 0)
        return threshold if threshold is not None else 0

    # -- persistence ---------------------------------------------------------------------
    def save(self, path: Path) -> None:
        """Save to ``path`` (.npz) with the variant's parameters, fingerprint and format version."""
        meta = {
            "format": FORMAT_VERSION,
            "fingerprint": self.variant.fingerprint(),
            "variant": self.variant.describe(),
            "iterations": self.iterations,
            "residual": self.residual,
            "seconds": self.seconds,
            "saved": time.time(),
        }
        save_npz(path, meta, values=self.values)

    @classmethod
    def load(cls, path: Path, variant: Variant) -> Policy:
        """Load a policy saved for ``variant``; raise BadParameterError if the file is not a sound one for it.

        Only regular files are read (a FIFO would block); a damaged archive, a missing entry, values
        that are not finite win probabilities in [0, 1], or metadata of another variant or format
        are all refused, so the caller re-solves (``pigdice.solve.policyfile.read_values``).
        """
        values, iterations, residual, seconds = read_values(path, variant)
        return cls(variant, values, iterations, residual, seconds, True)
