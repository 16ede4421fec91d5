"""The exact equilibrium of 2-player Swine Herd, a simultaneous zero-sum stochastic game (seed 001).

Both players (A with score a, B with b, both below the goal G) stand at the start of a turn and
one die is rolled for both; the first roll is taken by everyone. After every roll that adds to
the shared turn total t, each standing player chooses at the same time to sit (bank t, out for
the rest of the turn) or to stay. A bust ends the turn and the standing bank nothing. After the
turn in which someone reaches G, the best score wins and a tie is shared (worth 1/2). A's
payoff is its chance to win (a tie counts 1/2): the game is zero-sum.

While both stand, each roll is a 2x2 stage game (rows: A sits or stays; columns: B sits or
stays): sit-sit ends the turn at (a + t, b + t); sit-stay leaves B alone, rolling from t against
A's banked a + t (a one-player stopping problem, ``_lone_tables``); stay-stay rolls again: a
bust starts the same turn again at (a, b), else the next stage at t + f. Once t >= G - min(a, b)
a sit puts either player past the goal, so the stage depends on the lead a - b alone and is the
same for every larger t: one stationary stage S = val[[.., ..], [.., p_bust x + (1 - p_bust) S]]
(a contraction in S), no truncation needed. Every other value the turn reads lies at a higher
score sum, so sums are solved from the top down, and the only unknown of a turn is its own
turn-start value x = V(a, b), which a bust with both standing brings back.

The endless game. The turn's value given x is F(x) = c(x) + (1 - e(x)) x, where e is the chance
the turn ends with a banked score (an exit) and c the payoff those exits bring (the stage
equilibria fixed). F is monotone and 1-Lipschitz, so its fixed points form an interval
[lo, hi], and it is often a wide one: near the goal whoever sits first hands the other a free
roll, both stay until a bust, the turn banks nothing and the next turn is the same turn (at
a = b = G - 2 sitting first is worth 1/6, staying is worth whatever the repeat is worth). Such a
play never ends, and the rules (seed 001) do not score it: a game that never ends needs a
stated value. This is a recursive game in Everett's sense (payoff only at the end; Everett
1957, "Recursive games"): given A's payoff ``endless`` for a play that never ends, the game has
a value, and for one turn start it is the fixed point of F nearest to it,
V = clamp(endless, lo, hi) (Everett's conditions: F(u) > u just below V when V > endless, F(u) < u
just above V when V < endless). We score an endless game as a draw (``endless`` = 1/2): the
players share it like any tie, the rule keeps the two seats symmetric (V(a, b) + V(b, a) = 1,
V(a, a) = 1/2) and zero-sum, and it is the limit of ``stop`` -> 0, where every roll ends the game
as a draw with chance ``stop`` (a memoryless end nobody can time; |V_stop - V| is about 90 stop
at goal 100: bench/swine_herd.py). Rules the players can time are other games: a cut of the
turn total (everyone must sit at K, ``truncated_values``, the first look's model) makes the
leader win every endless turn, its values move with K and settle only for K in the hundreds;
a cap on the number of rolls (what value iteration of all states from the endless payoff
computes) lets a player sit just before the cap (tests/solve/test_swineherd.py has a goal-8 die
where its limit is 7/18 and the value 32/81).

The house rule (``sit_at_goal``, the variant's default setting ``at_goal`` = 'sit', played by the engine
too): while both stand, once the shared total takes both to the goal (t >= goal - min(a, b)) they both
sit and the turn ends. It replaces the stationary stage by that forced exit (the leader wins, equal
scores share), so every turn ends with positive chance (a bust or the forced sit), F is a contraction,
the value is unique and no turn start is endless or a boundary; the player standing alone still rolls
on freely. It is Pig's own "at the goal you hold" kept to the moment it is needed: it changes nothing
until both standing players have reached the goal, where without it the one who sits first hands the
other a free roll and nobody sits. At goal 100: V(0, 0) = 1/2, V(50, 0) = 0.9039 (0.8892 under the draw
rule), V(80, 60) = 0.8600 (0.6412), V(90, 80) = 0.8624 (an endless draw, 1/2, without the rule); the
two rules differ by 0.095 on average over the turn starts and by up to 1/2 next to the goal
(V(98, 99) = 0 with the rule: the leader wins every turn that reaches the goal). 36% of the choices
with both standing mix, in 9,898 of the 10,000 turn starts.

Between two perfect players under the house rule the scores stay equal (sitting first at equal
scores hands the other a free roll: 43% against 50% at (0, 0)), nobody sits, and the game ends in a
shared win in the first turn whose total reaches the goal without a 1.

What optimal play does without the house rule (``at_goal`` = 'roll-on'): at equal scores the stage
games are symmetric and pure, so both sit at the same total (or neither does) and the scores stay
equal; with a d6, from a = b >= G - 50 on, sitting first is worse than the draw and nobody sits.
Optimal play from (0, 0) therefore reaches an endless turn start with certainty: between two optimal
players the 2-player game is a draw that never ends (with a d6 the endless turn starts are the same
938 at every goal >= 50: within 50 of the goal, a + b >= 2 G - 100, |a - b| <= 12; at goal 50 or
less (0, 0) is one). The values elsewhere (where a player has left the equilibrium) are well defined
and are what a robot plays by; the house rule is that way to end the game.

How one turn start is solved, and the strategies read: ``swineherd_kernels``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.rules.effects import EffectKind
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.herd.swineherd_kernels import (
    BOUNDARY,
    ENDLESS,
    UNIQUE,
    Game,
    StageTables,
    Values,
    residuals,
    solve_turn_starts,
)

__all__ = [
    "BOUNDARY",
    "ENDLESS",
    "MAX_GOAL",
    "SIT_MARGIN",
    "UNIQUE",
    "Die",
    "Residual",
    "Stage",
    "SwineHerdPolicy",
    "read_die",
    "solve_swine_herd",
    "truncated_values",
]

MAX_GOAL = 200  # stage rows (goal^3) and lone tables (2 goal^3 floats): 320 MB at 200, 40 MB at 100
SIT_MARGIN = 1e-12  # a stage counts as mixed if a sit probability is this far inside (0, 1)


class Stage(NamedTuple):
    """One both-standing stage game: A's payoffs, its value and the equilibrium's sit probabilities.

    ``payoffs[i][j]``: A's chance to win when A sits (i = 0) or stays (i = 1) and B sits (j = 0)
    or stays (j = 1).
    """

    payoffs: tuple[tuple[float, float], tuple[float, float]]
    value: float
    sit_a: float
    sit_b: float

    @property
    def is_mixed(self) -> bool:
        """Return True if a player's equilibrium strategy mixes sitting and staying."""
        return any(SIT_MARGIN < p < 1.0 - SIT_MARGIN for p in (self.sit_a, self.sit_b))


class Residual(NamedTuple):
    """The largest errors of a solution, each over every turn start (a, b)."""

    turn: float  # |F(V) - V|: V solves its turn's equation
    stage: float  # |stored stage value - recomputed|
    play: float  # |value of one turn played by the stored strategies (V afterwards) - V|


# -- the Python side ----------------------------------------------------------------------------


class Die(NamedTuple):
    """A Swine Herd die read from a variant's outcome table: what each adding face adds, and its chance."""

    amounts: np.ndarray  # int64, each >= 1
    probabilities: np.ndarray  # float64, aligned with amounts
    bust: float  # the chance of a bust


def read_die(variant: Variant) -> Die:
    """Return the shared die of a simultaneous ``variant``, or raise BadParameterError if it has none we solve.

    The solver handles tables whose every outcome adds a positive amount to the shared total or
    busts, with a bust possible (without one a turn where both stand could never end).
    """
    if variant.decision is not Decision.SIMULTANEOUS:
        raise BadParameterError(
            f"{variant.name} is a turn-based game ({variant.decision}); the Swine Herd solver takes games "
            "played by everyone at once on shared rolls: use pigdice.solve.solve"
        )
    amounts: list[int] = []
    probabilities: list[Fraction] = []
    bust = Fraction(0)
    for effect, probability in variant.roll_spec().distribution():
        if effect.kind is EffectKind.BUST:
            bust += probability
        elif effect.kind is EffectKind.ADD and effect.amount >= 1:
            amounts.append(effect.amount)
            probabilities.append(probability)
        else:
            raise BadParameterError(
                f"{variant.name}: the Swine Herd solver handles shared rolls that add a positive amount to the "
                f"turn total or bust, not {effect.kind.name.lower()} {effect.amount}"
            )
    if bust == 0 or not amounts:
        raise BadParameterError(
            f"{variant.name}: the Swine Herd solver needs a shared roll that can bust and one that can add "
            "(without a bust a turn where both stand never ends)"
        )
    return Die(np.array(amounts, dtype=np.int64), np.array([float(p) for p in probabilities]), float(bust))


def _check_rule(goal: int, endless: float, stop: float) -> None:
    """Raise BadParameterError unless the goal and the rule for endless play are solvable."""
    if goal > MAX_GOAL:
        raise BadParameterError(
            f"the Swine Herd solver takes goals up to {MAX_GOAL} (its tables grow as goal^3), not {goal}"
        )
    if not 0.0 <= endless <= 1.0:
        raise BadParameterError(f"endless is A's share of a game that never ends, in [0, 1], not {endless}")
    if not 0.0 <= stop < 1.0:
        raise BadParameterError(f"stop is a chance per roll that the game ends, in [0, 1), not {stop}")


@dataclass(frozen=True, eq=False)
class SwineHerdPolicy:
    """The solved 2-player game: turn-start values, stage equilibria and the lone roller's values.

    Seat A has score a, seat B score b; every value is A's chance to win (a shared result 1/2).
    Under the default rule (an endless game is a draw) the seats are symmetric: V(a, b) is the
    chance of whichever player has a against b.
    """

    name: str
    goal: int
    sit_at_goal: bool  # the house rule: both standing at a total that takes both to the goal must sit
    endless: float  # A's payoff of a game that never ends
    stop: float  # the chance per roll that the game ends at once, scored as endless
    die: Die
    V: np.ndarray  # (goal, goal) turn-start values
    kinds: np.ndarray  # (goal, goal) UNIQUE, ENDLESS or BOUNDARY
    stage_values: np.ndarray  # (goal, goal, goal + 1): [a, b, t] for t = 1..goal - min(a, b)
    sit_a: np.ndarray  # same shape: A's chance to sit
    sit_b: np.ndarray  # same shape: B's chance to sit
    lone_a: np.ndarray  # [s, o, u]: A rolls on alone (score s, total u) against B banked at o < goal
    lone_b: np.ndarray  # [s, o, u]: B rolls on alone (score s, total u) against A banked at o < goal
    past_a: np.ndarray  # (2 goal + 1,): A rolls alone against a banked score past the goal, by deficit
    past_b: np.ndarray  # (2 goal + 1,): B rolls alone ...
    seconds: float
    evaluations: int  # turn evaluations (backward sweeps over t) the solve took

    def _scores(self, a: int, b: int) -> None:
        """Raise BadParameterError unless (a, b) is a turn start below the goal."""
        if not (0 <= a < self.goal and 0 <= b < self.goal):
            raise BadParameterError(f"scores must be in 0..{self.goal - 1}, got ({a}, {b})")

    def _row(self, a: int, b: int, t: int) -> int:
        """Return the stored index of the stage at turn total t (every t past the stationary one maps to it)."""
        self._scores(a, b)
        if t < 1:
            raise BadParameterError(f"a stage has a turn total of at least 1, got {t}")
        return min(t, self.goal - min(a, b))

    def value(self, a: int, b: int) -> float:
        """Return A's chance to win at the start of a turn with scores (a, b)."""
        self._scores(a, b)
        return float(self.V[a, b])

    def is_endless(self, a: int, b: int) -> bool:
        """Return True if equilibrium play at this turn start never ends: its value is the rule's."""
        self._scores(a, b)
        return bool(self.kinds[a, b] == ENDLESS)

    def is_boundary(self, a: int, b: int) -> bool:
        """Return True if V(a, b) ends an interval of solutions of its turn: another endless rule could move it."""
        self._scores(a, b)
        return bool(self.kinds[a, b] == BOUNDARY)

    def sit_probability(self, a: int, b: int, t: int, seat: int) -> float:
        """Return the chance that ``seat`` (0: A, score a; 1: B, score b) sits at turn total t with both standing."""
        row = self._row(a, b, t)
        if seat not in (0, 1):
            raise BadParameterError(f"seat is 0 (A) or 1 (B), got {seat}")
        return float((self.sit_a if seat == 0 else self.sit_b)[a, b, row])

    def stage(self, a: int, b: int, t: int) -> Stage:
        """Return the stage game at (a, b, t) with both standing: A's payoffs, value and sit chances."""
        row = self._row(a, b, t)
        goal, die, w, eps = self.goal, self.die, self.endless, self.stop
        ss, sy, ys = self._entries(a, b, t)
        yy = die.bust * self.V[a, b]
        for amount, probability in zip(die.amounts.tolist(), die.probabilities.tolist(), strict=True):
            yy += probability * self.stage_values[a, b, min(t + amount, goal - min(a, b))]
        yy = eps * w + (1.0 - eps) * yy
        return Stage(
            ((ss, sy), (ys, float(yy))),
            float(self.stage_values[a, b, row]),
            float(self.sit_a[a, b, row]),
            float(self.sit_b[a, b, row]),
        )

    def _entries(self, a: int, b: int, t: int) -> tuple[float, float, float]:
        """Return A's payoffs sit-sit, (A sits, B stays), (A stays, B sits) at (a, b, t)."""
        goal, w, eps, bust = self.goal, self.endless, self.stop, self.die.bust
        x1, y1 = a + t, b + t
        ss = self._ending(x1, y1)
        if x1 >= goal:
            sy = self.past_b[goal + a - b]
        elif y1 >= goal:
            sy = eps * w + (1.0 - eps) * bust * self.V[x1, b]
        else:
            sy = self.lone_b[b, x1, t]
        if y1 >= goal:
            ys = self.past_a[goal + b - a]
        elif x1 >= goal:
            ys = eps * w + (1.0 - eps) * (bust * self.V[a, y1] + 1.0 - bust)
        else:
            ys = self.lone_a[a, y1, t]
        return ss, float(sy), float(ys)

    def _ending(self, x: int, y: int) -> float:
        """Return A's payoff after a turn that ends with scores (x, y)."""
        if x >= self.goal or y >= self.goal:
            return 1.0 if x > y else 0.5 if x == y else 0.0
        return float(self.V[x, y])

    def alone(self, a: int, b: int, t: int, seat: int) -> tuple[float, float]:
        """Return the standing player's chances to win if it holds and if it rolls on, the other seated.

        ``seat`` stands with turn total t >= 1; a and b are both players' banked scores (the
        seated player's includes what it banked this turn; the standing one's is below the goal).
        """
        if seat not in (0, 1):
            raise BadParameterError(f"seat is 0 (A) or 1 (B), got {seat}")
        mine, other = (a, b) if seat == 0 else (b, a)
        if not (0 <= mine < self.goal and other >= 0 and t >= 1):
            raise BadParameterError(
                f"the standing player's score is in 0..{self.goal - 1} and its turn total at least 1, got "
                f"scores ({a}, {b}) and total {t}"
            )
        goal, w, eps, bust = self.goal, self.endless, self.stop, self.die.bust
        if other >= goal and other - mine - t >= goal:
            raise BadParameterError(f"no play reaches scores ({a}, {b}) with the standing player's total {t}")
        if seat == 0:
            hold = self._ending(a + t, b)
            if b >= goal:
                roll = self.past_a[goal + max(-goal, b - a - t)]
            elif a + t >= goal:
                roll = eps * w + (1.0 - eps) * (bust * self.V[a, b] + 1.0 - bust)
            else:
                roll = self.lone_a[a, b, t]
            return float(hold), float(roll)
        hold = self._ending(a, b + t)
        if a >= goal:
            roll = self.past_b[goal + max(-goal, a - b - t)]
        elif b + t >= goal:
            roll = eps * w + (1.0 - eps) * bust * self.V[a, b]
        else:
            roll = self.lone_b[b, a, t]
        return 1.0 - float(hold), 1.0 - float(roll)

    def residual(self) -> Residual:
        """Return the largest errors of the solution (see ``Residual``), recomputed from V."""
        game = _game(self.goal, self.die, _house_cut(self.sit_at_goal), self.endless, self.stop)
        values = Values(self.V, self.lone_a, self.lone_b, self.past_a, self.past_b)
        turn, stage, play = residuals(game, values, StageTables(self.stage_values, self.sit_a, self.sit_b))
        return Residual(float(turn), float(stage), float(play))


def _house_cut(sit_at_goal: bool) -> int:
    """Return the kernels' cut for the house rule (-1: both standing sit at the goal) or none (0)."""
    return -1 if sit_at_goal else 0


def _game(goal: int, die: Die, cut: int, endless: float, stop: float) -> Game:
    """Return the kernels' bundle of the die and the rules."""
    return Game(goal, int(cut), die.amounts, die.probabilities, die.bust, float(endless), float(stop))


def _lone_values(goal: int) -> Values:
    """Return zeroed turn-start and lone-roller values for ``goal``."""
    return Values(
        np.zeros((goal, goal)),
        np.zeros((goal, goal, goal)),
        np.zeros((goal, goal, goal)),
        np.zeros(2 * goal + 1),
        np.zeros(2 * goal + 1),
    )


def solve_swine_herd(
    variant: Variant, *, sit_at_goal: bool | None = None, endless: float = 0.5, stop: float = 0.0
) -> SwineHerdPolicy:
    """Solve 2-player ``variant`` (Swine Herd or another simultaneous game on one shared roll) exactly.

    ``sit_at_goal`` is the house rule (both still standing sit once the total takes both to the goal;
    None: the variant's ``at_goal`` setting, 'sit' by default): with it every turn ends with positive
    chance and the values are unique; without it a game can be endless and ``endless`` scores it.
    ``endless`` is A's share of a game that never ends (1/2: a draw, the rule that keeps the game
    symmetric); ``stop`` a chance per roll that the game ends at once, scored as endless (0: never).
    Raises BadParameterError for a turn-based variant, a roll table other than add-or-bust, a
    goal above MAX_GOAL or a rule outside its range.
    """
    die = read_die(variant)
    goal = variant.goal
    _check_rule(goal, endless, stop)
    started = time.perf_counter()
    values = _lone_values(goal)
    kinds = np.zeros((goal, goal), dtype=np.int8)
    stages = StageTables(*(np.zeros((goal, goal, goal + 1)) for _ in range(3)))
    if sit_at_goal is None:
        sit_at_goal = variant.sits_at_goal
    evaluations = solve_turn_starts(_game(goal, die, _house_cut(sit_at_goal), endless, stop), values, kinds, stages)
    return SwineHerdPolicy(
        name=variant.name,
        goal=goal,
        sit_at_goal=bool(sit_at_goal),
        endless=float(endless),
        stop=float(stop),
        die=die,
        V=values.V,
        kinds=kinds,
        stage_values=stages.values,
        sit_a=stages.sit_a,
        sit_b=stages.sit_b,
        lone_a=values.LA,
        lone_b=values.LB,
        past_a=values.RA,
        past_b=values.RB,
        seconds=time.perf_counter() - started,
        evaluations=int(evaluations),
    )


def truncated_values(variant: Variant, cut: int, *, endless: float = 0.5) -> np.ndarray:
    """Return V of the game where both players still standing at turn total ``cut`` must sit (for study).

    The truncated model of the first look: not Swine Herd, and its values do not settle as
    ``cut`` grows (every endless turn becomes a win for the leader at the cut).
    """
    die = read_die(variant)
    goal = variant.goal
    _check_rule(goal, endless, 0.0)
    if cut < 1:
        raise BadParameterError(f"cut is a turn total of at least 1, got {cut}")
    values = _lone_values(goal)
    empty = np.zeros((1, 1, 1))  # a cut stores no stage games
    solve_turn_starts(
        _game(goal, die, cut, endless, 0.0),
        values,
        np.zeros((goal, goal), dtype=np.int8),
        StageTables(empty, empty, empty),
    )
    return values.V
