"""What every exactly solved policy shares: the quality figures callers read and the default pure play.

Each solver's policy (``exact.FirstToGoalPolicy``, ``two.endgame.EndgamePolicy``, ``n.nplayer.PlayersPolicy``,
``herd.swineherd_policy.SwineHerdExact`` and the shipped ``quickpolicy.Quick*``) derives from ``SolvedPolicy``,
so a caller reads the regret, the mixed and kept cycles and the equilibrium gain of any of them alike (0 where
a solver has none) and never probes for attributes. No numba and no numpy here: a hint imports this.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from pigdice.solve.positions import Position

if TYPE_CHECKING:
    from pigdice.rules.variant import Variant
    from pigdice.solve.policy import Policy


class SolvedPolicy:
    """An exactly solved game: the mover's options, the best one and everyone's chances at a position, with the
    quality figures of the solve (0 unless a solver has them) and pure play unless the equilibrium mixes."""

    if TYPE_CHECKING:  # every policy has these, as fields or properties (a property here would shadow a field)

        @property
        def variant(self) -> Variant:
            """Return the solved variant."""

        @property
        def players(self) -> int:
            """Return the number of players."""

        @property
        def seconds(self) -> float:
            """Return how long the solve took."""

        @property
        def nbytes(self) -> int:
            """Return the bytes of the policy's arrays."""

        @property
        def states(self) -> int:
            """Return the number of decision states the solve covered (before the goal is reached)."""

        @property
        def iterations(self) -> int:
            """Return the passes the solve took."""

        @property
        def residual(self) -> float:
            """Return the solve's Bellman residual."""

        from_cache: bool  # True if the policy came from a cache (memory, disk or the shipped file)

    # the most any mover could gain at a turn start by choosing otherwise (3+ players; 0: exact)
    regret: float = 0.0

    def __getstate__(self) -> dict[str, object]:
        """Pickle the policy's own fields, not what its cached properties derived from them (rebuilt on demand;
        a ``storage.RowCache`` pickles empty): a policy solved in a worker process comes back small."""
        derived = {
            name
            for kind in type(self).__mro__
            for name, value in vars(kind).items()
            if isinstance(value, cached_property)
        }
        return {name: value for name, value in self.__dict__.items() if name not in derived}

    @property
    def goal(self) -> int:
        """Return the goal the policy was solved for."""
        return self.variant.goal

    @property
    def is_exact(self) -> bool:
        """Return True if every choice is a best reply (no regret left)."""
        return float(self.regret) == 0.0

    @property
    def mixed_cycles(self) -> int:
        """Return how many cycles the equilibrium mixes in (``pigdice.solve.n.mixing``; 0 where none can)."""
        return 0

    @property
    def kept_cycles(self) -> int:
        """Return how many cycles kept their choices across passes (``pigdice.solve.n.nkernels``; 0 where none can)."""
        return 0

    @property
    def equilibrium_gain(self) -> float:
        """Return the most any mover of a mixed or kept cycle could gain (0 where none can)."""
        return 0.0

    def first_to_goal(self) -> Policy | None:
        """Return the plain 2-player first-to-goal ``Policy`` inside (what the approximations read), or None."""
        return None

    def action_values(self, position: Position) -> dict[str, float]:
        """Return the mover's win probability for each legal option ('hold', 'roll', 'roll:N')."""
        raise NotImplementedError

    def best(self, position: Position) -> str:
        """Return the option the perfect player takes (the tie-break of ``positions.py``)."""
        raise NotImplementedError

    def strategy(self, position: Position) -> dict[str, float]:
        """Return the chance of each option the perfect player takes: ``best`` alone, except where the
        equilibrium mixes (3+ players, ``pigdice.solve.n.mixing``; Swine Herd's stage games)."""
        return {self.best(position): 1.0}

    def play(self, position: Position, draw: Callable[[], float] | None) -> str:
        """Return the option the perfect player plays: ``best``, or where the equilibrium mixes two plans the one
        ``draw()`` picks (uniform in [0, 1), one per turn)."""
        return self.best(position)

    def win_vector(self, position: Position) -> tuple[float, ...]:
        """Return every player's win probability at ``position``, the mover first."""
        raise NotImplementedError

    def win_probability_by_seat(self) -> list[float]:
        """Return each seat's win probability at the start of the game, in turn order."""
        raise NotImplementedError

    def save(self, path: Path) -> None:
        """Save the policy to ``path`` (.npz)."""
        raise NotImplementedError


class StagePlay(SolvedPolicy):
    """The play of Swine Herd's equilibria (2 players, 3 players, plain Python): where a stage game mixes,
    the mover sits with its chance; ``strategy`` gives it, these two read it."""

    def best(self, position: Position) -> str:
        """Return the equilibrium's likelier option (sitting on an even mix)."""
        return "hold" if self.strategy(position).get("hold", 0.0) >= 0.5 else "roll"

    def play(self, position: Position, draw: Callable[[], float] | None) -> str:
        """Return the option played: where the equilibrium mixes, sitting if ``draw()`` falls below its chance."""
        sit = self.strategy(position).get("hold", 0.0)
        if 0.0 < sit < 1.0 and draw is not None:
            return "hold" if draw() < sit else "roll"
        return self.best(position)
