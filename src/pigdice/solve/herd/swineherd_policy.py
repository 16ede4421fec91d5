"""The 2-player Swine Herd equilibrium seen through ``ExactPolicy``: the perfect player's options and chances.

``pigdice.solve.herd.swineherd`` solves the game from seat A's side; under the house rule and under the draw
rule for endless play the seats are symmetric (V(a, b) + V(b, a) = 1), so whoever chooses is seat A with
score a = its own. A ``Position`` of a simultaneous game carries ``standing`` (the mover first): with the
other standing the mover is in a 2x2 stage game, whose equilibrium may mix (``strategy``; ``play`` draws
one number per moment of choice); with the other seated it rolls on alone (``alone``). Before the first
roll of a turn there is nothing to sit down with: the only option is to stand ("roll").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Variant
from pigdice.solve.herd.swineherd import SwineHerdPolicy, solve_swine_herd
from pigdice.solve.positions import Position
from pigdice.solve.solved import StagePlay


@dataclass
class SwineHerdExact(StagePlay):
    """The exact 2-player equilibrium of a simultaneous variant, answering at ``Position`` s."""

    solved: SwineHerdPolicy
    variant: Variant
    from_cache: bool = False
    players: int = 2

    @property
    def seconds(self) -> float:
        """Return how long the solve took."""
        return self.solved.seconds

    @property
    def nbytes(self) -> int:
        """Return the bytes of the solution's arrays."""
        s = self.solved
        arrays = (s.V, s.kinds, s.stage_values, s.sit_a, s.sit_b, s.lone_a, s.lone_b, s.past_a, s.past_b)
        return int(sum(a.nbytes for a in arrays))

    @property
    def states(self) -> int:
        """Return the number of turn starts solved."""
        return int(self.solved.V.size)

    @property
    def iterations(self) -> int:
        """Return the turn evaluations (backward sweeps over the turn total) the solve took."""
        return self.solved.evaluations

    @property
    def residual(self) -> float:
        """Return the largest residual of the solution (turn equations, stage values, strategies played)."""
        return float(max(self.solved.residual()))

    def _view(self, position: Position) -> tuple[int, int, int, bool]:
        """Return (my score, the other's score, turn total, whether the other stands)."""
        if position.players != 2:
            raise BadParameterError(f"this equilibrium is for 2 players, not {position.players}")
        mine, other = position.scores
        standing = position.standing if position.standing is not None else (True, True)
        if mine >= self.solved.goal:
            raise BadParameterError(
                f"a standing player's banked score is below the goal {self.solved.goal}, got {mine}"
            )
        return mine, other, position.turn_total, standing[1]

    def action_values(self, position: Position) -> dict[str, float]:
        """Return the mover's win chance if it sits ('hold') and if it stays standing ('roll').

        With the other standing each is worth what it brings against the other's equilibrium mix.
        """
        mine, other, t, other_stands = self._view(position)
        if t == 0:
            return {"roll": self.solved.value(mine, other)}
        if other_stands:
            stage = self.solved.stage(mine, other, t)
            (ss, sy), (ys, yy) = stage.payoffs
            q = stage.sit_b
            return {"hold": q * ss + (1 - q) * sy, "roll": q * ys + (1 - q) * yy}
        hold, roll = self.solved.alone(mine, other, t, 0)
        return {"hold": hold, "roll": roll}

    def strategy(self, position: Position) -> dict[str, float]:
        """Return the equilibrium's chance of each option (sitting is 'hold')."""
        mine, other, t, other_stands = self._view(position)
        if t == 0:
            return {"roll": 1.0}
        if other_stands:
            sit = self.solved.sit_probability(mine, other, t, 0)
            return {name: chance for name, chance in (("hold", sit), ("roll", 1.0 - sit)) if chance > 0.0}
        values = self.action_values(position)
        return {"hold" if values["hold"] >= values["roll"] else "roll": 1.0}

    def win_vector(self, position: Position) -> tuple[float, ...]:
        """Return (the mover's, the other's) win chance, a shared win counting one half."""
        mine, other, t, other_stands = self._view(position)
        if t == 0:
            value = self.solved.value(mine, other)
        elif other_stands:
            value = self.solved.stage(mine, other, t).value
        else:
            value = max(self.solved.alone(mine, other, t, 0))
        return value, 1.0 - value

    def win_probability_by_seat(self) -> list[float]:
        """Return each seat's chance at the start (a shared win counting one half for each)."""
        first = self.solved.value(0, 0)
        return [first, 1.0 - first]

    def save(self, path: Path) -> None:
        """Save the turn-start values and the equilibrium's sit chances to ``path`` (.npz)."""
        s = self.solved
        np.savez_compressed(path, V=s.V, sit_a=s.sit_a, sit_b=s.sit_b, stage_values=s.stage_values)


def swine_herd_exact(variant: Variant) -> SwineHerdExact:
    """Solve 2-player ``variant`` (simultaneous, one shared die) and return it as an ``ExactPolicy``."""
    return SwineHerdExact(solve_swine_herd(variant), variant)
