"""The game chain: a 2-player game between two strategies' turn outcomes, played out exactly.

A game is a chain over turn-start states (mover's score i, other's score j); the movers
alternate, so after t turns the first player moves when t is even. ``kernels.chain_block``
moves the mass of every turn-start state turn by turn, recording when and by whom the game is
won, until less than ``TAIL`` of it is left.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.rules.parameters import shown
from pigdice.rules.variant import Variant
from pigdice.solve.memory import chain_bytes, check_memory
from pigdice.study.analysis.kernels import ChainMass, ChainTally, SeatTotals, chain_block
from pigdice.study.analysis.turns import TurnOutcomes

TAIL = 1e-12  # stop the game chain when less probability than this is still playing
MAX_TURNS = 100_000  # ... or after this many turns (a pair that never scores is reported, not looped)
# per-seat totals of the game chain (the fields of ``kernels.SeatTotals``)
STAT_NAMES = SeatTotals._fields  # turns, scoring_turns, points_banked, busts, resets, rolls, points_lost_to_resets


@dataclass
class Seating:
    """One game between two strategies with a given player moving first, computed exactly."""

    first: str
    second: str
    p_first_wins: float
    length: np.ndarray  # length[n - 1] = P(the game ends on turn n), both players' turns counted
    wins_at: np.ndarray  # (2, turns): P(seat s wins on turn n)
    tail: float  # probability still playing when the chain stopped
    per_seat: np.ndarray  # (2, len(STAT_NAMES)) expected totals per seat
    winner_scoring_turns: float
    loser_scoring_turns: float
    turn_starts: np.ndarray  # (2, goal, goal): expected turns each seat starts at (own score, other's)

    @property
    def first_player_advantage(self) -> float:
        """Return P(first player wins) - 1/2."""
        return self.p_first_wins - 0.5

    @property
    def mean_length(self) -> float:
        """Return the mean number of turns (both players') of a game that ends."""
        n = np.arange(1, len(self.length) + 1)
        done = float(self.length.sum())
        return float((n * self.length).sum() / done) if done else float("inf")

    @property
    def sd_length(self) -> float:
        """Return the standard deviation of the number of turns."""
        n = np.arange(1, len(self.length) + 1)
        done = float(self.length.sum())
        if not done:
            return float("inf")
        mean = (n * self.length).sum() / done
        return float(np.sqrt(max(0.0, (n * n * self.length).sum() / done - mean * mean)))

    def length_quantile(self, q: float) -> int:
        """Return the smallest n with P(game length <= n) >= q."""
        cumulative = np.cumsum(self.length)
        index = int(np.searchsorted(cumulative, q * (1.0 - 1e-15)))
        return min(index + 1, len(self.length))

    def stat(self, seat: int, name: str) -> float:
        """Return the expected per-game total of one statistic for a seat (0 first, 1 second)."""
        return float(self.per_seat[seat, STAT_NAMES.index(name)])

    def to_json(self, length_terms: int | None = None) -> dict[str, Any]:
        """Return this seating's results as JSON-ready data."""
        length = self.length if length_terms is None else self.length[:length_terms]
        return {
            "first": self.first,
            "second": self.second,
            "p_first_wins": self.p_first_wins,
            "first_player_advantage": self.first_player_advantage,
            "game_length": {
                "mean_turns": self.mean_length,
                "sd_turns": self.sd_length,
                "median_turns": self.length_quantile(0.5),
                "p90_turns": self.length_quantile(0.9),
                "distribution": [float(x) for x in length],
                "distribution_starts_at": 1,
                "tail_mass": self.tail,
            },
            "per_player": [
                {name: self.stat(seat, name) for name in STAT_NAMES} | {"seat": seat + 1, "strategy": who}
                for seat, who in enumerate((self.first, self.second))
            ],
            "winner_scoring_turns": self.winner_scoring_turns,
            "loser_scoring_turns": self.loser_scoring_turns,
        }


def play_chain(
    variant: Variant,
    first: TurnOutcomes,
    second: TurnOutcomes,
    names: tuple[str, str] = ("first", "second"),
    tail: float = TAIL,
    max_turns: int = MAX_TURNS,
    progress: Callable[[float], None] | None = None,
) -> Seating:
    """Propagate a game from (0, 0) turn by turn until less than ``tail`` is still playing."""
    goal = variant.goal
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or not 1 <= max_turns <= MAX_TURNS:
        raise BadParameterError(f"max_turns must be a whole number from 1 to {MAX_TURNS}, got {shown(max_turns)}")
    if not (isinstance(tail, (int, float)) and 0 < tail < 1):
        raise BadParameterError(f"tail must be a probability between 0 and 1, got {shown(tail)}")
    check_memory("the exact game chain", goal, chain_bytes)
    M = np.zeros((goal, goal))
    M[0, 0] = 1.0
    mass = ChainMass(M, np.zeros((goal, goal)), np.zeros((goal, goal)))
    seats = SeatTotals(*(np.zeros(2) for _ in STAT_NAMES))  # per seat
    tally = ChainTally(np.zeros(1024), seats, np.zeros(1), np.zeros(1), np.zeros((2, goal, goal)))
    turns = (first.seat_turns(), second.seat_turns())
    t = 0
    remaining = 1.0
    block = 8
    while t < max_turns and remaining >= tail:
        stop = min(t + block, max_turns)
        if stop > len(tally.pmf):
            tally = tally._replace(pmf=np.concatenate([tally.pmf, np.zeros(len(tally.pmf))]))
        t, remaining, mass = chain_block(goal, t, stop, tail, mass, *turns, tally)
        block = min(block * 2, 256)
        if progress is not None:
            progress(min(1.0, 1.0 - remaining) if remaining < 1.0 else 0.0)
    length = tally.pmf[:t].copy()
    wins_at = np.zeros((2, t))
    wins_at[0, 0::2] = length[0::2]
    wins_at[1, 1::2] = length[1::2]
    return Seating(
        first=names[0],
        second=names[1],
        p_first_wins=float(wins_at[0].sum()),
        length=length,
        wins_at=wins_at,
        tail=float(remaining),
        per_seat=np.stack(seats, axis=1),
        winner_scoring_turns=float(tally.winner_scoring[0]),
        loser_scoring_turns=float(tally.loser_scoring[0]),
        turn_starts=tally.turn_starts,
    )
