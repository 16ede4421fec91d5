"""A stationary equilibrium of Swine Herd with 3 players, a simultaneous general-sum stochastic game (seed 001).

The rules (seed 001, Swine Herd): every player stands at the start of a turn and one die is rolled
for everyone; the first roll is taken by all. After every roll that adds to the shared turn total
t, each standing player chooses at the same time to sit (bank t, out for the rest of the turn) or
to stay (and so take the next roll). A bust ends the turn and the standing bank nothing; the turn
also ends when everyone is seated. After the turn in which someone reaches the goal G, the best
score wins and tied players share the win (1/k each). Every player maximises its own expected share.

The ending rule (it makes every play end; the 2-player solver's ``sit_at_goal``): while two or more
players stand, as soon as the shared total takes every standing player to the goal (score + t >= G
for all of them) they all sit at once and the turn ends. "As soon as" is read literally: it is
checked after every roll and after every round of choices (if two of three stay while the third
sits and the total already takes both stayers to the goal, they sit at that total). A single
standing player chooses freely, as in Pig (it may roll on past the goal to beat a seated score);
a player who stays when all others sit has chosen to take the next roll. With the rule, a turn
where everyone stays until forced ends with positive chance, so play ends with probability 1
whatever the players do, and the one-shot deviation principle holds.

States. A turn start is the banked scores (s1, s2, s3), all below G. Inside a turn the standing
players share t; a seated player's score is its bank. Three kinds of decision:
  * all three stand: a 3-player 2-action stage game at (s, t) whose "all stay" payoff contains
    the turn start's own value x (a bust with everyone standing starts the same turn again;
    ``n_turns``);
  * two stand, one seated at c (the "pair" states W(c, a, b, t)): a 2-player 2x2 stage game;
    a bust leads to the turn start (c, a, b), whose score sum is higher (``n_pairs``);
  * one stands (the lone roller, R): a stopping problem against the seated banks (``n_lone``).
The solve runs over score sums from the highest down (``n_levels``). Each stage game's equilibria
are enumerated and one is selected by a stated rule (``n_stages``); each turn start's value is the
fixed point x = c(x) / e(x) of its turn, repaired by sticky profiles and forced mixes where the
selected profiles cycle (``n_fixed_points``); a turn start where both repairs still cycle is
settled by tracing its turn's logit quantal-response equilibria as the noise shrinks and polishing
the support read off the path to an exact equilibrium (``n_tracing``). The profile a repaired turn start plays is stored
(``Tables.PI``, ``Tables.PT``, ``Tables.PS``: every stage's sit chances; the traced ones too) and read back by the
best-response pass and ``stage``. The kernels share their tables and scratch rows as named bundles
(``n_bundles``). Each score sum's turn starts (and in the best-response pass, their best responses) are
solved on threads (``n_threads``): the same tables, bit for bit, for any number of threads.

Precision: where everything settles the exploitability is at rounding level. Goal 20: 54 turn
starts forced, 7 sticky, none unsettled, exploitability 1e-16 at the start and 3.5e-13 over all turn
starts. Goals 21-30: one turn start each is left cycling by both repairs ((0, 9, 17) at goal 21,
(9, 18, 26) at 30) and settled by the tracing: none unsettled, exploitability 3.5e-13 over all turn
starts (0.035 before the tracing). Goal 50 before the tracing: 618 forced, 223 sticky, 248 of 22100
unsettled (the Newton search stalls with many forced decisions, up to MAX_FORCED), exploitability
5e-3 at the start and 0.16 worst, solve about 100-150 s. Goal 50 with the tracing: 218 sticky, 626
forced, 253 traced, none unsettled, exploitability 8.9e-16 at the start and 6.9e-13 worst, solve 282
CPU-s, peak memory 821 MiB (bench/swine_herd_n.py).

Exploitability (``exploitability_report``): each player's exact best response against the others'
fixed stationary strategies (``n_best_response``), over every turn start.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from pigdice.errors import BadParameterError, ResourceLimitError
from pigdice.rules.variant import Variant
from pigdice.solve.herd.n_bundles import (
    Game,
    Statistics,
    StoredProfiles,
    load_profile,
    new_pair_rows,
    new_scratch,
    new_sweep,
    row_count,
)
from pigdice.solve.herd.n_levels import COUNTS
from pigdice.solve.herd.n_lone import ending, lone, past_table
from pigdice.solve.herd.n_pairs import pair_sweep
from pigdice.solve.herd.n_threads import LevelThreads
from pigdice.solve.herd.n_turns import payoffs3, turn
from pigdice.solve.herd.swineherd import Die, read_die
from pigdice.solve.memory import GiB, budget_bytes, format_bytes
from pigdice.solve.memory import herd_group_bytes as table_bytes
from pigdice.solve.threads import one_blas_thread, solver_threads

if TYPE_CHECKING:
    from pigdice.solve.solver import Progress

__all__ = [
    "MAX_GOAL",
    "PLAYERS",
    "Exploitability",
    "Stage",
    "Statistics",
    "SwineHerdNPolicy",
    "Tables",
    "best_response_values",
    "exploitability",
    "exploitability_report",
    "solve_swine_herd_n",
    "table_bytes",
]

PLAYERS = 3  # the player counts this solver takes
MAX_GOAL = 120  # tables grow as goal^4 (about 18 goal^4 bytes, twice that for the exploitability pass)
MEMORY_LIMIT = 8 * GiB


def _check(variant: Variant, players: int) -> Die:
    """Return the variant's shared die, or raise BadParameterError / ResourceLimitError naming the problem."""
    if players == 2:
        raise BadParameterError("2-player Swine Herd is zero-sum and has its own exact solver: use solve_swine_herd")
    if players != PLAYERS:
        raise BadParameterError(f"the n-player Swine Herd solver takes {PLAYERS} players, not {players}")
    die = read_die(variant)
    if not variant.sits_at_goal:
        raise BadParameterError(
            f"the {players}-player Swine Herd solver plays the house rule that everyone standing sits once the "
            "turn total takes them all to the goal (without it play need not end)"
        )
    goal = variant.goal
    if not 1 <= goal <= MAX_GOAL:
        raise BadParameterError(
            f"the {players}-player Swine Herd solver takes goals 1..{MAX_GOAL} (its tables grow as goal^4), not {goal}"
        )
    needed = 2 * table_bytes(goal)  # the solve and the exploitability pass
    budget = min(MEMORY_LIMIT, budget_bytes())
    if needed > budget:
        fits = max((g for g in range(1, goal) if 2 * table_bytes(g) <= budget), default=0)
        raise ResourceLimitError(
            f"{players}-player Swine Herd at goal {goal} needs about {format_bytes(needed)} (the equilibrium and the "
            f"best-response tables); the budget is {format_bytes(budget)}: the largest goal that fits is {fits}",
            needed,
            budget,
            budget,
            fits,
        )
    return die


class Tables(NamedTuple):
    """The arrays of a solve: turn starts V, the lone roller's rows R, the pair rows W, the past-goal table PR,
    and the profiles the repaired turn starts play (PI, PT, PS)."""

    V: np.ndarray  # (G, G, G, 3): shares at each turn start (every permutation stored)
    R: np.ndarray  # (pairs, G (G - 1) / 2, 3): lone roller rolling on, seated c1 <= c2 < G, (base s, total u)
    W: np.ndarray  # (pairs, G, G, 3): W[pair(a, b), s, t] = (sitter, a, b) after the sitter left at s, t
    PR: np.ndarray  # (2, 4 G + 1, 2): (win, tie) of a lone roller rolling on against k seated past the goal
    PI: np.ndarray  # (G, G, G, 2) int: (first row, rows) in PT and PS of a sorted turn start's stored profile
    PT: np.ndarray  # (G^3,) int: each stored row's stage t
    PS: np.ndarray  # (G^3, 3): each stored row's three sit chances

    @property
    def stored(self) -> StoredProfiles:
        """Return the stored profiles as the kernels take them."""
        return StoredProfiles(self.PI, self.PT, self.PS)


def _allocate(goal: int, mixes: bool = True) -> Tables:
    """Return zeroed tables for ``goal`` (without ``mixes``, 1-sized stored profiles: the best-response tables)."""
    pairs = goal * (goal + 1) // 2
    rows = goal**3 if mixes else 1
    return Tables(
        np.zeros((goal, goal, goal, 3)),
        np.zeros((pairs, max(1, goal * (goal - 1) // 2), 3)),
        np.zeros((pairs, goal, goal, 3)),
        np.zeros((2, 4 * goal + 1, 2)),
        np.zeros((goal, goal, goal, 2) if mixes else (1, 1, 1, 2), dtype=np.int64),
        np.zeros(rows, dtype=np.int64),
        np.zeros((rows, 3)),
    )


def _game(die: Die, tables: Tables, best: Tables | None = None) -> Game:
    """Return the kernels' bundle of the die and ``tables`` (``best``: the best-response tables, else stand-ins)."""
    if best is None:
        stand_in = np.zeros((1, 1, 1, 3))
        best_tables = (stand_in, np.zeros((1, 1, 3)), stand_in)
    else:
        best_tables = (best.V, best.R, best.W)
    goal = tables.V.shape[0]
    return Game(goal, die.amounts, die.probabilities, die.bust, tables.PR, tables.V, tables.R, tables.W, *best_tables)


class Exploitability(NamedTuple):
    """Best-response gains: per player at the start (0, ..., 0), per player over every turn start."""

    at_start: tuple[float, ...]
    worst: tuple[float, ...]
    seconds: float

    @property
    def start(self) -> float:
        """Return the largest gain at the game's start."""
        return max(self.at_start)

    @property
    def overall(self) -> float:
        """Return the largest gain over every turn start and player."""
        return max(self.worst)


class Stage(NamedTuple):
    """A stage game: the standing seats, payoffs[profile][seat] (bit j of profile: standing[j] sits), sit chances."""

    seats: tuple[int, ...]
    payoffs: tuple[tuple[float, ...], ...]
    sit: tuple[float, ...]


@dataclass(eq=False)
class SwineHerdNPolicy:
    """The solved n-player game (n = 3): turn-start shares, the stored tables, and queries of the strategies."""

    name: str
    goal: int
    players: int
    die: Die
    tables: Tables
    seconds: float
    statistics: Statistics
    threads: int = 1  # the threads each score sum's turn starts were solved on (the best responses take as many)
    _exploitability: list[Exploitability] = field(default_factory=list, repr=False)

    @property
    def nbytes(self) -> int:
        """Return the bytes of the stored tables."""
        return sum(int(a.nbytes) for a in self.tables)

    def _scores(self, scores: tuple[int, ...] | list[int]) -> tuple[int, ...]:
        """Return scores as a tuple after checking their number and range (any bank >= 0)."""
        scores = tuple(int(x) for x in scores)
        if len(scores) != self.players or min(scores) < 0:
            raise BadParameterError(f"scores are {self.players} numbers >= 0, got {scores}")
        return scores

    def value(self, scores: tuple[int, ...] | list[int]) -> tuple[float, ...]:
        """Return each player's expected share of the win at a turn start with ``scores`` (all below the goal)."""
        s = self._scores(scores)
        if max(s) >= self.goal:
            raise BadParameterError(f"turn-start scores are in 0..{self.goal - 1}, got {s}")
        return tuple(float(v) for v in self.tables.V[s])

    def stage(self, scores: tuple[int, ...] | list[int], t: int, standing: tuple[bool, ...] | list[bool]) -> Stage:
        """Return the stage game after a roll to total t with the players marked in ``standing`` standing.

        ``scores`` are the banks at that moment (a standing player's score below the goal). With one
        player standing the "stage" is its stopping problem: payoffs (roll on, hold) as profiles 0, 1.
        """
        s = self._scores(scores)
        stand = tuple(bool(x) for x in standing)
        seats = tuple(i for i in range(self.players) if stand[i])
        goal = self.goal
        if len(stand) != self.players or not seats:
            raise BadParameterError(f"standing marks {self.players} seats with at least one standing, got {standing}")
        if t < 1:
            raise BadParameterError(f"a stage has a turn total of at least 1, got {t}")
        if any(s[i] >= goal for i in seats):
            raise BadParameterError(f"a standing player's score is below the goal {goal}, got {s}")
        if len(seats) >= 2 and all(s[i] + t >= goal for i in seats):
            raise BadParameterError(f"at total {t} every standing player is at the goal: they sit at once (no stage)")
        if len(seats) == 3:
            return self._stage3(s, t)
        if len(seats) == 2:
            return self._stage2(s, t, seats)
        return self._lone_stage(s, t, seats[0])

    def _stage3(self, s: tuple[int, ...], t: int) -> Stage:
        """Return the stage with all three standing: the turn swept at its stored profile, payoffs in seat order."""
        order = sorted(range(3), key=lambda i: s[i])
        srt = np.array([s[i] for i in order], dtype=np.int64)
        tables, die = self.tables, self.die
        sweep = new_sweep(_game(die, tables))
        load_profile(srt, tables.stored, sweep.plays)
        x = tables.V[tuple(srt)].copy()
        turn(srt, x, sweep.game, sweep.rows, sweep.plays)
        D, S = sweep.rows.D, sweep.rows.S
        U = np.zeros((8, 3))
        Y = np.zeros(3)
        faces = list(zip(die.amounts.tolist(), die.probabilities.tolist(), strict=True))
        for q in range(3):
            Y[q] = die.bust * x[q] + sum(p * D[t + a, q] for a, p in faces)
        payoffs3(srt, t, self.goal, die.bust, tables.PR, tables.V, tables.R, tables.W, Y, U)
        # back to seat order: sorted position k is seat order[k]
        where = {seat: k for k, seat in enumerate(order)}
        payoffs = []
        for prof in range(8):
            sp = sum(1 << where[seat] for seat in range(3) if prof >> seat & 1)
            payoffs.append(tuple(float(U[sp, where[seat]]) for seat in range(3)))
        return Stage((0, 1, 2), tuple(payoffs), tuple(float(S[t, where[seat]]) for seat in range(3)))

    def _stage2(self, s: tuple[int, ...], t: int, seats: tuple[int, ...]) -> Stage:
        """Return the stage with the two ``seats`` standing: their pair sweep, payoffs in seat order."""
        (seated,) = (i for i in range(3) if i not in seats)
        a_seat, b_seat = sorted(seats, key=lambda i: s[i])
        c, a, b = s[seated], s[a_seat], s[b_seat]
        goal, pbust, tables = self.goal, self.die.bust, self.tables
        game = _game(self.die, tables)
        rows = new_pair_rows(row_count(goal, game.amounts))
        pair_sweep(c, a, b, game, rows, new_scratch())
        S = rows.S
        PR, V, R = tables.PR, tables.V, tables.R
        tmp = np.zeros(3)
        U = np.zeros((4, 3))
        U[0] = rows.W[t]
        lone(c, a + t, b, t, goal, pbust, PR, V, R, U[1])
        lone(c, b + t, a, t, goal, pbust, PR, V, R, tmp)
        U[2] = (tmp[0], tmp[2], tmp[1])
        ending(c, a + t, b + t, goal, V, U[3])
        comp = {seated: 0, a_seat: 1, b_seat: 2}
        bit = {a_seat: 1, b_seat: 2}
        payoffs = []
        for prof in range(4):  # bit 0: seats[0] sits, bit 1: seats[1] sits
            sp = sum(bit[seat] for k, seat in enumerate(seats) if prof >> k & 1)
            payoffs.append(tuple(float(U[sp, comp[i]]) for i in range(3)))
        sit = (float(S[t, 0]), float(S[t, 1]))
        return Stage(seats, tuple(payoffs), sit if seats[0] == a_seat else sit[::-1])

    def _lone_stage(self, s: tuple[int, ...], t: int, seat: int) -> Stage:
        """Return the lone roller's choice as a stage: profiles roll on (0) and hold (1)."""
        c1, c2 = (s[i] for i in range(3) if i != seat)
        PR, V, R = self.tables.PR, self.tables.V, self.tables.R
        roll = np.zeros(3)
        lone(c1, c2, s[seat], t, self.goal, self.die.bust, PR, V, R, roll)
        hold = np.zeros(3)
        ending(c1, c2, s[seat] + t, self.goal, V, hold)
        others = [i for i in range(3) if i != seat]
        comp = {others[0]: 0, others[1]: 1, seat: 2}
        pay = (tuple(float(roll[comp[i]]) for i in range(3)), tuple(float(hold[comp[i]]) for i in range(3)))
        return Stage((seat,), pay, (1.0 if hold[2] >= roll[2] else 0.0,))

    def sit_probability(
        self, scores: tuple[int, ...] | list[int], t: int, standing: tuple[bool, ...] | list[bool], seat: int
    ) -> float:
        """Return the equilibrium's chance that ``seat`` sits after a roll to total t with ``standing`` standing.

        ``scores`` are the banks at that moment. A lone player "sits" when it holds.
        """
        stage = self.stage(scores, t, standing)
        if seat not in stage.seats:
            raise BadParameterError(f"seat {seat} is not standing in {tuple(standing)}")
        return stage.sit[stage.seats.index(seat)]


def solve_swine_herd_n(
    variant: Variant, players: int = 3, progress: Progress | None = None, threads: int | None = None
) -> SwineHerdNPolicy:
    """Solve ``variant`` (Swine Herd on one shared add-or-bust roll) for ``players`` (3) players.

    ``progress`` (fraction, label) is told after every score sum. Each sum's turn starts are solved on
    ``threads`` threads (default: ``threads.solver_threads``); every count gives the same tables. Returns
    the selected stationary equilibrium (see the module docstring). Raises BadParameterError for 2
    players (use the exact 2-player solver), other player counts, a turn-based variant, an unsupported
    roll table, players who may roll on at the goal, a goal above MAX_GOAL or a thread count out of
    range, and ResourceLimitError when the tables would not fit the memory budget.
    """
    threads = solver_threads(threads)
    die = _check(variant, players)
    goal = variant.goal
    started = time.perf_counter()
    tables = _allocate(goal)
    game = _game(die, tables)
    past_table(game)
    statistics = _run_levels(game, tables.stored, False, progress, "the equilibrium", threads)
    seconds = time.perf_counter() - started
    return SwineHerdNPolicy(variant.name, goal, players, die, tables, seconds, statistics, threads)


def _level_weights(goal: int) -> np.ndarray:
    """Return the share of a solve's work done once each score sum (from the top) is solved: by its sorted turn
    starts, and one for its other states."""
    weights = np.ones(4 * goal + 1)
    for s0 in range(goal):
        for s1 in range(s0, goal):
            weights[s0 + s1 + s1 : s0 + s1 + goal] += 1.0
    return np.cumsum(weights[::-1]) / weights.sum()


def _run_levels(
    game: Game, stored: StoredProfiles, br: bool, progress: Progress | None, label: str, threads: int
) -> Statistics:
    """Solve every score sum from the highest down, each sum's turn starts on ``threads`` threads (progress and Ctrl-C
    between sums), BLAS on one thread."""
    goal = game.goal
    counts = np.zeros(COUNTS, dtype=np.int64)
    done = _level_weights(goal)
    top = 4 * goal
    with one_blas_thread(), LevelThreads(game, stored, br, threads) as levels:  # small dense solves: BLAS threads cost
        for n in range(top, -1, -1):
            levels.solve_sum(n, counts)
            if progress is not None:
                progress(float(done[top - n]), f"{label}, score sum {n}")
    return Statistics(*(int(c) for c in counts))


def best_response_values(policy: SwineHerdNPolicy, progress: Progress | None = None) -> np.ndarray:
    """Return B[s1, s2, s3, i]: player i's best-response share at each turn start against the others' strategies."""
    started = time.perf_counter()
    goal, die, tables = policy.goal, policy.die, policy.tables
    best = _allocate(goal, mixes=False)
    _run_levels(_game(die, tables, best), tables.stored, True, progress, "the best responses", policy.threads)
    policy._exploitability.append(_report(policy, best.V, time.perf_counter() - started))
    return best.V


def _report(policy: SwineHerdNPolicy, B: np.ndarray, seconds: float) -> Exploitability:
    """Return the gains of the best responses B over the equilibrium's shares."""
    gain = B - policy.tables.V
    start = (0,) * policy.players
    return Exploitability(
        tuple(float(g) for g in gain[start]), tuple(float(gain[..., i].max()) for i in range(policy.players)), seconds
    )


def exploitability_report(policy: SwineHerdNPolicy, progress: Progress | None = None) -> Exploitability:
    """Return the best-response gains (computed exactly once per policy, then remembered)."""
    if not policy._exploitability:
        best_response_values(policy, progress)
    return policy._exploitability[-1]


def exploitability(policy: SwineHerdNPolicy) -> float:
    """Return the largest gain any player gets by best responding, over every turn start (exact)."""
    return exploitability_report(policy).overall
