"""The stage games of 2-player Swine Herd in plain Python, from its solved turn-start values V.

``pigdice.solve.herd.swineherd`` solves every turn start and keeps every stage game (goal^3
numbers). Given V alone, one turn at (a, b) follows again by its backward sweep over the shared
total t (``_turn`` there), reading the lone roller's values (``_lone_tables``) one row at a time:
this module is that sweep without the kernels, so a hint or a robot's choice needs no compiled
code. The same arithmetic in the same order gives the kernels' values to rounding. Seat A has
score a, seat B score b; every value is A's chance (a shared win 1/2); an endless game is a draw
(1/2), no roll ends the game at once (the solver's defaults).
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from pigdice.errors import BadParameterError
from pigdice.rules.effects import EffectKind
from pigdice.rules.variant import Variant

ENDLESS_SHARE = 0.5  # A's share of a game that never ends: a draw (``solve_swine_herd``'s default)
STRICT_OFFSET = 1e-10  # the exiting player's strategy is read this far inside (as the solver stores it)
MAX_STAGE_STEPS = 200
MAX_KEPT = 4096  # lone rows and turns kept; past this they are dropped and computed again on demand


class Die(NamedTuple):
    """The shared die: what each adding face adds, its chance, and the chance of a bust."""

    amounts: tuple[int, ...]
    probabilities: tuple[float, ...]
    bust: float


class TurnRows(NamedTuple):
    """One turn at (a, b): the stage value and each seat's sit chance at t = 1..top (index t; 0 unused)."""

    values: list[float]
    sit_a: list[float]
    sit_b: list[float]


def shared_die(variant: Variant) -> Die:
    """Return the shared die of a simultaneous ``variant``: adds of at least 1, and a bust (as the solver reads it)."""
    amounts: list[int] = []
    chances: list[Fraction] = []
    bust = Fraction(0)
    for effect, probability in variant.roll_spec().distribution():
        if effect.kind is EffectKind.BUST:
            bust += probability
        elif effect.kind is EffectKind.ADD and effect.amount >= 1:
            amounts.append(effect.amount)
            chances.append(probability)
        else:
            raise BadParameterError(f"{variant.name}: a shared roll adds or busts, not {effect.kind.name.lower()}")
    if bust == 0 or not amounts:
        raise BadParameterError(f"{variant.name}: the shared roll must be able to bust and to add")
    return Die(tuple(amounts), tuple(float(p) for p in chances), float(bust))


def solve2(m00: float, m01: float, m10: float, m11: float) -> tuple[float, float, float]:
    """Return (value, A's sit chance, B's sit chance) of the zero-sum 2x2 stage game A maximises.

    Rows: A sits, stays; columns: B sits, stays. Saddle points first (ties go to sitting), else
    the unique mixed equilibrium.
    """
    if m10 <= m00 <= m01:
        return m00, 1.0, 1.0
    if m11 <= m01 <= m00:
        return m01, 1.0, 0.0
    if m00 <= m10 <= m11:
        return m10, 0.0, 1.0
    if m01 <= m11 <= m10:
        return m11, 0.0, 0.0
    den = m00 - m01 - m10 + m11
    p = (m11 - m10) / den
    q = (m11 - m01) / den
    return m10 + p * (m00 - m10), p, q


def play(m00: float, m01: float, m10: float, m11: float, p: float, q: float) -> float:
    """Return A's expected payoff when A sits with chance p and B with chance q."""
    return p * (q * m00 + (1.0 - q) * m01) + (1.0 - p) * (q * m10 + (1.0 - q) * m11)


class HerdTurns:
    """Swine Herd's stage games and lone rollers at any (a, b), computed from V on demand and kept."""

    def __init__(self, variant: Variant, V: list[list[float]]) -> None:
        self.goal = variant.goal
        self.die = shared_die(variant)
        self.sit_at_goal = variant.sits_at_goal
        self.V = V
        self.past_a, self.past_b = self._past()
        self._lone: dict[tuple[int, int], tuple[list[float], list[float]]] = {}
        self._turns: dict[tuple[int, int], TurnRows] = {}

    def ending(self, x: int, y: int) -> float:
        """Return A's payoff after a turn that ends with scores (x, y): the result, or the next turn start."""
        if x >= self.goal or y >= self.goal:
            return 1.0 if x > y else 0.5 if x == y else 0.0
        return self.V[x][y]

    def _past(self) -> tuple[list[float], list[float]]:
        """Return RA, RB: a lone roller's value against a seated score past the goal, by goal + deficit."""
        goal, die = self.goal, self.die
        ra = [0.0] * (2 * goal + 1)
        rb = [0.0] * (2 * goal + 1)
        for d in range(-goal, goal + 1):
            va = 0.0
            vb = die.bust
            for amount, p in zip(die.amounts, die.probabilities, strict=True):
                d2 = d - amount
                if d2 < 0:
                    ba, bb = 1.0, 0.0
                elif d2 == 0:
                    ba, bb = max(0.5, ra[goal]), min(0.5, rb[goal])
                else:
                    ba, bb = ra[goal + d2], rb[goal + d2]
                va += p * ba
                vb += p * bb
            ra[goal + d] = va
            rb[goal + d] = vb
        return ra, rb

    def lone(self, s: int, o: int) -> tuple[list[float], list[float]]:
        """Return (LA, LB) at (s, o): A (or B) rolls on alone with score s and total u against the other's o."""
        kept = self._lone.get((s, o))
        if kept is not None:
            return kept
        if len(self._lone) >= MAX_KEPT:
            self._lone.clear()
        goal, die, V = self.goal, self.die, self.V
        la = [0.0] * goal
        lb = [0.0] * goal
        for u in range(goal - s - 1, 0, -1):
            va = die.bust * V[s][o]
            vb = die.bust * V[o][s]
            for amount, p in zip(die.amounts, die.probabilities, strict=True):
                u2 = u + amount
                if s + u2 >= goal:  # past the goal against o < goal: hold and win
                    ba, bb = 1.0, 0.0
                else:
                    ba, bb = max(V[s + u2][o], la[u2]), min(V[o][s + u2], lb[u2])
                va += p * ba
                vb += p * bb
            la[u] = va
            lb[u] = vb
        self._lone[(s, o)] = (la, lb)
        return la, lb

    def entries(self, a: int, b: int, t: int) -> tuple[float, float, float]:
        """Return A's payoffs sit-sit, (A sits, B stays), (A stays, B sits) at the stage (a, b, t)."""
        goal, bust, V = self.goal, self.die.bust, self.V
        x1, y1 = a + t, b + t
        ss = self.ending(x1, y1)
        if x1 >= goal:
            sy = self.past_b[goal + a - b]
        elif y1 >= goal:  # B rolls once more, then holds past the goal unless it busts
            sy = bust * V[x1][b]
        else:
            sy = self.lone(b, x1)[1][t]
        if y1 >= goal:
            ys = self.past_a[goal + b - a]
        elif x1 >= goal:
            ys = bust * V[a][y1] + 1.0 - bust
        else:
            ys = self.lone(a, y1)[0][t]
        return ss, sy, ys

    def rows(self, a: int, b: int) -> TurnRows:
        """Return the turn at (a, b) as the solver stores it: stage values and sit chances at x = V(a, b).

        The player who wants the turn to end (A if V > 1/2) has its sit chances read just inside,
        towards 1/2 (``STRICT_OFFSET``), as the solver keeps them.
        """
        kept = self._turns.get((a, b))
        if kept is not None:
            return kept
        if len(self._turns) >= MAX_KEPT:
            self._turns.clear()
        x = self.V[a][b]
        values, sit_a, sit_b = self.sweep(a, b, x)
        if x != ENDLESS_SHARE:
            inside = self.sweep(a, b, x - STRICT_OFFSET if x > ENDLESS_SHARE else x + STRICT_OFFSET)
            if x > ENDLESS_SHARE:
                sit_a = inside[1]
            else:
                sit_b = inside[2]
        rows = TurnRows(values, sit_a, sit_b)
        self._turns[(a, b)] = rows
        return rows

    def sweep(self, a: int, b: int, x: float) -> TurnRows:
        """Return the stage values and sit chances of the turn at (a, b) for the turn-start value x."""
        goal, die = self.goal, self.die
        top = goal - min(a, b)
        S = [0.0] * (top + 1)
        P = [0.0] * (top + 1)
        Q = [0.0] * (top + 1)
        if self.sit_at_goal:  # both standing at top must sit
            S[top], P[top], Q[top] = self.entries(a, b, top)[0], 1.0, 1.0
        else:
            S[top], P[top], Q[top] = self._stationary(a, b, top, x)
        for t in range(top - 1, 0, -1):
            ss, sy, ys = self.entries(a, b, t)
            yy = die.bust * x
            for amount, p in zip(die.amounts, die.probabilities, strict=True):
                yy += p * S[min(t + amount, top)]
            S[t], P[t], Q[t] = solve2(ss, sy, ys, yy)
        return TurnRows(S, P, Q)

    def _stationary(self, a: int, b: int, top: int, x: float) -> tuple[float, float, float]:
        """Return the stationary stage at t >= top without the house rule: S = val(ss, sy, ys, k0 + k1 S)."""
        ss, sy, ys = self.entries(a, b, top)
        k0 = self.die.bust * x
        k1 = 1.0 - self.die.bust
        lo, hi = 0.0, 1.0
        s = x
        for _ in range(MAX_STAGE_STEPS):
            v, p, q = solve2(ss, sy, ys, k0 + k1 * s)
            if v == s:
                break
            if v > s:
                lo = s
            else:
                hi = s
            r = (1.0 - p) * (1.0 - q)  # Newton: the profile (p, q) kept, S solved exactly
            target = (play(ss, sy, ys, 0.0, p, q) + r * k0) / (1.0 - r * k1)
            if not lo < target < hi:
                target = 0.5 * (lo + hi)
            if target == s or hi - lo <= 1e-17:
                s = target
                break
            s = target
        _, p, q = solve2(ss, sy, ys, k0 + k1 * s)
        r = (1.0 - p) * (1.0 - q)
        return (play(ss, sy, ys, 0.0, p, q) + r * k0) / (1.0 - r * k1), p, q
