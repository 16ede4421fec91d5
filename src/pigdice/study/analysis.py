"""Exact analyses of 2-player games under fixed strategies: who wins, how long, how many scoring turns.

Everything is computed by propagating probability forward through the Markov chain of turns,
never by simulation. A game is a chain over turn-start states (mover's score i, other's score
j); the movers alternate, so after t turns the first player moves when t is even. For each
(i, j) one forward pass over the turn total k (``_turn_rows``) turns a strategy's action table
into the distribution of the turn's outcome: the mover's new score (after holding, busting,
resetting or banking) or reaching the goal, plus the expected points banked, the chances of a
bust or a reset, and the expected visits to every turn total. Effects that lower or pin the turn
total (Pig Dice's tail, Knizia's 1-1) make the pass repeat until no mass is left in the turn.
The game chain (``_chain_block``) then moves the mass of every turn-start state turn by turn,
recording when and by whom the game is won, until less than ``TAIL`` of it is left.

Like the solver (and seed 003, "for symmetry in analysis"), analyses use the first-to-goal
ending; variants whose own rule differs are analysed in that form and say so.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Decision, Endgame, Variant
from pigdice.solve.actions import first_hold
from pigdice.solve.policy import Policy
from pigdice.solve.solver import solvable, solve
from pigdice.solve.tables import effect_table

TAIL = 1e-12  # stop the game chain when less probability than this is still playing
MAX_TURNS = 100_000  # ... or after this many turns (a pair that never scores is reported, not looped)
VISITS_MAX_GOAL = 200  # in-turn state visits (goal^3 numbers) are kept up to this goal
MAX_SWEEPS = 100_000
ADD, DOUBLE, SUBTRACT, SET, BUST, RESET, BANK = 0, 1, 2, 3, 4, 5, 6
# per-seat accumulators of the game chain
TURNS, SCORING, BANKED, BUSTS, RESETS, ROLLS, LOST = range(7)
STAT_NAMES = ("turns", "scoring_turns", "points_banked", "busts", "resets", "rolls", "points_lost_to_resets")

Progress = Callable[[float, str], None]


# -- kernels ----------------------------------------------------------------------------------
@njit(cache=True)
def _turn_rows(  # pragma: no cover - numba
    i, goal, acts_i, kinds, amounts, keeps, probs, offsets, one_throw, dist, win, banked, bust, reset, rolls, visits
):
    """Fill the outcome of one turn started at (i, j) for every j; return the mass left unresolved.

    ``acts_i[j, k]`` is the action at turn total k (0 hold, c + 1 roll with choice c).
    ``dist[j, s]``: probability the turn ends with the mover's score s < goal; ``win[j]``: that
    it reaches the goal; ``banked[j]``: expected points banked; ``bust``/``reset``: chances of
    losing the turn total / the whole score; ``rolls``: expected rolls; ``visits[j, k]`` (when it
    has rows): expected visits to turn total k.
    """
    top = goal - i
    resid = np.zeros(top)
    seen = np.zeros(top)
    record = visits.shape[0] > 0
    leftover = 0.0
    for j in range(goal):
        acts = acts_i[j]
        same = j > 0
        if same:
            for k in range(1 if one_throw else top):
                if acts[k] != acts_i[j - 1, k]:
                    same = False
                    break
        if same:  # the same actions as at j - 1 (common: thresholds change slowly): the same turn
            dist[j] = dist[j - 1]
            win[j] = win[j - 1]
            banked[j] = banked[j - 1]
            bust[j] = bust[j - 1]
            reset[j] = reset[j - 1]
            rolls[j] = rolls[j - 1]
            if record:
                visits[j] = visits[j - 1]
            continue
        if one_throw:  # Hog: one throw with the chosen number of dice, then the turn ends
            c = acts[0] - 1
            for e in range(offsets[c], offsets[c + 1]):
                kind = kinds[e]
                p = probs[e]
                if kind in (ADD, SET, BANK):
                    s2 = i + amounts[e]
                elif kind == RESET:
                    s2 = 0
                    reset[j] += p
                else:  # a bust, or doubling / subtracting a zero turn total, scores nothing
                    s2 = i
                    if kind == BUST:
                        bust[j] += p
                if s2 >= goal:
                    win[j] += p
                    banked[j] += p * (s2 - i)
                else:
                    dist[j, s2] += p
                    if s2 > i:
                        banked[j] += p * (s2 - i)
            rolls[j] = 1.0
            if record:
                visits[j, 0] = 1.0
            continue
        resid[:] = 0.0
        seen[:] = 0.0
        resid[0] = 1.0
        for _ in range(MAX_SWEEPS):
            for k in range(top):
                m = resid[k]
                if m == 0.0:
                    continue
                resid[k] = 0.0
                a = acts[k]
                if a == 0:  # hold (at k = 0: pass)
                    seen[k] += m
                    dist[j, i + k] += m
                    banked[j] += m * k
                    continue
                c = a - 1
                p_self = 0.0  # rolls that leave the turn total where it is: count them geometrically
                for e in range(offsets[c], offsets[c + 1]):
                    kind = kinds[e]
                    k2 = -1
                    if kind == ADD:
                        k2 = k + amounts[e]
                    elif kind == DOUBLE:
                        k2 = 2 * k
                    elif kind == SUBTRACT:
                        k2 = max(k - amounts[e], 0)
                    elif kind == SET:
                        k2 = amounts[e]
                    if k2 == k:
                        p_self += probs[e]
                if p_self > 1.0 - 1e-12:
                    leftover += m  # a roll that can never change anything: the turn never ends
                    continue
                m = m / (1.0 - p_self)
                seen[k] += m
                rolls[j] += m
                for e in range(offsets[c], offsets[c + 1]):
                    kind = kinds[e]
                    p = probs[e] * m
                    k2 = -1
                    if kind == ADD:
                        k2 = k + amounts[e]
                    elif kind == DOUBLE:
                        k2 = 2 * k
                    elif kind == SUBTRACT:
                        k2 = max(k - amounts[e], 0)
                    elif kind == SET:
                        k2 = amounts[e]
                    elif kind == BUST:
                        dist[j, i] += p
                        bust[j] += p
                    elif kind == RESET:
                        dist[j, 0] += p
                        reset[j] += p
                    else:  # BANK
                        s2 = i + amounts[e]
                        if keeps[e]:
                            s2 += k
                        if s2 >= goal:
                            win[j] += p
                        else:
                            dist[j, s2] += p
                        banked[j] += p * (s2 - i)
                    if k2 >= 0 and k2 != k:
                        if k2 >= top:  # the turn total reaches the goal: hold and win
                            win[j] += p
                            banked[j] += p * k2
                        else:
                            resid[k2] += p
            if resid.sum() <= 1e-17:
                break
        leftover += resid.sum()
        if record:
            visits[j, :top] = seen
    return leftover


@njit(cache=True)
def _chain_block(  # pragma: no cover - numba
    goal,
    t0,
    t1,
    tail,
    M,
    X,
    Y,
    ind_a,
    to_a,
    pr_a,
    stats_a,
    ind_b,
    to_b,
    pr_b,
    stats_b,
    pmf,
    acc,
    winner,
    W,
):
    """Play turns t0 .. t1 - 1 of the chain; return (turns done, mass still playing, M, X, Y).

    M[i, j]: probability that a turn starts with the mover at i and the other at j. X (Y): the
    mover's (other's) scoring turns so far, weighted by that probability. ``stats_*[q, i, j]``:
    per-turn win, scoring, banked, bust, reset, rolls (q = 0..5). ``pmf[t]``: P(the game ends on
    turn t + 1); ``acc[seat, stat]`` the per-seat totals; ``winner[0]``/``winner[1]``: the
    expected scoring turns of the winner / loser; ``W[seat]``: expected turn starts per state.
    """
    t = t0
    remaining = M.sum()
    while t < t1:
        seat = t % 2
        if seat == 0:
            ind, to, pr, st = ind_a, to_a, pr_a, stats_a
        else:
            ind, to, pr, st = ind_b, to_b, pr_b, stats_b
        nM = np.zeros_like(M)
        nX = np.zeros_like(M)
        nY = np.zeros_like(M)
        absorbed = 0.0
        for i in range(goal):
            for j in range(goal):
                m = M[i, j]
                if m == 0.0:
                    continue
                x = X[i, j]
                y = Y[i, j]
                W[seat, i, j] += m
                pw = st[0, i, j]
                absorbed += m * pw
                winner[0] += (x + m) * pw  # the winning turn scores too
                winner[1] += y * pw
                acc[seat, 0] += m
                acc[seat, 1] += m * st[1, i, j]
                acc[seat, 2] += m * st[2, i, j]
                acc[seat, 3] += m * st[3, i, j]
                acc[seat, 4] += m * st[4, i, j]
                acc[seat, 5] += m * st[5, i, j]
                acc[seat, 6] += m * st[4, i, j] * i
                row = i * goal + j
                for q in range(ind[row], ind[row + 1]):
                    s2 = to[q]
                    p = pr[q]
                    nM[j, s2] += m * p
                    nX[j, s2] += y * p
                    if s2 > i:
                        nY[j, s2] += (x + m) * p
                    else:
                        nY[j, s2] += x * p
        pmf[t] = absorbed
        M = nM
        X = nX
        Y = nY
        t += 1
        remaining = M.sum()
        if remaining < tail:
            break
    return t, remaining, M, X, Y


# -- turn level -------------------------------------------------------------------------------
@dataclass(frozen=True)
class TurnOutcomes:
    """What one turn does from every turn-start state (mover i, other j) under one strategy."""

    indptr: np.ndarray  # CSR over rows i * goal + j: the mover's possible new scores below the goal
    scores: np.ndarray  # int64
    probabilities: np.ndarray  # float64
    win: np.ndarray  # (goal, goal): P(the turn reaches the goal)
    scoring: np.ndarray  # P(the turn banks points)
    banked: np.ndarray  # expected points banked by the turn (seed 003, Figure 10)
    bust: np.ndarray  # P(the turn total is lost)
    reset: np.ndarray  # P(the whole score is lost)
    rolls: np.ndarray  # expected rolls in the turn
    stay: np.ndarray  # P(the turn ends with the mover's score unchanged)
    visits: np.ndarray | None  # (goal, goal, goal): expected visits to turn total k in the turn
    leftover: float  # probability that never left a turn (0 unless a strategy can loop forever)

    def stats(self) -> np.ndarray:
        """Return the per-turn arrays the chain kernel reads, stacked (6, goal, goal)."""
        return np.stack([self.win, self.scoring, self.banked, self.bust, self.reset, self.rolls])


def _check_variant(variant: Variant) -> Variant:
    if variant.decision is Decision.SIMULTANEOUS:
        raise BadParameterError(
            f"{variant.name} is simultaneous (everyone plays the same rolls), so it is not supported by exact "
            f"analysis, which follows turn-based 2-player games; study it with `pigdice simulate {variant.name}`"
        )
    return solvable(variant)


def turn_outcomes(
    variant: Variant,
    actions: np.ndarray,
    visits: bool = True,
    progress: Callable[[float], None] | None = None,
) -> TurnOutcomes:
    """Return the exact outcome distribution of one turn from every (i, j) under an action table."""
    variant = _check_variant(variant)
    goal = variant.goal
    table = effect_table(variant)
    acts = np.ascontiguousarray(actions, dtype=np.int8)
    if acts.shape != (goal, goal, goal):
        raise BadParameterError(f"an action table for goal {goal} has shape {(goal, goal, goal)}, not {acts.shape}")
    one_throw = variant.decision is Decision.DICE_PER_TURN
    record = visits and goal <= VISITS_MAX_GOAL
    arrays = {name: np.zeros((goal, goal)) for name in ("win", "banked", "bust", "reset", "rolls")}
    seen = np.zeros((goal, goal, goal)) if record else None
    dist = np.zeros((goal, goal))
    empty = np.zeros((0, 0))
    pieces_ind = [np.zeros(1, dtype=np.int64)]
    pieces_to: list[np.ndarray] = []
    pieces_pr: list[np.ndarray] = []
    stay = np.zeros((goal, goal))
    scoring = np.zeros((goal, goal))
    leftover = 0.0
    count = 0
    for i in range(goal):
        dist[:] = 0.0
        leftover += _turn_rows(
            i,
            goal,
            acts[i],
            table.kinds,
            table.amounts,
            table.keeps,
            table.probabilities,
            table.offsets,
            one_throw,
            dist,
            arrays["win"][i],
            arrays["banked"][i],
            arrays["bust"][i],
            arrays["reset"][i],
            arrays["rolls"][i],
            seen[i] if seen is not None else empty,
        )
        rows, cols = np.nonzero(dist)
        pieces_to.append(cols.astype(np.int64))
        pieces_pr.append(dist[rows, cols])
        counts = np.bincount(rows, minlength=goal)
        pieces_ind.append(count + np.cumsum(counts))
        count += len(cols)
        stay[i] = dist[:, i]
        scoring[i] = dist[:, i + 1 :].sum(axis=1) + arrays["win"][i]
        if progress is not None:
            progress((i + 1) / goal)
    return TurnOutcomes(
        indptr=np.concatenate(pieces_ind),
        scores=np.concatenate(pieces_to) if pieces_to else np.zeros(0, dtype=np.int64),
        probabilities=np.concatenate(pieces_pr) if pieces_pr else np.zeros(0),
        win=arrays["win"],
        scoring=scoring,
        banked=arrays["banked"],
        bust=arrays["bust"],
        reset=arrays["reset"],
        rolls=arrays["rolls"],
        stay=stay,
        visits=seen,
        leftover=leftover,
    )


def optimal_actions(policy: Policy, progress: Callable[[float], None] | None = None) -> np.ndarray:
    """Return the optimal action table T[i, j, k] of a solved policy (0 hold, c + 1 roll choice c)."""
    return policy.action_table(progress)


# -- game level -------------------------------------------------------------------------------
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
    M = np.zeros((goal, goal))
    M[0, 0] = 1.0
    X = np.zeros((goal, goal))
    Y = np.zeros((goal, goal))
    stats_a = first.stats()
    stats_b = second.stats()
    pmf = np.zeros(1024)
    acc = np.zeros((2, len(STAT_NAMES)))
    winner = np.zeros(2)
    W = np.zeros((2, goal, goal))
    t = 0
    remaining = 1.0
    block = 8
    while t < max_turns and remaining >= tail:
        stop = min(t + block, max_turns)
        if stop > len(pmf):
            pmf = np.concatenate([pmf, np.zeros(len(pmf))])
        t, remaining, M, X, Y = _chain_block(
            goal,
            t,
            stop,
            tail,
            M,
            X,
            Y,
            first.indptr,
            first.scores,
            first.probabilities,
            stats_a,
            second.indptr,
            second.scores,
            second.probabilities,
            stats_b,
            pmf,
            acc,
            winner,
            W,
        )
        block = min(block * 2, 256)
        if progress is not None:
            progress(min(1.0, 1.0 - remaining) if remaining < 1.0 else 0.0)
    length = pmf[:t].copy()
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
        per_seat=acc,
        winner_scoring_turns=float(winner[0]),
        loser_scoring_turns=float(winner[1]),
        turn_starts=W,
    )


# -- the analysis -----------------------------------------------------------------------------
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
    """Return the action table of a strategy spec (and the policy if it is 'optimal')."""
    from pigdice.players.base import parse_strategy
    from pigdice.players.tables import action_table

    strategy = parse_strategy(spec, variant)
    if getattr(strategy, "name", "") == "optimal":
        policy = solve(variant, progress=progress)
        return optimal_actions(policy, None if progress is None else lambda f: progress(f, "optimal actions")), policy
    return action_table(strategy, variant, None if progress is None else lambda f: progress(f, "action table")), None


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
    variant = _check_variant(variant)
    specs = [s.strip() for s in strategies]
    if not 1 <= len(specs) <= 2 or not all(specs):
        raise BadParameterError(f"give one or two strategies (A or A,B), not {','.join(strategies)!r}")
    if len(specs) == 1:
        specs.append(specs[0])
    names = (specs[0], specs[1])
    started = time.perf_counter()
    timings: dict[str, float] = {}

    def report(fraction: float, what: str) -> None:
        if progress is not None:
            progress(fraction, what)

    tables: list[np.ndarray] = []
    policy: Policy | None = None
    mark = time.perf_counter()
    for spec in dict.fromkeys(names):
        table, found = strategy_table(
            variant, spec, lambda f, what: report(f, what if what == "optimal actions" else f"solving {variant.name}")
        )
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
