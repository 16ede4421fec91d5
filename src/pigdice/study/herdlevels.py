"""The level robots of 2-player Swine Herd as sit tables, so that their chances are evaluated exactly.

A level (``pigdice.players.levels``) sits down as soon as sitting is worth within its allowance of
the best option. With the other standing, each option is worth what it brings against the other's
equilibrium mix (the perfect player's option values); standing alone, what holding and rolling on
are worth. This module reads those values off the solved equilibrium (``SwineHerdPolicy``) for every
stage at once, with the same formulas as its ``stage`` and ``alone`` methods, and writes the level's
choices as a ``SitTable`` for ``pigdice.study.analysis.swineherd.evaluate_pair``.
"""

from __future__ import annotations

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.solve.herd.swineherd import SwineHerdPolicy
from pigdice.study.analysis.swineherd import SitTable


def _ending(x: np.ndarray, y: np.ndarray, goal: int, V: np.ndarray) -> np.ndarray:
    """Return A's payoff after turns that end at scores (x, y): the result past the goal, else V."""
    inside = (x < goal) & (y < goal)
    result = np.where(x > y, 1.0, np.where(x == y, 0.5, 0.0))
    return np.where(inside, V[np.minimum(x, goal - 1), np.minimum(y, goal - 1)], result)


def stage_options(policy: SwineHerdPolicy) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return A's and B's option values with both standing: (A sits, A stands, B sits, B stands), each [a, b, t].

    Each is the chance (A's, and B's own) of the option against the other's equilibrium mix, for t up to
    the stage every larger total reads (goal - min(a, b)); entries past it repeat that stage.
    """
    goal, die, w, eps = policy.goal, policy.die, policy.endless, policy.stop
    V = policy.V
    a = np.arange(goal)[:, None, None]
    b = np.arange(goal)[None, :, None]
    top = goal - np.minimum(a, b)
    t = np.minimum(np.arange(goal + 1)[None, None, :], top)
    t = np.maximum(t, 1)
    x1, y1 = a + t, b + t
    cx, cy = np.minimum(x1, goal - 1), np.minimum(y1, goal - 1)
    ct = np.minimum(t, goal - 1)
    ss = _ending(x1, y1, goal, V)
    sy = np.where(
        x1 >= goal,
        policy.past_b[goal + a - b],
        np.where(y1 >= goal, eps * w + (1.0 - eps) * die.bust * V[cx, b], policy.lone_b[b, cx, ct]),
    )
    ys = np.where(
        y1 >= goal,
        policy.past_a[goal + b - a],
        np.where(x1 >= goal, eps * w + (1.0 - eps) * (die.bust * V[a, cy] + 1.0 - die.bust), policy.lone_a[a, cy, ct]),
    )
    follow = np.zeros(ss.shape)
    for amount, probability in zip(die.amounts.tolist(), die.probabilities.tolist(), strict=True):
        follow += probability * np.take_along_axis(policy.stage_values, np.minimum(t + amount, top), axis=2)
    yy = eps * w + (1.0 - eps) * (die.bust * V[a, b] + follow)
    p = np.take_along_axis(policy.sit_a, t, axis=2)  # A's sit chance
    q = np.take_along_axis(policy.sit_b, t, axis=2)  # B's
    a_sits, a_stands = q * ss + (1 - q) * sy, q * ys + (1 - q) * yy
    b_sits, b_stands = 1.0 - (p * ss + (1 - p) * ys), 1.0 - (p * sy + (1 - p) * yy)
    return a_sits, a_stands, b_sits, b_stands


def alone_options(policy: SwineHerdPolicy, seat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return a lone standing seat's (hold, roll, holding wins outright) by [its score m, the other's o, total u].

    ``o`` runs to 2 goal (the other may have banked past the goal), ``u`` to 2 goal; values are the
    seat's own chance. Where the other is past the goal by more than the goal nothing is reachable
    (both 0: it rolls on).
    """
    goal, die, w, eps = policy.goal, policy.die, policy.endless, policy.stop
    V = policy.V
    m = np.arange(goal)[:, None, None]
    o = np.arange(2 * goal)[None, :, None]
    u = np.arange(2 * goal + 1)[None, None, :]
    x = m + u
    co, cx, cu = np.minimum(o, goal - 1), np.minimum(x, goal - 1), np.minimum(u, goal - 1)
    deficit = o - x
    past = policy.past_a if seat == 0 else policy.past_b
    past_roll = past[goal + np.clip(deficit, -goal, goal)]
    lone = (policy.lone_a if seat == 0 else policy.lone_b)[m, co, cu]
    if seat == 0:
        hold_inside = V[cx, co]
        roll_inside = np.where(x >= goal, eps * w + (1.0 - eps) * (die.bust * V[m, co] + 1.0 - die.bust), lone)
    else:
        past_roll = 1.0 - past_roll
        hold_inside = 1.0 - V[co, cx]
        roll_inside = 1.0 - np.where(x >= goal, eps * w + (1.0 - eps) * die.bust * V[co, m], lone)
    past_hold = np.where(deficit < 0, 1.0, np.where(deficit == 0, 0.5, 0.0))
    other_past = o >= goal
    hold = np.where(other_past, past_hold, np.where(x >= goal, 1.0, hold_inside))
    roll = np.where(other_past, past_roll, roll_inside)
    wins = (~other_past) & (x >= goal)
    return hold, roll, wins


def level_sit_table(policy: SwineHerdPolicy, seat: int, allowance: float) -> SitTable:
    """Return the level with ``allowance`` as seat ``seat``'s sit table (0: A, 1: B; from its own point of view)."""
    if seat not in (0, 1):
        raise BadParameterError(f"seat is 0 (A) or 1 (B), got {seat}")
    goal = policy.goal
    a_sits, a_stands, b_sits, b_stands = stage_options(policy)
    sits, stands = (a_sits, a_stands) if seat == 0 else (b_sits.transpose(1, 0, 2), b_stands.transpose(1, 0, 2))
    sit = (sits >= np.maximum(sits, stands) - allowance).astype(np.float64)
    mine = np.arange(goal)[:, None, None]
    other = np.arange(goal)[None, :, None]
    top = goal - np.minimum(mine, other)
    equilibrium = policy.sit_a if seat == 0 else policy.sit_b.transpose(1, 0, 2)
    at_top = np.arange(goal + 1)[None, None, :] >= top
    sit = np.where(at_top, np.take_along_axis(equilibrium, np.broadcast_to(top, sit.shape), axis=2), sit)
    sit[:, :, 0] = 0.0  # no choice before the first roll
    hold, roll, wins = alone_options(policy, seat)
    o = np.arange(2 * goal)[None, :, None]
    x = mine + np.arange(2 * goal + 1)[None, None, :]
    unreachable = (o >= goal) & (o - x > goal)
    hold_alone = (wins | (hold >= np.maximum(hold, roll) - allowance)) & ~unreachable
    hold_alone[:, :, 0] = False
    return SitTable(f"level allowance {allowance:g}", goal, np.ascontiguousarray(sit), np.ascontiguousarray(hold_alone))
