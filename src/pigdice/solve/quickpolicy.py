"""Exact 2-player policies answered in plain Python from solved turn-start values (no compiled kernels).

Each class here answers as its solver's policy does (``ExactPolicy``: the same options, values,
tie-breaks and errors), reading only the turn-start values and deriving every in-turn choice on
demand (``quickrow``, ``quicklast``, ``quickherd``):

- ``QuickRace``: first to the goal (``FirstToGoalPolicy``), V[i, j];
- ``QuickEnding``: a final round or equal turns (``EndgamePolicy``), V per seat and the last-turn table;
- ``QuickHerd``: Swine Herd's equilibrium (``SwineHerdExact``), V.

They are what the perfect player plays from the values shipped with the package
(``pigdice.solve.shipped``): instant on a fresh install, where the kernels would first compile.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.rules.effects import EffectKind
from pigdice.rules.variant import Decision, Endgame, FinalTurn, TieRule, Variant
from pigdice.solve.actions import HOLD
from pigdice.solve.positions import Position
from pigdice.solve.quickherd import HerdTurns
from pigdice.solve.quicklast import last_turn_row, prefer, single_throw
from pigdice.solve.quickrow import Ending, Row, action_values, dice_values, option_names, outcomes, turn_row
from pigdice.solve.solved import SolvedPolicy, StagePlay
from pigdice.solve.storage import save_npz

MAX_ROWS = 4096  # turn rows kept per policy; past this they are dropped and computed again on demand


@dataclass
class QuickPolicy(SolvedPolicy):
    """What every quick policy shares: the variant, the values and what the solve that made them took."""

    variant: Variant
    values: np.ndarray
    iterations: int = 0
    residual: float = 0.0
    seconds: float = 0.0
    from_cache: bool = True
    players: int = 2
    rows_made: int = 0  # turn rows computed so far: many mean bulk play, which the compiled kernels serve faster
    _rows: dict[tuple[int, ...], object] = field(default_factory=dict, repr=False)
    _lists: list[list[list[float]]] = field(default_factory=list, repr=False)

    @property
    def nbytes(self) -> int:
        """Return the bytes of the values."""
        return int(self.values.nbytes)

    @property
    def states(self) -> int:
        """Return the number of decision states the solve covered."""
        raise NotImplementedError

    def seat_values(self, seat: int) -> list[list[float]]:
        """Return seat ``seat``'s turn-start values as lists (plain Python reads them fastest)."""
        if not self._lists:
            seats = self.values if self.values.ndim == 3 else self.values[np.newaxis]
            self._lists = [array.tolist() for array in seats]
        return self._lists[seat]

    def _keep(self, key: tuple[int, ...], row: object) -> None:
        if len(self._rows) >= MAX_ROWS:
            self._rows.clear()
        self._rows[key] = row
        self.rows_made += 1

    def win_probability_by_seat(self) -> list[float]:
        """Return each seat's win probability at the start of the game, in turn order."""
        first = float(self.values.flat[0])
        return [first, 1.0 - first]


def _row(policy: QuickPolicy, key: tuple[int, ...], make: Callable[[], Row], k: int) -> Row:
    """Return the row kept under ``key`` if it reaches turn total k, else ``make()`` it and keep it."""
    row = policy._rows.get(key)
    if not isinstance(row, Row) or len(row.hold) <= k:
        row = make()
        policy._keep(key, row)
    return row


class QuickRace(QuickPolicy):
    """First to the goal: ``FirstToGoalPolicy`` from V[i, j] (the mover's score first)."""

    @property
    def states(self) -> int:
        """Return the number of non-terminal states: (i, j, k) with i + k < goal, or (i, j) for Hog."""
        g = self.goal
        return g * g if self.variant.decision is Decision.DICE_PER_TURN else g * g * (g + 1) // 2

    def _view(self, position: Position) -> tuple[int, int, int]:
        if position.players != 2:
            raise BadParameterError(f"this policy is for 2 players, not {position.players}")
        if position.final is not None:
            raise BadParameterError("first to the goal wins: there is no final round")
        score, other = position.scores
        if other >= self.goal:
            raise BadParameterError(f"opponent score {other} has already reached the goal {self.goal}")
        return score, other, position.turn_total

    def _turn(self, i: int, j: int) -> Row:
        return _row(self, (i, j), lambda: turn_row(self.variant, self.seat_values(0), i, j), 0)

    def action_values(self, position: Position) -> dict[str, float]:
        """Return the mover's win probability for each legal option."""
        i, j, k = self._view(position)
        needs_row = i + k < self.goal and self.variant.decision is not Decision.DICE_PER_TURN
        return action_values(self.variant, self.seat_values(0), i, j, k, self._turn(i, j) if needs_row else None)[0]

    def best(self, position: Position) -> str:
        """Return the perfect player's option (the kernels' tie-break)."""
        i, j, k = self._view(position)
        names = option_names(self.variant)
        if i + k >= self.goal:
            return "hold" if self.variant.can_hold else names[-1]
        if self.variant.decision is Decision.DICE_PER_TURN:
            return names[int(np.argmax(dice_values(self.variant, self.seat_values(0), i, j)))]
        code = self._turn(i, j).best[k]
        return "hold" if code == HOLD else names[code - 1]

    def win_vector(self, position: Position) -> tuple[float, ...]:
        """Return (the mover's, the other's) win probability."""
        i, j, k = self._view(position)
        if i + k >= self.goal:
            mine = 1.0
        elif self.variant.decision is Decision.DICE_PER_TURN:
            mine = float(self.values[i, j])
        else:
            mine = self._turn(i, j).win(k)
        return mine, 1.0 - mine

    def save(self, path: Path) -> None:
        """Save as the solver's policy file (``Policy.save``), so the solver's cache reads it."""
        from pigdice.solve.policyfile import FORMAT_VERSION

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


def tie_share(variant: Variant) -> float:
    """Return what the last player's tie with the leader is worth to them: 1/2 shared, 0 first-to-reach."""
    return 0.5 if variant.ties is TieRule.SHARED else 0.0


def is_single_throw(variant: Variant) -> bool:
    """Return True if the last turn is one banked throw (a final roll, or Hog's one throw per turn)."""
    final_roll = variant.endgame is Endgame.FINAL_ROUND and variant.final_turn is FinalTurn.ROLL
    return final_roll or variant.decision is Decision.DICE_PER_TURN


def least_bust(variant: Variant) -> float:
    """Return the smallest chance of a bust among the roll choices (the margin of the sweep's stop)."""
    return min(sum(p for effect, p in choice if effect.kind is EffectKind.BUST) for choice in outcomes(variant))


@dataclass
class QuickEnding(QuickPolicy):
    """A final round or equal turns: ``EndgamePolicy`` from V per seat (values[seat, i, j]) and L[d] (``last``)."""

    last: np.ndarray = field(default_factory=lambda: np.zeros(0))
    truncation: float = 0.0

    def __post_init__(self) -> None:
        if self.variant.decision is Decision.DICE_PER_TURN:
            raise BadParameterError(f"{self.variant.name}: the quick rows play roll/hold games, not one throw a turn")
        choices = outcomes(self.variant)
        self._ending = Ending(self.last.tolist(), least_bust(self.variant))
        self._stretch = 2 if any(e.kind is EffectKind.DOUBLE for c in choices for e, _ in c) else 1
        self._jump = max(e.amount for c in choices for e, _ in c)

    @property
    def nbytes(self) -> int:
        """Return the bytes of the values and the last-turn table."""
        return int(self.values.nbytes + self.last.nbytes)

    @property
    def states(self) -> int:
        """Return the decision states before the goal: (seat,) i, j, k with i + k < goal."""
        g = self.goal
        return int(self.values.shape[0]) * g * g * (g + 1) // 2

    def _check(self, position: Position) -> None:
        goal = self.goal
        if position.players != 2:
            raise BadParameterError(f"this policy is for 2 players, not {position.players}")
        score, other = position.scores
        if position.final is None:
            if score >= goal or other >= goal:
                raise BadParameterError(
                    f"a score at or past the goal {goal} means the final round is on: give the position's final turns"
                )
        elif position.final:
            raise BadParameterError("with 2 players nobody plays after the last turn")
        elif other < goal or score >= goal:
            raise BadParameterError(f"in the last turn the other player has reached the goal {goal} and you have not")
        if position.final is None and self._stretch * (score + position.turn_total) + self._jump - other >= len(
            self.last
        ):
            top = (len(self.last) - self._jump + other) // self._stretch - 1
            raise BadParameterError(
                f"a total of {score + position.turn_total} is past the {top} this solve follows; "
                f"holding there wins with probability at least {1.0 - float(self.last[-1]):.6f}"
            )

    def _last_turn(self, need: int, turn_total: int) -> dict[str, float]:
        """Return the last player's share for each option at deficit ``need`` and ``turn_total``."""
        names = option_names(self.variant)
        tie = tie_share(self.variant)
        if is_single_throw(self.variant):
            return dict(zip(names, single_throw(self.variant, need, tie), strict=True))
        if turn_total > need:
            return {"hold": 1.0}
        key = (-1, need)
        kept = self._rows.get(key)
        if not isinstance(kept, tuple):
            kept = last_turn_row(self.variant, need, tie)
            self._keep(key, kept)
        hold, rolls = kept
        return {"hold": hold[turn_total], **{n: rolls[c][turn_total] for c, n in enumerate(names)}}

    def _turn(self, position: Position) -> dict[str, float]:
        score, other = position.scores
        k = position.turn_total
        seats = int(self.values.shape[0])
        seat = position.seat if seats == 2 else 0
        following = self.seat_values(1 - seat if seats == 2 else 0)
        ending = None if seats == 2 and seat == 1 else self._ending  # the second seat's goal ends the game
        if ending is None and score + k >= self.goal:
            return {"hold": 1.0}
        row = _row(
            self, (seat, score, other), lambda: turn_row(self.variant, following, score, other, ending, k + 1), k
        )
        values = {"hold": row.hold[k]}
        for name, rolls in zip(option_names(self.variant), row.rolls, strict=True):
            values[name] = rolls[k]
        return values

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
        options = [values.get("hold", -1.0)] + [values[name] for name in rolls]
        best = prefer(options, position.turn_total == 0 or "hold" not in values)
        return "hold" if best == 0 else rolls[best - 1]

    def win_vector(self, position: Position) -> tuple[float, ...]:
        """Return (the mover's, the other's) win probability at ``position`` under optimal play."""
        mine = self.action_values(position)[self.best(position)]
        return mine, 1.0 - mine

    def save(self, path: Path) -> None:
        """Save as the endgame solver's policy file (``EndgamePolicy.save``), so its cache reads it."""
        variant = self.variant
        meta = {
            "format": 1,
            "kind": "endgame",
            "key": f"{variant.fingerprint()}-{variant.endgame}-{variant.ties}-{variant.final_turn}",
            "variant": variant.describe(),
            "iterations": self.iterations,
            "residual": self.residual,
            "truncation": self.truncation,
            "seconds": self.seconds,
        }
        save_npz(path, meta, values=self.values, last=self.last)


class QuickHerd(StagePlay, QuickPolicy):
    """Swine Herd's exact 2-player equilibrium (``SwineHerdExact``) from V[a, b]: whoever chooses is seat A."""

    @property
    def states(self) -> int:
        """Return the number of turn starts solved."""
        return int(self.values.size)

    @property
    def turns(self) -> HerdTurns:
        """Return the stage games, computed from V on demand."""
        kept = self._rows.get(())
        if not isinstance(kept, HerdTurns):
            kept = HerdTurns(self.variant, self.seat_values(0))
            self._rows[()] = kept
        return kept

    def _keep(self, key: tuple[int, ...], row: object) -> None:
        self._rows[key] = row  # one HerdTurns, which bounds nothing: a game visits few turn starts

    def _view(self, position: Position) -> tuple[int, int, int, bool]:
        """Return (my score, the other's score, turn total, whether the other stands)."""
        if position.players != 2:
            raise BadParameterError(f"this equilibrium is for 2 players, not {position.players}")
        mine, other = position.scores
        standing = position.standing if position.standing is not None else (True, True)
        if mine >= self.goal:
            raise BadParameterError(f"a standing player's banked score is below the goal {self.goal}, got {mine}")
        return mine, other, position.turn_total, standing[1]

    def _scores(self, a: int, b: int) -> None:
        """Raise BadParameterError unless (a, b) is a turn start below the goal."""
        if not (0 <= a < self.goal and 0 <= b < self.goal):
            raise BadParameterError(f"scores must be in 0..{self.goal - 1}, got ({a}, {b})")

    def _stage(self, a: int, b: int, t: int) -> tuple[float, float, float, float, float, float]:
        """Return the stage at (a, b, t): A's payoffs ss, sy, ys, yy, the stage value and B's sit chance."""
        self._scores(a, b)
        turns = self.turns
        rows = turns.rows(a, b)
        top = self.goal - min(a, b)
        ss, sy, ys = turns.entries(a, b, t)
        yy = turns.die.bust * turns.V[a][b]
        for amount, p in zip(turns.die.amounts, turns.die.probabilities, strict=True):
            yy += p * rows.values[min(t + amount, top)]
        row = min(t, top)
        return ss, sy, ys, yy, rows.values[row], rows.sit_b[row]

    def _alone(self, a: int, b: int, t: int) -> tuple[float, float]:
        """Return the standing player's (seat A, score a) chances if it holds and if it rolls on, B seated at b."""
        turns, goal = self.turns, self.goal
        if not (0 <= a < goal and b >= 0 and t >= 1):
            raise BadParameterError(
                f"the standing player's score is in 0..{goal - 1} and its turn total at least 1, got "
                f"scores ({a}, {b}) and total {t}"
            )
        if b >= goal and b - a - t >= goal:
            raise BadParameterError(f"no play reaches scores ({a}, {b}) with the standing player's total {t}")
        hold = turns.ending(a + t, b)
        bust = turns.die.bust
        if b >= goal:
            roll = turns.past_a[goal + max(-goal, b - a - t)]
        elif a + t >= goal:
            roll = bust * turns.V[a][b] + 1.0 - bust
        else:
            roll = turns.lone(a, b)[0][t]
        return hold, roll

    def action_values(self, position: Position) -> dict[str, float]:
        """Return the mover's win chance if it sits ('hold') and if it stays standing ('roll')."""
        mine, other, t, other_stands = self._view(position)
        if t == 0:
            self._scores(mine, other)
            return {"roll": self.turns.V[mine][other]}
        if other_stands:
            ss, sy, ys, yy, _, q = self._stage(mine, other, t)
            return {"hold": q * ss + (1 - q) * sy, "roll": q * ys + (1 - q) * yy}
        hold, roll = self._alone(mine, other, t)
        return {"hold": hold, "roll": roll}

    def strategy(self, position: Position) -> dict[str, float]:
        """Return the equilibrium's chance of each option (sitting is 'hold')."""
        mine, other, t, other_stands = self._view(position)
        if t == 0:
            return {"roll": 1.0}
        if other_stands:
            self._scores(mine, other)
            sit = self.turns.rows(mine, other).sit_a[min(t, self.goal - min(mine, other))]
            return {name: chance for name, chance in (("hold", sit), ("roll", 1.0 - sit)) if chance > 0.0}
        values = self.action_values(position)
        return {"hold" if values["hold"] >= values["roll"] else "roll": 1.0}

    def win_vector(self, position: Position) -> tuple[float, ...]:
        """Return (the mover's, the other's) win chance, a shared win counting one half."""
        mine, other, t, other_stands = self._view(position)
        if t == 0:
            self._scores(mine, other)
            value = self.turns.V[mine][other]
        elif other_stands:
            value = self._stage(mine, other, t)[4]
        else:
            value = max(self._alone(mine, other, t))
        return value, 1.0 - value

    def save(self, path: Path) -> None:
        """Save the turn-start values to ``path`` (.npz)."""
        np.savez_compressed(path, V=self.values)


def quick_policy(variant: Variant, arrays: Sequence[np.ndarray], figures: Mapping[str, float]) -> QuickPolicy:
    """Return the quick policy of 2-player ``variant`` from its solved arrays (values; with an ending, L too).

    ``figures``: what the solve that made them took (iterations, residual, truncation, seconds; 0 if missing).
    """
    iterations, residual = int(figures.get("iterations", 0)), float(figures.get("residual", 0.0))
    seconds = float(figures.get("seconds", 0.0))
    if variant.is_simultaneous:
        return QuickHerd(variant, arrays[0], iterations, residual, seconds)
    if variant.endgame is Endgame.FIRST_TO_GOAL:
        return QuickRace(variant, arrays[0], iterations, residual, seconds)
    truncation = float(figures.get("truncation", 0.0))
    return QuickEnding(variant, arrays[0], iterations, residual, seconds, last=arrays[1], truncation=truncation)
