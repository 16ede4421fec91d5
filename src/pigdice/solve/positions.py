"""Position: a decision point as every exact solver sees it, and the rules they share.

A ``Position`` is the part of a game state that optimal play depends on, seen from the player
to move: the banked scores in turn order starting with the mover, the turn total, the mover's
seat (under equal turns only a goal reached by an earlier seat gives the later seats a last
turn) and, once someone has reached the goal, who is still owed a last turn. The front ends
build one from a ``GameState`` (``pigdice.players.optimal``); the solvers read their arrays at it.
Win probabilities come as a vector in the same order: entry 0 is the mover's, entry r the
player r places after the mover in turn order. A tie that is shared counts as 1/(number tied).

The rules every solver applies, so that their answers agree exactly:

- **Each player maximises their own win probability** (expected share of the win).
- **Tie-break** when the mover's options are worth the same to them (to ``INDIFFERENCE``):
  at turn total 0 roll (passing never helps), at any other turn total hold; between roll
  choices, fewer dice. With 3+ players this choice changes the others' values, so it is part
  of the definition of the perfect player.
- **Cap**: ``cap`` (optional) is the largest total a solver considers; a player whose score plus
  turn total is at or past ``cap`` holds. Without a cap the solvers choose one per state where
  holding is provably optimal, or the truncation error is below ``TRUNCATION_ERROR``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pigdice.errors import BadParameterError

INDIFFERENCE = 1e-12  # options closer than this count as equal for the tie-break
TRUNCATION_ERROR = 1e-12  # the most a solver's choice of cap may move any value


@dataclass(frozen=True)
class Position:
    """A decision point seen from the player to move."""

    scores: tuple[int, ...]  # banked scores in turn order, the mover first
    turn_total: int = 0
    seat: int = 0  # the mover's seat (0 = the first player)
    final: tuple[int, ...] | None = None  # offsets (1..n-1) still owed a last turn after the mover
    standing: tuple[bool, ...] | None = None  # Swine Herd: who still stands this turn, in the order of scores

    def __post_init__(self) -> None:
        n = len(self.scores)
        if n < 2:
            raise BadParameterError(f"a position needs at least 2 players' scores, got {n}")
        if self.standing is not None and (len(self.standing) != n or not self.standing[0]):
            raise BadParameterError("standing lists every player, the mover first (and the mover stands)")
        if any(s < 0 for s in self.scores) or self.turn_total < 0:
            raise BadParameterError("scores and the turn total must be >= 0")
        if not 0 <= self.seat < n:
            raise BadParameterError(f"seat must be between 0 and {n - 1}, got {self.seat}")
        if self.final is not None:
            if any(not 1 <= r < n for r in self.final) or list(self.final) != sorted(set(self.final)):
                raise BadParameterError(f"final must list offsets 1..{n - 1} in turn order, got {self.final}")

    @property
    def players(self) -> int:
        """Return the number of players."""
        return len(self.scores)

    @property
    def is_final(self) -> bool:
        """Return True once someone has reached the goal (the mover plays a last turn)."""
        return self.final is not None

    def finished(self) -> tuple[int, ...]:
        """Return the offsets of the players whose last turn is over, in the order they finished.

        They are the players after the last one still owed a turn, up to the mover: under both
        endings the player who reached the goal finished first, then the others in turn order.
        """
        if self.final is None:
            return ()
        last = self.final[-1] if self.final else 0
        return tuple(range(last + 1, self.players))

    def leaders(self, goal: int) -> tuple[int, int]:
        """Return (the best finished score, how many finished players have it); (0, 0) if none reached the goal."""
        done = [self.scores[r] for r in self.finished() if self.scores[r] >= goal]
        if not done:
            return 0, 0
        best = max(done)
        return best, done.count(best)
