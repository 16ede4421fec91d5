"""Plain engine-loop simulation: play seeded games between strategies and count the results."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from pigdice.engine.game import MOVE_LIMIT, GameState, apply, new_game
from pigdice.engine.simultaneous import apply_choices, choosing_seats, seat_view
from pigdice.errors import BadParameterError, BadStrategyError
from pigdice.players.base import Strategy, is_human
from pigdice.rules.variant import Variant
from pigdice.study.limits import check_games

MAX_STEPS = MOVE_LIMIT - 1_000  # before the engine stops a game at its move limit: reported, not counted


@dataclass
class SimulationResult:
    """Totals over many games: wins per seat (ties split), tied games, mean turns.

    ``outright`` and ``shared`` count, per seat, the games won alone and the games whose victory was
    shared with tied players (whole numbers; ``wins`` adds the shares, 1/2 for two tied players).
    """

    games: int
    wins: list[float]
    ties: int
    total_turns: int = 0
    turn_counts: list[int] = field(default_factory=list)
    outright: list[int] = field(default_factory=list)
    shared: list[int] = field(default_factory=list)

    @property
    def mean_turns(self) -> float:
        """Return the mean number of turns per game (all players' turns counted)."""
        return self.total_turns / self.games if self.games else 0.0

    def to_json(self) -> dict[str, object]:
        """Return the stable JSON shape of ``pigdice simulate --json``."""
        return {"games": self.games, "wins": self.wins, "ties": self.ties, "mean_turns": self.mean_turns}


def play_game(
    variant: Variant,
    strategies: Sequence[Strategy],
    rng: np.random.Generator,
    choice_rng: np.random.Generator | None = None,
) -> GameState:
    """Play one game between robots to the end and return the final state.

    Dice come from ``rng`` alone; robots that randomise draw from ``choice_rng`` (default: a
    generator spawned from ``rng``), so a game's seed and action list always replay it.
    """
    if any(is_human(s) for s in strategies):
        raise BadStrategyError("simulations need robots only; 'you'/'human' cannot be simulated")
    if choice_rng is None:
        choice_rng = rng.spawn(1)[0]
    state = new_game(variant, len(strategies))
    while not state.is_terminal():
        if state.step >= MAX_STEPS:
            why = "do these strategies ever hold or score?"
            if variant.is_simultaneous and not variant.sits_at_goal:
                why = (
                    "without the house rule (at_goal=sit) players who never sit down first can stand for ever "
                    "past the goal, and perfect players do"
                )
            raise BadParameterError(f"a game ran too long: {why}")
        if variant.is_simultaneous:  # Swine Herd: every standing robot chooses on the same state, unseen
            seats = choosing_seats(state)
            choices = {seat: strategies[seat].choose(seat_view(state, seat), choice_rng) for seat in seats}
            state, _ = apply_choices(state, choices, rng)
        else:
            state, _ = apply(state, strategies[state.current].choose(state, choice_rng), rng)
    return state


def simulate(
    variant: Variant,
    strategies: Sequence[Strategy],
    games: int,
    seed: int | None,
    progress: Callable[[int], None] | None = None,
) -> SimulationResult:
    """Play ``games`` seeded games and return wins per seat, ties and mean length."""
    games = check_games(games)
    rng = np.random.default_rng(seed)
    choice_rng = rng.spawn(1)[0]
    seats = len(strategies)
    result = SimulationResult(games=games, wins=[0.0] * seats, ties=0, outright=[0] * seats, shared=[0] * seats)
    for index in range(games):
        state = play_game(variant, strategies, rng, choice_rng)
        winners = state.winners or ()
        if len(winners) > 1:
            result.ties += 1
        for p in winners:
            result.wins[p] += 1.0 / len(winners)
            if len(winners) > 1:
                result.shared[p] += 1
            else:
                result.outright[p] += 1
        result.total_turns += state.turns_taken
        if progress is not None and ((index + 1) % 100 == 0 or index + 1 == games):
            progress(index + 1)
    return result
