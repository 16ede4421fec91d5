"""Exact analysis of 2-player Swine Herd: two sitting strategies played against each other, no simulation.

Swine Herd (seed 001) is played by both players at once on one shared die: after every roll each
standing player sits (banks the shared turn total) or stays, both at the same moment; a bust
loses the turn for everyone still standing; after the turn in which someone reaches the goal the
best score wins and a tie is shared. A strategy is a ``SitTable`` per seat: its chance to sit
with the other still standing, by (my score, the other's score, turn total), and whether it
holds when it stands alone against the other's banked score.

``evaluate_pair`` plays two tables exactly as a Markov chain over turn starts (a, b), sums
increasing: every turn that banks something raises the score sum, and the only way back is a
bust with both standing, which starts the same turn again. So a turn start reached with mass m,
whose one play ends with a banked score with chance e, is played m / e times on average and
sends m / e times each of its exits onwards (the self-loop solved exactly). Within one play the
both-standing stages t = 1..top, top = goal - min(a, b), are walked forward; a player left alone
walks on by itself until it holds or busts.

The house rule (the variant's ``at_goal`` setting, 'sit' by default, ``Variant.sits_at_goal``):
while both stand, a total that takes both to the goal (t >= top) seats them both and ends the
turn. Every turn then ends with positive chance (e > 0) and every game ends. Without it
('roll-on') the stage t >= top repeats as one stationary stage, and two players who both keep
standing there never bank: their turn start repeats for ever. The evaluation then reports the
chance ``never`` that a game reaches such a turn start (e = 0: it never ends; perfect play of the
roll-on game from (0, 0) at goal 100 does so for sure) and counts turns and rolls until the game
ends or gets stuck there.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from pigdice.errors import BadParameterError, BadStrategyError
from pigdice.rules.variant import Variant
from pigdice.solve.herd.swineherd import MAX_GOAL, SIT_MARGIN, SwineHerdPolicy, read_die, solve_swine_herd

OPTIMAL = "optimal"
CHOSEN_STATES = ((0, 0), (50, 0), (0, 50), (80, 60), (90, 80), (95, 95))  # at goal 100; scaled to the goal


class Chain(NamedTuple):
    """The exact chain's die and where its games stand: what a turn's walk reads and writes."""

    goal: int
    amounts: np.ndarray  # int64: what each adding face adds
    probs: np.ndarray  # float64: each adding face's chance
    pbust: float  # the chance of a bust
    arrive0: np.ndarray  # (goal, goal): the chance a game reaches the turn start before both first sat together
    arrive1: np.ndarray  # (goal, goal): ... after
    walk: np.ndarray  # a lone roller's mass by turn total (scratch)


class ChainTotals(NamedTuple):
    """What the exact chain adds up (the fields of ``SwineHerdEvaluation`` of the same names)."""

    win_a: float
    win_b: float
    shared: float
    never: float
    turns: float
    rolls: float
    together: float
    together_count: float
    home: float
    decisions: float
    mixed: float


# -- strategy tables ------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SitTable:
    """One seat's strategy in 2-player Swine Herd, from its own point of view.

    ``sit[m, o, t]``: the chance to sit at turn total t (1 <= t <= goal - min(m, o)) with the other
    still standing, my score m and the other's o (both below the goal); every larger total reads
    row goal - min(m, o): from there on both are at the goal (the house rule seats both; without it
    the stage repeats). ``hold_alone[m, o, u]``: True if, standing alone with score m and turn total
    u against the other's banked score o (0 <= o < 2 goal: it may have banked past the goal), it
    holds; False: it rolls on. Totals u >= 2 goal read row 2 goal (the standing player is then past
    every score the other can have banked). A lone player needs no mixing (there is nobody to
    keep guessing), so its choice is a plain yes or no.
    """

    name: str
    goal: int
    sit: np.ndarray  # (goal, goal, goal + 1) float64
    hold_alone: np.ndarray  # (goal, 2 goal, 2 goal + 1) bool

    def sit_chance(self, mine: int, other: int, total: int) -> float:
        """Return the chance to sit at turn total ``total`` with the other standing (scores below the goal)."""
        self._check(mine, other, self.goal, total)
        return float(self.sit[mine, other, min(total, self.goal - min(mine, other))])

    def holds_alone(self, mine: int, other: int, total: int) -> bool:
        """Return True if, standing alone with turn total ``total``, it holds against the other's banked score."""
        self._check(mine, other, 2 * self.goal, total)
        return bool(self.hold_alone[mine, other, min(total, 2 * self.goal)])

    def _check(self, mine: int, other: int, other_limit: int, total: int) -> None:
        if not (0 <= mine < self.goal and 0 <= other < other_limit and total >= 1):
            raise BadParameterError(
                f"scores (0..{self.goal - 1}, 0..{other_limit - 1}) and a turn total of at least 1, got "
                f"({mine}, {other}) and {total}"
            )


def _empty_table(name: str, goal: int) -> SitTable:
    return SitTable(
        name,
        goal,
        np.zeros((goal, goal, goal + 1)),
        np.zeros((goal, 2 * goal, 2 * goal + 1), dtype=np.bool_),
    )


def hold_at_table(variant: Variant, threshold: int) -> SitTable:
    """Return the robot 'hold at N' (``hold:N``) as a table: it sits once the turn total is at least N or
    its own score plus the total reaches the goal, whether the other stands or not (``players.fixed.HoldAt``).

    The first roll of a turn is everyone's, so a threshold of 0 or 1 sits after it.
    """
    goal = _goal_of(variant)
    if threshold < 0:
        raise BadParameterError(f"hold at a turn total of 0 or more, not {threshold}")
    table = _empty_table(f"hold:{threshold}", goal)
    m = np.arange(goal)[:, None, None]
    t = np.arange(goal + 1)[None, None, :]
    table.sit[...] = np.broadcast_to((t >= threshold) | (m + t >= goal), table.sit.shape)
    u = np.arange(2 * goal + 1)[None, None, :]
    table.hold_alone[...] = np.broadcast_to((u >= threshold) | (m + u >= goal), table.hold_alone.shape)
    table.sit[:, :, 0] = 0.0  # no choice before the first roll
    table.hold_alone[:, :, 0] = False
    return table


@njit(cache=True)
def _alone_from_policy(seat, goal, V, lone, past, H):  # pragma: no cover - numba
    """Fill H[m, o, u]: hold iff holding is worth at least rolling on for ``seat`` (A: 0, B: 1) standing alone.

    Values are A's chance (the solver's arrays): B holds where A's value of the hold is at most
    that of rolling on. A deficit past the stored range (never reached in play) rolls on.
    """
    for m in range(goal):
        for o in range(2 * goal):
            for u in range(1, 2 * goal + 1):
                x = m + u
                if o < goal and x >= goal:  # past the goal against a score below it: holding wins outright
                    H[m, o, u] = True
                    continue
                if o >= goal:  # the other is past the goal: the turn's end decides the game
                    deficit = o - x
                    if deficit > goal:  # never reached (the roller starts within the goal of o): roll on
                        H[m, o, u] = False
                        continue
                    hold = 1.0 if deficit < 0 else 0.5 if deficit == 0 else 0.0
                    roll = past[goal + max(-goal, deficit)]
                    if seat == 1:
                        roll = 1.0 - roll
                elif seat == 0:
                    hold = V[x, o]
                    roll = lone[m, o, u]
                else:
                    hold = 1.0 - V[o, x]
                    roll = 1.0 - lone[m, o, u]
                H[m, o, u] = hold >= roll


def equilibrium_table(policy: SwineHerdPolicy, seat: int) -> SitTable:
    """Return the solved equilibrium as seat ``seat``'s table (0: A, 1: B; the game is symmetric).

    With the other standing it sits with the equilibrium's chance (mixed where the stage game
    mixes); standing alone it holds iff holding is worth at least rolling on (``policy.alone``).
    """
    if seat not in (0, 1):
        raise BadParameterError(f"seat is 0 (A) or 1 (B), got {seat}")
    goal = policy.goal
    table = _empty_table(OPTIMAL, goal)
    # the policy's rows are [A's score, B's score, t]; B's view swaps the scores
    table.sit[...] = policy.sit_a if seat == 0 else policy.sit_b.transpose(1, 0, 2)
    table.sit[:, :, 0] = 0.0
    lone = policy.lone_a if seat == 0 else policy.lone_b
    past = policy.past_a if seat == 0 else policy.past_b
    _alone_from_policy(seat, goal, policy.V, lone, past, table.hold_alone)
    return table


# -- the exact chain ------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _deposit(sa, sb, mass, goal, arrive0, arrive1, c0, c1, ends):  # pragma: no cover - numba
    """A turn ends at scores (sa, sb) with chance ``mass`` per play: the game's result (ends: A wins, B wins,
    shared), or the next turn start, reached c0 (before both sat together) and c1 (after) times ``mass``.

    It takes the chain's arrays, not the ``Chain``: a bundle handed to an inlined helper in the inner
    loop is counted in and out on every call (a third slower)."""
    if sa >= goal or sb >= goal:
        if sa > sb:
            ends[0] += mass
        elif sb > sa:
            ends[1] += mass
        else:
            ends[2] += mass
    else:
        arrive0[sa, sb] += c0 * mass
        arrive1[sa, sb] += c1 * mass


@njit(cache=True)
def _lone(seat, s, o, mass, t, chain, H, c0, c1, ends):  # pragma: no cover - numba
    """Walk ``seat`` (0: A, 1: B) standing alone: score s, total t (it stayed, so it rolls), the other banked
    at o, holding where H says. Deposit the turn's ends (``_deposit``); return the expected number of rolls."""
    goal, amounts, probs, pbust, walk = chain.goal, chain.amounts, chain.probs, chain.pbust, chain.walk
    arrive0, arrive1 = chain.arrive0, chain.arrive1
    cap = 2 * goal
    oi = min(o, cap - 1)
    walk[t] = mass
    last = t
    rolls = 0.0
    u = t
    while u <= last and u < cap:
        mu = walk[u]
        walk[u] = 0.0
        if mu > 0.0:
            rolls += mu
            if seat == 0:  # a bust: the roller keeps its score
                _deposit(s, o, mu * pbust, goal, arrive0, arrive1, c0, c1, ends)
            else:
                _deposit(o, s, mu * pbust, goal, arrive0, arrive1, c0, c1, ends)
            for k in range(amounts.shape[0]):
                u2 = u + amounts[k]
                m2 = mu * probs[k]
                if H[s, oi, min(u2, cap)]:
                    if seat == 0:
                        _deposit(s + u2, o, m2, goal, arrive0, arrive1, c0, c1, ends)
                    else:
                        _deposit(o, s + u2, m2, goal, arrive0, arrive1, c0, c1, ends)
                else:
                    walk[u2] += m2
                    last = max(last, u2)
        u += 1
    for u in range(cap, last + 1):  # rolls on for ever past every score: busts after 1 / pbust rolls
        mu = walk[u]
        walk[u] = 0.0
        if mu > 0.0:
            rolls += mu / pbust
            if seat == 0:
                _deposit(s, o, mu, goal, arrive0, arrive1, c0, c1, ends)
            else:
                _deposit(o, s, mu, goal, arrive0, arrive1, c0, c1, ends)
    return rolls


@njit(cache=True)
def _evaluate(goal, house, die, SA, SB, HA, HB, margin):  # pragma: no cover - numba
    """Play the tables forward from (0, 0) exactly; return the ``ChainTotals``.

    arrive0[a, b] / arrive1[a, b]: the chance a game reaches the turn start (a, b) before / after the
    two players first sat at the same moment. Per play of a turn: pi[t] the chance to reach stage t
    with both standing, w[t] the expected visits (t = top, the stationary stage without the house
    rule, is visited again after each non-bust roll), e the chance the play ends with a banked score.
    """
    amounts, probs, pbust = die.amounts, die.probabilities, die.bust
    nf = amounts.shape[0]
    maxf = amounts.max()
    arrive0 = np.zeros((goal, goal))
    arrive1 = np.zeros((goal, goal))
    arrive0[0, 0] = 1.0
    chain = Chain(goal, amounts, probs, pbust, arrive0, arrive1, np.zeros(2 * goal + maxf + 2))
    win_a = win_b = shared = never = turns = rolls_total = 0.0
    together_games = together_count = home = decisions = mixed = 0.0
    pi = np.zeros(goal + maxf + 2)
    w = np.zeros(goal + 2)
    P = np.zeros(goal + 2)
    Q = np.zeros(goal + 2)
    ends = np.zeros(3)
    together = np.zeros(3)
    for n in range(2 * goal - 1):
        for a in range(max(0, n - goal + 1), min(n, goal - 1) + 1):
            b = n - a
            m0 = arrive0[a, b]
            m1 = arrive1[a, b]
            m = m0 + m1
            if m == 0.0:
                continue
            top = goal - min(a, b)
            for t in range(top + 1):
                pi[t] = 0.0
            for k in range(nf):
                pi[min(amounts[k], top)] += probs[k]
            e = 0.0
            for t in range(1, top + 1):
                if house and t == top:  # everyone standing is at the goal: the house rule seats both
                    p, q = 1.0, 1.0
                else:
                    p, q = SA[a, b, t], SB[b, a, t]
                P[t], Q[t] = p, q
                r = (1.0 - p) * (1.0 - q)
                wt = pi[t]
                if t == top:
                    wt = pi[t] / (1.0 - r * (1.0 - pbust))
                w[t] = wt
                e += wt * (1.0 - r)
                if t < top and wt > 0.0 and r > 0.0:
                    for k in range(nf):
                        pi[min(t + amounts[k], top)] += wt * r * probs[k]
            if e <= 0.0:  # nobody ever sits here: the turn repeats for ever
                never += m
                continue
            c = m / e
            c0 = m0 / e
            c1 = m1 / e
            turns += c
            rolls = 1.0  # the turn's first roll, everyone's
            ends[:] = 0.0
            together[:] = 0.0
            for t in range(1, top + 1):
                wt = w[t]
                if wt == 0.0:
                    continue
                p, q = P[t], Q[t]
                r = (1.0 - p) * (1.0 - q)
                forced = house and t == top
                if not forced:
                    decisions += c * wt
                    if margin < p < 1.0 - margin or margin < q < 1.0 - margin:
                        mixed += c * wt
                    rolls += wt * r
                x1 = a + t
                y1 = b + t
                both = wt * p * q
                if both > 0.0:
                    together_count += c * both
                    if forced:
                        home += c * both
                    if x1 >= goal or y1 >= goal:
                        _deposit(x1, y1, both, goal, arrive0, arrive1, 0.0, 0.0, together)
                    else:
                        arrive1[x1, y1] += c * both
                lone_b = wt * p * (1.0 - q)  # A sits, B stands alone
                if lone_b > 0.0:
                    rolls += _lone(1, b, x1, lone_b, t, chain, HB, c0, c1, ends)
                lone_a = wt * (1.0 - p) * q
                if lone_a > 0.0:
                    rolls += _lone(0, a, y1, lone_a, t, chain, HA, c0, c1, ends)
            rolls_total += c * rolls
            win_a += c * (ends[0] + together[0])
            win_b += c * (ends[1] + together[1])
            shared += c * (ends[2] + together[2])
            together_games += c1 * (ends[0] + ends[1] + ends[2]) + c * (together[0] + together[1] + together[2])
    # games that met a simultaneous sit and are still going have been counted where they ended
    return ChainTotals(
        win_a, win_b, shared, never, turns, rolls_total, together_games, together_count, home, decisions, mixed
    )


@dataclass(frozen=True)
class SwineHerdEvaluation:
    """The exact result of a 2-player Swine Herd game between two tables, from (0, 0).

    ``win_a + win_b + shared + never == 1``. Expectations count each game until it ends (or, without
    the house rule, until it reaches a turn start whose turn can never end).
    """

    names: tuple[str, str]
    goal: int
    sits_at_goal: bool  # the house rule was played
    win_a: float  # seat A wins outright
    win_b: float
    shared: float  # a tie: both share the win
    never: float  # the game never ends (0 under the house rule)
    turns: float  # expected turns (a turn is everyone's; a turn lost to a bust counts)
    rolls: float  # expected rolls of the shared die
    together: float  # the chance the two sit at the same moment at least once (by choice or by the house rule)
    together_count: float  # expected moments per game at which both sit together
    home: float  # the chance the game ends with both seated by the house rule
    decisions: float  # expected moments at which both stand and choose
    mixed: float  # ... of which at least one player's choice is mixed (chance strictly between 0 and 1)
    seconds: float

    @property
    def chance_a(self) -> float:
        """Return seat A's share of the win (a tie counts one half)."""
        return self.win_a + 0.5 * self.shared

    @property
    def chance_b(self) -> float:
        """Return seat B's share of the win (a tie counts one half)."""
        return self.win_b + 0.5 * self.shared

    def to_json(self) -> dict[str, Any]:
        """Return the evaluation as plain JSON-able data."""
        return {
            "strategies": list(self.names),
            "win_a": self.win_a,
            "win_b": self.win_b,
            "shared": self.shared,
            "never": self.never,
            "chance_a": self.chance_a,
            "chance_b": self.chance_b,
            "turns": self.turns,
            "rolls": self.rolls,
            "together": self.together,
            "together_count": self.together_count,
            "home": self.home,
            "decisions": self.decisions,
            "mixed": self.mixed,
            "seconds": self.seconds,
        }


def _goal_of(variant: Variant) -> int:
    """Return the goal of a Swine Herd variant we can evaluate, or raise BadParameterError."""
    read_die(variant)  # a simultaneous game on a shared add-or-bust roll
    if variant.goal > MAX_GOAL:
        raise BadParameterError(f"the exact Swine Herd analysis takes goals up to {MAX_GOAL}, not {variant.goal}")
    return variant.goal


def evaluate_pair(variant: Variant, table_a: SitTable, table_b: SitTable) -> SwineHerdEvaluation:
    """Return the exact result of 2-player ``variant`` (Swine Herd) with seat A playing ``table_a`` and B ``table_b``.

    No simulation: the game's Markov chain is played forward from (0, 0) (see the module doc),
    under the variant's house rule (``Variant.sits_at_goal``). Raises BadParameterError for a
    turn-based variant, a goal above MAX_GOAL or tables built for another goal.
    """
    goal = _goal_of(variant)
    for table in (table_a, table_b):
        if table.goal != goal:
            raise BadParameterError(f"the table {table.name} is for goal {table.goal}, the game's goal is {goal}")
    die = read_die(variant)
    started = time.perf_counter()
    totals = _evaluate(
        goal, variant.sits_at_goal, die, table_a.sit, table_b.sit, table_a.hold_alone, table_b.hold_alone, SIT_MARGIN
    )
    seconds = time.perf_counter() - started
    return SwineHerdEvaluation(
        names=(table_a.name, table_b.name),
        goal=goal,
        sits_at_goal=variant.sits_at_goal,
        win_a=float(totals.win_a),
        win_b=float(totals.win_b),
        shared=float(totals.shared),
        never=float(totals.never),
        turns=float(totals.turns),
        rolls=float(totals.rolls),
        together=float(totals.together),
        together_count=float(totals.together_count),
        home=float(totals.home),
        decisions=float(totals.decisions),
        mixed=float(totals.mixed),
        seconds=seconds,
    )


# -- the analysis ---------------------------------------------------------------------------------


def _bytes_needed(goal: int) -> int:
    """Return the bytes the analysis holds at ``goal``: the solved policy and two seats' tables."""
    policy = (3 * goal * goal * (goal + 1) + 2 * goal**3) * 8
    table = goal * goal * (goal + 1) * 8 + goal * 2 * goal * (2 * goal + 1)
    return policy + 2 * table


def reachable_totals(policy: SwineHerdPolicy) -> np.ndarray:
    """Return a mask over turn totals 0..goal: True where some run of rolls reaches the total."""
    reach = np.zeros(policy.goal + 1, dtype=bool)
    reach[0] = True
    for t in range(1, policy.goal + 1):
        reach[t] = any(t >= f and reach[t - f] for f in policy.die.amounts.tolist())
    return reach


@dataclass(frozen=True)
class Mixing:
    """How often the equilibrium mixes: stage games with both standing at reachable totals (the house
    rule's forced seating is no choice and is not counted; without it the stage at the goal counts once)."""

    stages: int
    mixed: int
    turn_starts: int  # turn starts with at least one mixed stage game
    all_turn_starts: int

    @property
    def share(self) -> float:
        """Return the share of stage games that mix."""
        return self.mixed / self.stages if self.stages else 0.0


def mixing(policy: SwineHerdPolicy) -> Mixing:
    """Return how many of the equilibrium's stage games with both standing mix."""
    goal = policy.goal
    reach = reachable_totals(policy)
    stages = mixed = starts = 0
    for a in range(goal):
        for b in range(goal):
            top = goal - min(a, b)
            last = top - 1 if policy.sit_at_goal else top
            rows = np.flatnonzero(reach[1 : last + 1]) + 1
            p, q = policy.sit_a[a, b, rows], policy.sit_b[a, b, rows]
            mix = ((p > SIT_MARGIN) & (p < 1 - SIT_MARGIN)) | ((q > SIT_MARGIN) & (q < 1 - SIT_MARGIN))
            stages += rows.size
            mixed += int(mix.sum())
            starts += int(mix.any())
    return Mixing(stages, mixed, starts, goal * goal)


def chosen_states(goal: int) -> list[tuple[int, int]]:
    """Return the turn starts whose values the analysis shows (``CHOSEN_STATES`` scaled to the goal)."""
    states: list[tuple[int, int]] = []
    for a, b in CHOSEN_STATES:
        state = (min(a * goal // 100, goal - 1), min(b * goal // 100, goal - 1))
        if state not in states:
            states.append(state)
    return states


@dataclass(frozen=True, eq=False)
class SwineHerdAnalysis:
    """The exact analysis of 2-player Swine Herd: two strategies from (0, 0), and the equilibrium's shape."""

    variant: Variant
    names: tuple[str, str]
    evaluation: SwineHerdEvaluation
    policy: SwineHerdPolicy
    mixing: Mixing
    values: list[tuple[int, int, float]]  # (a, b, the chance of the player with a at the start of a turn)
    seconds: float

    @property
    def same_strategy(self) -> bool:
        """Return True if both seats play the same strategy."""
        return self.names[0] == self.names[1]

    def to_json(self, arrays: bool = False) -> dict[str, Any]:
        """Return the analysis as JSON-able data (``arrays``: add the equilibrium's turn-start values)."""
        evaluation = self.evaluation.to_json()
        del evaluation["strategies"]
        data: dict[str, Any] = {
            "variant": self.variant.name,
            "goal": self.variant.goal,
            "sit_at_goal": self.variant.sits_at_goal,
            "strategies": list(self.names),
            **evaluation,
            "equilibrium": {
                "value_at_start": self.policy.value(0, 0),
                "stage_games": self.mixing.stages,
                "mixed_stage_games": self.mixing.mixed,
                "mixed_share": self.mixing.share,
                "turn_starts_with_mixing": self.mixing.turn_starts,
                "turn_starts": self.mixing.all_turn_starts,
                "values": [{"scores": [a, b], "value": value} for a, b, value in self.values],
                "solve_seconds": self.policy.seconds,
            },
            "seconds": self.seconds,
        }
        if arrays:
            data["equilibrium"]["turn_start_values"] = self.policy.V.tolist()
        return data


def _hold_threshold(spec: str, variant: Variant) -> int | None:
    """Return N of a hold:N spec, None for optimal (the equilibrium); refuse every other strategy."""
    from pigdice.players.fixed import HoldAt
    from pigdice.players.specs import parse_strategy

    text = spec.strip()
    if text.lower() == OPTIMAL:
        return None
    strategy = parse_strategy(text, variant)
    if not isinstance(strategy, HoldAt) or strategy.dice is not None:
        raise BadStrategyError(
            f"{text!r}: the exact Swine Herd analysis plays optimal (the equilibrium) or hold:N, not this strategy"
        )
    return strategy.threshold


def analyze_swine_herd(variant: Variant, specs: Sequence[str] = (OPTIMAL,)) -> SwineHerdAnalysis:
    """Analyse 2-player Swine Herd exactly: one strategy against itself or two (A, B), optimal or hold:N.

    Solves the equilibrium (``solve_swine_herd``, under the variant's house rule) for its values
    and mixing, and evaluates the pair from (0, 0) with ``evaluate_pair``. Raises BadParameterError
    for a turn-based variant, a goal above MAX_GOAL or other than one or two strategies, and
    BadStrategyError for a strategy other than optimal or hold:N.
    """
    from pigdice.solve.memory import check_memory

    if not 1 <= len(specs) <= 2 or not all(s.strip() for s in specs):
        raise BadParameterError(f"give one or two strategies (A or A,B), got {list(specs)}")
    goal = _goal_of(variant)
    check_memory("the exact Swine Herd analysis", goal, _bytes_needed)
    thresholds = [_hold_threshold(spec, variant) for spec in (specs[0], specs[-1])]  # refused before the solve
    started = time.perf_counter()
    policy = solve_swine_herd(variant)
    tables = tuple(
        equilibrium_table(policy, seat) if hold is None else hold_at_table(variant, hold)
        for seat, hold in enumerate(thresholds)
    )
    evaluation = evaluate_pair(variant, tables[0], tables[1])
    values = [(a, b, policy.value(a, b)) for a, b in chosen_states(goal)]
    names = (tables[0].name, tables[1].name)
    return SwineHerdAnalysis(variant, names, evaluation, policy, mixing(policy), values, time.perf_counter() - started)


# -- words ----------------------------------------------------------------------------------------


def _percent(x: float) -> str:
    return f"{100 * x:.4g}%" if x >= 1e-6 or x == 0.0 else f"{100 * x:.2e}%"


def who(analysis: SwineHerdAnalysis) -> str:
    """Return who plays whom, in words."""
    a, b = analysis.names
    return f"{a} against itself" if a == b else f"{a} (A) against {b} (B)"


def summary_rows(analysis: SwineHerdAnalysis) -> list[tuple[str, str]]:
    """Return the analysis as (what, value) rows in a player's words."""
    e = analysis.evaluation
    a, b = analysis.names
    rows = [
        (f"A ({a}) wins", _percent(e.win_a)),
        (f"B ({b}) wins", _percent(e.win_b)),
        ("shared win (a tie)", _percent(e.shared)),
        ("A's chance, a tie counting half", f"{e.chance_a:.6f}"),
    ]
    if e.never > 0.0:
        rows.append(("games that never end", _percent(e.never)))
    until = " (until the game ends or can no longer end)" if e.never > 0.0 else ""
    rows += [
        ("turns per game", f"{e.turns:.2f} on average{until}"),
        ("rolls per game", f"{e.rolls:.2f} on average"),
        (
            "both sit at the same moment",
            f"in {_percent(e.together)} of games, {e.together_count:.3f} times per game on average",
        ),
    ]
    if analysis.variant.sits_at_goal:
        rows.append(("seated together at the goal by the house rule", f"in {_percent(e.home)} of games"))
    share = e.mixed / e.decisions if e.decisions else 0.0
    rows.append(
        (
            "choices with both standing",
            f"{e.decisions:.2f} per game; a mixed choice in {e.mixed:.2f} of them ({_percent(share)})",
        )
    )
    m = analysis.mixing
    rows.append(
        (
            "the best play mixes",
            f"in {_percent(m.share)} of its choices with both standing ({m.mixed:,} of {m.stages:,}; "
            f"in {m.turn_starts:,} of {m.all_turn_starts:,} turn starts)",
        )
    )
    rows.append(("time", f"{analysis.seconds:.2f} s (exact: the game's chain, no simulation)"))
    return rows


VALUE_HEADER = ["your score", "the other's score", "your chance at the start of a turn (best play by both)"]


def value_rows(analysis: SwineHerdAnalysis) -> list[list[str]]:
    """Return the equilibrium's value at the chosen turn starts as table rows."""
    return [[str(a), str(b), f"{value:.6f}"] for a, b, value in analysis.values]


def notes(analysis: SwineHerdAnalysis) -> list[str]:
    """Return the notes a reader needs: the house rule, endless games, what the seats mean."""
    lines = ["Everyone plays every turn on one shared die; A and B are just names (nobody goes first)."]
    if analysis.variant.sits_at_goal:
        lines.append(
            "House rule: while both stand, a turn total that takes both to the goal seats them both and ends the turn."
        )
    else:
        lines.append(
            "Without the house rule players at the goal may keep standing; two who never sit never finish, and a "
            "game that never ends counts as a draw in the best play's values."
        )
    if analysis.same_strategy and analysis.evaluation.shared > 1.0 - 1e-9:
        lines.append(
            "The same strategy on both sides sits at the same totals, so the scores stay level and every game "
            "is shared."
        )
    return lines


def report_text(analysis: SwineHerdAnalysis, fmt: str, figure: str | None = None) -> str:
    """Return the analysis as a Markdown (``fmt`` 'md') or HTML report; ``figure``: a picture file to show."""
    v = analysis.variant
    title = f"Exact analysis: {v.title}, goal {v.goal}: {who(analysis)}"
    rows = summary_rows(analysis)
    values = value_rows(analysis)
    if fmt == "html":
        import html

        def cells(row: Sequence[str], tag: str) -> str:
            return "<tr>" + "".join(f"<{tag}>{html.escape(c)}</{tag}>" for c in row) + "</tr>"

        parts = [
            "<!doctype html>",
            f'<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>',
            "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
            "td,th{padding:.2em .8em;border-bottom:1px solid #ddd;text-align:left}</style></head><body>",
            f"<h1>{html.escape(title)}</h1>",
            "<table>" + "".join(cells(row, "td") for row in rows) + "</table>",
            "<h2>Values of the best play</h2>",
            "<table>" + cells(VALUE_HEADER, "th") + "".join(cells(row, "td") for row in values) + "</table>",
        ]
        parts += [f"<p>{html.escape(line)}</p>" for line in notes(analysis)]
        if figure:
            parts += ["<h2>When to sit</h2>", f'<img src="{html.escape(figure)}" alt="when to sit" width="100%">']
        parts.append("</body></html>")
        return "\n".join(parts) + "\n"
    lines = [f"# {title}", "", "| | |", "|---|---|"]
    lines += [f"| {name} | {value} |" for name, value in rows]
    lines += ["", "## Values of the best play", "", "| " + " | ".join(VALUE_HEADER) + " |", "|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in values]
    lines += ["", *notes(analysis)]
    if figure:
        lines += ["", "## When to sit", "", f"![when to sit]({figure})"]
    return "\n".join(lines) + "\n"
