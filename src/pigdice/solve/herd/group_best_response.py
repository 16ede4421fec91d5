"""Exact best responses in Swine Herd with 3 or 4 players against any fixed rule of play: the approximation's
exploitability.

Where no equilibrium of the whole table is at hand (4 or more players, or 3 at a goal not solved), every seat
plays the 2-player equilibrium against the opponent with the highest score (``PairRule``, the rule
``players.optimal.herd_view`` plays). This module measures how far that is from an equilibrium: one seat (the
deviator, seat 0 here) plays its exact best response while the others keep the rule, and its gain over playing the
rule itself is the exploitability. It works in plain Python over every moment of every turn, so it is for small
goals (4 players to 20 takes minutes); ``herd_figures`` keeps the figures measured with it.

States. A moment is each seat's (bank, standing) and the shared total t; the seats after the first are sorted
(the rules and ``PairRule`` treat the others alike). A moment where someone has sat down cannot come back to its
turn start (a bust leads to higher banks), so its value is a number, kept once (``_settled``). The moments where
everyone still stands lead back to their turn start x by a bust: their values are lines in x (value, slope), and
the turn start's value is the fixed point x = v(x): one pass for the rule itself (v is affine), Newton steps on
the deviator's convex v for the best response (policy iteration: finitely many steps, from below).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Variant
from pigdice.solve.herd.swineherd import Die, SwineHerdPolicy, read_die

Moment = tuple[int, ...]  # each seat's 2 bank + 1 if standing: seat 0 (whose value is wanted) first, others sorted
MAX_PLAYERS = 4
NEWTON_STEPS = 200  # a best response's turn start settles in a handful; this only guards a loop
SETTLED = 1e-15  # a turn start's best response is settled when a Newton step moves it at most this


class Rule(Protocol):
    """A stationary way of playing Swine Herd: each standing seat's chance to sit at a moment."""

    def sit(self, moment: Moment, seat: int, total: int) -> float:
        """Return the chance that ``seat`` (standing) sits at ``moment`` with the shared total ``total``."""
        ...


@dataclass
class PairRule:
    """The group approximation: each seat plays the 2-player equilibrium against the opponent with the highest
    score (of equal scores, one still standing), as ``players.optimal.herd_view`` reads it."""

    pair: SwineHerdPolicy

    def sit(self, moment: Moment, seat: int, total: int) -> float:
        """Return the chance to sit that the 2-player equilibrium gives against the highest other score."""
        mine = moment[seat] >> 1
        top, standing = divmod(max(code for i, code in enumerate(moment) if i != seat), 2)
        if standing:
            return self.pair.sit_probability(mine, top, total, 0)
        hold, roll = self.pair.alone(mine, top, total, 0)
        return 1.0 if hold >= roll else 0.0


@dataclass
class TableRule:
    """A rule read from a function of (banks in seat order, total, standing, seat) -> chance to sit, such as
    ``SwineHerdNPolicy.sit_probability`` (the 3-player equilibrium)."""

    chance: Callable[[tuple[int, ...], int, tuple[bool, ...], int], float]

    def sit(self, moment: Moment, seat: int, total: int) -> float:
        """Return the rule's chance that ``seat`` sits."""
        banks = tuple(code >> 1 for code in moment)
        return self.chance(banks, total, tuple(bool(code & 1) for code in moment), seat)


class Gains(NamedTuple):
    """The exploitability of a rule at one goal: the largest gain of a best response over the rule's own play."""

    players: int
    goal: int
    start: float  # at the start of the game (every seat alike)
    worst: float  # over every turn start and seat
    worst_at: tuple[int, ...]  # that turn start's scores, the deviator's first
    share: float  # each seat's chance under the rule at the start (1 / players)
    turn_starts: int
    moments: int  # moments with someone seated, each evaluated once per pass
    seconds: float  # CPU seconds (process time)


@dataclass
class GroupTurns:
    """The values of seat 0 under a rule (``best`` False) or its best response to the others' rule (True)."""

    rule: Rule
    goal: int
    die: Die
    players: int
    best: bool
    starts: dict[tuple[int, ...], float] = field(default_factory=dict)
    _settled: dict[tuple[Moment, int], float] = field(default_factory=dict)
    _chances: dict[tuple[Moment, int], tuple[float, ...]] = field(default_factory=dict)
    _line: dict[int, tuple[float, float]] = field(default_factory=dict)  # all standing: total -> (value, slope)
    _home: tuple[int, ...] = ()
    _x: float = 0.0

    def solve(self, scores: tuple[int, ...], guess: float = 0.0) -> float:
        """Return seat 0's value at the turn start ``scores`` (seat 0 first, others sorted), every turn start with
        higher banks solved before; keep it."""
        self._home = scores
        x = guess
        for _ in range(NEWTON_STEPS):
            value, slope = self._turn(x)
            nxt = (value - slope * x) / (1.0 - slope)  # where v's line at x meets the diagonal
            if not self.best or abs(nxt - x) <= SETTLED:
                x = nxt
                break
            x = nxt
        self.starts[scores] = x
        return x

    def _turn(self, x: float) -> tuple[float, float]:
        """Return (v(x), v'(x)) for the turn from the current turn start when coming back to it is worth x."""
        self._x = x
        self._line = {}
        die, home = self.die, self._home
        value, slope = die.bust * x, die.bust
        start = tuple(2 * bank + 1 for bank in home)
        for amount, chance in zip(die.amounts.tolist(), die.probabilities.tolist(), strict=True):
            v, d = self._next(start, amount)
            value += chance * v
            slope += chance * d
        return value, slope

    def _next(self, moment: Moment, total: int) -> tuple[float, float]:
        """Return (value, slope) after a roll to ``total``: the house rule's ending or the next moment."""
        up = [i for i, code in enumerate(moment) if code & 1]
        if len(up) >= 2 and all((moment[i] >> 1) + total >= self.goal for i in up):
            return self._ending(_banks(moment, total)), 0.0
        if len(up) == len(moment):
            line = self._line.get(total)
            if line is None:
                line = self._line[total] = self._choose(moment, total)
            return line
        key = (_canonical(moment), total)
        value = self._settled.get(key)
        if value is None:
            value = self._settled[key] = self._choose(key[0], total)[0]
        return value, 0.0

    def _choose(self, moment: Moment, total: int) -> tuple[float, float]:
        """Return seat 0's (value, slope) at a moment of choice: the others by the rule, seat 0 by the rule or at
        its best."""
        chances = self._sit_chances(moment, total)
        up = [i for i in range(1, len(moment)) if moment[i] & 1]
        stands = bool(moment[0] & 1)
        results: dict[bool, tuple[float, float]] = {}
        for sits in (True, False) if stands else (False,):
            if not sits and stands and self._settles(results[True][0], chances[0]):
                return results[True]  # staying is never needed here (and a lone roller could stay for ever)
            value = slope = 0.0
            for sitters in _subsets(up):
                weight = 1.0
                for i in up:
                    weight *= chances[i] if i in sitters else 1.0 - chances[i]
                if weight == 0.0:
                    continue
                seated = set(sitters) | ({0} if sits else set())
                after = tuple(code + 2 * total - 1 if i in seated else code for i, code in enumerate(moment))
                v, d = self._after(after, total)
                value += weight * v
                slope += weight * d
            results[sits] = (value, slope)
        if not stands:
            return results[False]
        if self.best:
            return results[True] if results[True][0] >= results[False][0] else results[False]
        p = chances[0]
        return (
            p * results[True][0] + (1.0 - p) * results[False][0],
            p * results[True][1] + (1.0 - p) * results[False][1],
        )

    def _settles(self, sitting: float, chance: float) -> bool:
        """Return True if seat 0 sits for sure: by the rule, or at its best once sitting wins outright."""
        return chance == 1.0 if not self.best else sitting >= 1.0

    def _after(self, moment: Moment, total: int) -> tuple[float, float]:
        """Return (value, slope) once the choices of a moment are made: the turn ends, everyone left sits (the
        house rule) or the shared die is rolled."""
        up = [i for i, code in enumerate(moment) if code & 1]
        if not up:
            return self._ending(_banks(moment, 0)), 0.0
        if len(up) >= 2 and all((moment[i] >> 1) + total >= self.goal for i in up):
            return self._ending(_banks(moment, total)), 0.0
        die = self.die
        if len(up) == len(moment):
            value, slope = die.bust * self._x, die.bust
        else:
            value, slope = die.bust * self._ending(_banks(moment, 0)), 0.0
        for amount, chance in zip(die.amounts.tolist(), die.probabilities.tolist(), strict=True):
            v, d = self._next(moment, total + amount)
            value += chance * v
            slope += chance * d
        return value, slope

    def _ending(self, banks: tuple[int, ...]) -> float:
        """Return seat 0's share after a turn ending at ``banks``: the result, or the next turn start's value."""
        top = max(banks)
        if top >= self.goal:
            return 1.0 / banks.count(top) if banks[0] == top else 0.0
        key = (banks[0], *sorted(banks[1:]))
        return self.starts[key]

    def _sit_chances(self, moment: Moment, total: int) -> tuple[float, ...]:
        """Return each seat's chance to sit by the rule (0 for seated ones), kept per moment."""
        key = (moment, total)
        chances = self._chances.get(key)
        if chances is None:
            chances = tuple(self.rule.sit(moment, i, total) if code & 1 else 0.0 for i, code in enumerate(moment))
            self._chances[key] = chances
        return chances


def _banks(moment: Moment, total: int) -> tuple[int, ...]:
    """Return every seat's bank once the seats still standing bank ``total`` (0: they bust or are seated)."""
    return tuple((code >> 1) + total if code & 1 else code >> 1 for code in moment)


def _canonical(moment: Moment) -> Moment:
    """Return the moment with the seats after the first sorted."""
    return (moment[0], *sorted(moment[1:]))


def _subsets(seats: list[int]) -> Iterator[tuple[int, ...]]:
    """Yield every subset of ``seats``."""
    for k in range(len(seats) + 1):
        yield from itertools.combinations(seats, k)


def turn_starts(goal: int, players: int) -> list[tuple[int, ...]]:
    """Return every turn start (seat 0's score, the others' sorted), the highest score sums first."""
    starts = [
        (first, *rest)
        for first in range(goal)
        for rest in itertools.combinations_with_replacement(range(goal), players - 1)
    ]
    starts.sort(key=lambda s: -sum(s))
    return starts


def exploitability(
    rule: Rule, variant: Variant, players: int, progress: Callable[[float], None] | None = None
) -> Gains:
    """Return how much one seat gains at most by a best response while the others play ``rule``.

    Every turn start is solved twice from the highest score sums down: seat 0 playing the rule, then seat 0 at
    its best (the others by the rule throughout). Raises BadParameterError for what it does not cover.
    """
    if not 3 <= players <= MAX_PLAYERS:
        raise BadParameterError(f"the group best response takes 3 or {MAX_PLAYERS} players, not {players}")
    if not variant.sits_at_goal:
        raise BadParameterError(
            "the group best response plays the house rule that everyone standing sits once the turn total takes "
            "them all to the goal (without it play need not end)"
        )
    die = read_die(variant)
    began = time.process_time()
    goal = variant.goal
    plain = GroupTurns(rule, goal, die, players, best=False)
    best = GroupTurns(rule, goal, die, players, best=True)
    best._chances = plain._chances  # the others' chances are the same in both passes
    starts = turn_starts(goal, players)
    for done, scores in enumerate(starts):
        value = plain.solve(scores)
        best.solve(scores, guess=value)
        if progress is not None and done % 500 == 0:
            progress(done / len(starts))
    worst, worst_at = 0.0, starts[-1]
    for scores in starts:
        gain = best.starts[scores] - plain.starts[scores]
        if gain > worst:
            worst, worst_at = gain, scores
    zero = (0,) * players
    return Gains(
        players,
        goal,
        best.starts[zero] - plain.starts[zero],
        worst,
        worst_at,
        plain.starts[zero],
        len(starts),
        len(best._settled),
        time.process_time() - began,
    )
