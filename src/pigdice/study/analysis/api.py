"""Exact analyses of 2-player games under fixed strategies: who wins, how long, how many scoring turns.

Everything is computed by propagating probability forward through the Markov chain of turns,
never by simulation: each strategy's turn outcomes (``turns``), then the game chain (``chain``)
once per seating.

Like the solver (and seed 003, "for symmetry in analysis"), analyses use the first-to-goal
ending; variants whose own rule differs are analysed in that form and say so.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.players.base import SolvedStrategy
from pigdice.players.specs import parse_strategy
from pigdice.players.tables import action_table
from pigdice.rules.variant import Decision, Endgame, Variant
from pigdice.solve.actions import first_hold
from pigdice.solve.memory import action_table_bytes, chain_bytes, check_memory, turn_outcomes_bytes, values_bytes
from pigdice.solve.policy import Policy
from pigdice.study.analysis.chain import MAX_TURNS, TAIL, Seating, play_chain
from pigdice.study.analysis.turns import VISITS_MAX_GOAL, TurnOutcomes, analysable, turn_outcomes

Progress = Callable[[float, str], None]


@dataclass
class Analysis:
    """Exact analysis of a variant between two strategies (or optimal against itself)."""

    variant: Variant  # the analysed (2-player, first-to-goal) form
    original_endgame: Endgame
    names: tuple[str, str]
    actions: tuple[np.ndarray, np.ndarray]
    turns: tuple[TurnOutcomes, TurnOutcomes]
    seatings: tuple[Seating, ...]  # (A first[, B first])
    policy: Policy | None  # the solved policy when a side plays optimally
    seconds: float
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def same_strategy(self) -> bool:
        """Return True if both players use the same strategy."""
        return self.names[0] == self.names[1]

    @property
    def first_player_advantage(self) -> float:
        """Return P(first player wins) - 1/2, averaged over who of the two sits first."""
        return float(np.mean([s.first_player_advantage for s in self.seatings]))

    @property
    def a_win_rate(self) -> float:
        """Return strategy A's win probability when each side starts half the games."""
        if self.same_strategy:
            return 0.5
        a_first, b_first = self.seatings
        return (a_first.p_first_wins + 1.0 - b_first.p_first_wins) / 2

    @property
    def mean_length(self) -> float:
        """Return the mean game length in turns (averaged over seatings)."""
        return float(np.mean([s.mean_length for s in self.seatings]))

    @property
    def scoring_turns(self) -> tuple[float, float]:
        """Return the expected scoring turns of strategy A and B per game (averaged over seatings)."""
        first = self.seatings[0]
        if len(self.seatings) == 1:
            return first.stat(0, "scoring_turns"), first.stat(1, "scoring_turns")
        second = self.seatings[1]
        a = (first.stat(0, "scoring_turns") + second.stat(1, "scoring_turns")) / 2
        b = (first.stat(1, "scoring_turns") + second.stat(0, "scoring_turns")) / 2
        return a, b

    @property
    def winner_scoring_turns(self) -> float:
        """Return the expected number of scoring turns the winner needed (seed 003's measure of a good game)."""
        return float(np.mean([s.winner_scoring_turns for s in self.seatings]))

    @property
    def turn_starts(self) -> np.ndarray:
        """Return the expected number of turns per game started at (mover i, other j), either player."""
        return np.mean([s.turn_starts.sum(axis=0) for s in self.seatings], axis=0)

    def state_visits(self) -> np.ndarray | None:
        """Return expected visits per game to (mover i, other j, turn total k), either player moving."""
        if any(t.visits is None for t in self.turns):
            return None
        goal = self.variant.goal
        total = np.zeros((goal, goal, goal))
        for index, seating in enumerate(self.seatings):
            # seating 0 has A first; seating 1 (different strategies only) has B first
            first, second = self.turns[index], self.turns[1 - index]
            total += seating.turn_starts[0][:, :, None] * first.visits
            total += seating.turn_starts[1][:, :, None] * second.visits
        return total / len(self.seatings)

    def visit_probabilities(self) -> np.ndarray | None:
        """Return P(a turn ever starts at (mover i, other j)) for the first player of the first seating.

        Exact when no score can go down (no reset effect): the only way back to a turn start is
        that both players' turns leave their scores unchanged, so visits are geometric.
        None for variants with resets.
        """
        if self.turns[0].reset.any() or self.turns[1].reset.any():
            return None
        seating = self.seatings[0]
        a, b = self.turns
        back = a.stay * b.stay.T
        return np.clip(seating.turn_starts[0] * (1.0 - back), 0.0, 1.0)

    def opening(self) -> dict[str, Any]:
        """Return what strategy A does at (0, 0): its hold threshold or its dice count."""
        actions = self.actions[0]
        if self.variant.decision is Decision.DICE_PER_TURN:
            return {"dice": self.variant.choices[int(actions[0, 0, 0]) - 1]}
        out: dict[str, Any] = {"hold_at": first_hold(actions[0, 0], actions.shape[0])}
        if self.variant.chooses_dice:
            out["dice"] = self.variant.choices[int(actions[0, 0, 0]) - 1]
        return out

    def to_json(self, length_terms: int | None = 200, arrays: bool = False) -> dict[str, Any]:
        """Return the analysis as JSON-ready data (the shape of ``pigdice analyze --json``).

        ``arrays`` adds per-state arrays indexed [i][j] (mover's score, other's score): strategy A's
        expected turn score, the expected number of turns per game starting there and, for variants
        without resets, the probability that the first player ever starts a turn there.
        """
        a_scoring, b_scoring = self.scoring_turns
        data: dict[str, Any] = {
            "variant": self.variant.name,
            "goal": self.variant.goal,
            "endgame_analysed": str(self.variant.endgame),
            "endgame_of_variant": str(self.original_endgame),
            "strategies": list(self.names),
            "method": "exact forward propagation of the Markov chain of turns",
            "first_player_advantage": self.first_player_advantage,
            "p_first_wins": [s.p_first_wins for s in self.seatings],
            "a_win_rate": self.a_win_rate,
            "mean_game_length_turns": self.mean_length,
            "expected_scoring_turns": {"a": a_scoring, "b": b_scoring},
            "winner_scoring_turns": self.winner_scoring_turns,
            "opening": self.opening(),
            "expected_turn_score_at_start": float(self.turns[0].banked[0, 0]),
            "tail_mass": max(s.tail for s in self.seatings),
            "state_visits": "expected visits per game to (score, opponent score, turn total)",
            "seatings": [s.to_json(length_terms) for s in self.seatings],
            "seconds": self.seconds,
        }
        if self.policy is not None:
            data["solver_first_player_win"] = float(self.policy.values[0, 0])
        if arrays:
            data["arrays"] = {
                "index": "[i][j]: mover's score i, other's score j",
                "expected_turn_score": np.round(self.turns[0].banked, 6).tolist(),
                "expected_turn_starts": np.round(self.turn_starts, 9).tolist(),
            }
            reach = self.visit_probabilities()
            if reach is not None:
                data["arrays"]["first_player_turn_start_probability"] = np.round(reach, 9).tolist()
        return data


def strategy_table(variant: Variant, spec: str, progress: Progress | None = None) -> tuple[np.ndarray, Policy | None]:
    """Return the action table of a strategy spec (and its solved policy if it plays one)."""
    strategy = parse_strategy(spec, variant)
    check_memory(f"the action table of {spec}", variant.goal, action_table_bytes)
    table = action_table(strategy, variant, None if progress is None else lambda f: progress(f, "action table"))
    return table, strategy.policy if isinstance(strategy, SolvedStrategy) else None


def analyze(
    variant: Variant,
    strategies: Sequence[str] = ("optimal",),
    progress: Progress | None = None,
    tail: float = TAIL,
    max_turns: int = MAX_TURNS,
    visits: bool = True,
) -> Analysis:
    """Return the exact analysis of ``variant`` between two strategies (one spec: both play it)."""
    original = variant.endgame
    variant = analysable(variant)
    specs = [s.strip() for s in strategies]
    if not 1 <= len(specs) <= 2 or not all(specs):
        raise BadParameterError(f"give one or two strategies (A or A,B), not {','.join(strategies)!r}")
    if len(specs) == 1:
        specs.append(specs[0])
    names = (specs[0], specs[1])
    distinct = len(set(names))

    def need(g: int) -> int:
        outcomes = turn_outcomes_bytes(g, visits and g <= VISITS_MAX_GOAL)
        return distinct * (action_table_bytes(g) + outcomes) + chain_bytes(g) + 2 * distinct * values_bytes(g)

    check_memory("exact analysis", variant.goal, need)  # each step checks again as it starts
    started = time.perf_counter()
    timings: dict[str, float] = {}

    def report(fraction: float, what: str) -> None:
        if progress is not None:
            progress(fraction, what)

    def labelled(prefix: str) -> Progress:
        return lambda fraction, what: report(fraction, prefix + what)

    tables: list[np.ndarray] = []
    policy: Policy | None = None
    mark = time.perf_counter()
    for spec in dict.fromkeys(names):
        table, found = strategy_table(variant, spec, labelled(f"{spec}: "))
        tables.append(table)
        policy = policy or found
    if len(tables) == 1:
        tables.append(tables[0])
    timings["strategies"] = time.perf_counter() - mark
    mark = time.perf_counter()
    outcomes_a = turn_outcomes(variant, tables[0], visits, lambda f: report(f, "turn outcomes"))
    outcomes_b = (
        outcomes_a
        if names[0] == names[1]
        else turn_outcomes(variant, tables[1], visits, lambda f: report(f, "turn outcomes (B)"))
    )
    timings["turns"] = time.perf_counter() - mark
    mark = time.perf_counter()
    seatings = [play_chain(variant, outcomes_a, outcomes_b, names, tail, max_turns, lambda f: report(f, "game chain"))]
    if names[0] != names[1]:
        seatings.append(
            play_chain(
                variant,
                outcomes_b,
                outcomes_a,
                (names[1], names[0]),
                tail,
                max_turns,
                lambda f: report(f, "game chain"),
            )
        )
    timings["chain"] = time.perf_counter() - mark
    return Analysis(
        variant=variant,
        original_endgame=original,
        names=names,
        actions=(tables[0], tables[1]),
        turns=(outcomes_a, outcomes_b),
        seatings=tuple(seatings),
        policy=policy,
        seconds=time.perf_counter() - started,
        timings=timings,
    )
