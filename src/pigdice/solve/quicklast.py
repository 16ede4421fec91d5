"""The last turn of a 2-player game in plain Python: ``pigdice.solve.two.lastturn`` without the kernels.

After one player reaches the goal under a final round or equal turns, the other plays one last
turn (or one last throw) against a deficit ``need``: a one-player stopping problem in the turn
total (see ``lastturn``). These functions give the same values and the same tie-break as its
kernels, so a hint in the last turn needs no compiled code.
"""

from __future__ import annotations

from collections.abc import Sequence

from pigdice.rules.effects import EffectKind
from pigdice.rules.variant import Variant
from pigdice.solve.positions import INDIFFERENCE
from pigdice.solve.quickrow import outcomes

MAX_SWEEPS = 10_000
MONOTONE_KINDS = (EffectKind.ADD, EffectKind.BUST, EffectKind.RESET_SCORE, EffectKind.BANK)  # as ``tables``
SWEEP_TOLERANCE = 1e-16


def prefer(options: Sequence[float], roll_first: bool) -> int:
    """Return the option the tie-break picks: options[0] holds, options[c + 1] rolls with choice c.

    The preferred option (rolling with the fewest dice when ``roll_first``, else holding) stands
    unless another is better by more than INDIFFERENCE, taken in order.
    """
    n = len(options)
    if roll_first and n > 1:
        best = 1
        for o in range(2, n):
            if options[o] > options[best] + INDIFFERENCE:
                best = o
        if options[0] > options[best] + INDIFFERENCE:
            best = 0
        return best
    best = 0
    for o in range(1, n):
        if options[o] > options[best] + INDIFFERENCE:
            best = o
    return best


def payoff(gain: int, need: int, tie: float) -> float:
    """Return the last player's share when their turn banks ``gain`` against a deficit ``need``."""
    if gain > need:
        return 1.0
    return tie if gain == need else 0.0


def single_throw(variant: Variant, need: int, tie: float) -> list[float]:
    """Return the share of one banked throw with each roll choice (a final roll, or Hog) at deficit ``need``.

    As the engine banks it: an add, a set or a bank banks its amount; anything else banks 0, and a
    reset loses the whole score (and the game).
    """
    values = []
    for choice in outcomes(variant):
        value = 0.0
        for effect, p in choice:
            if effect.kind in (EffectKind.ADD, EffectKind.SET, EffectKind.BANK):
                value += p * payoff(effect.amount, need, tie)
            elif effect.kind is not EffectKind.RESET_SCORE:
                value += p * payoff(0, need, tie)
        values.append(value)
    return values


def last_turn_row(variant: Variant, need: int, tie: float) -> tuple[list[float], list[list[float]]]:
    """Return (hold[k], rolls[c][k]) of the last turn at deficit ``need`` for turn totals k = 0..need.

    Above ``need`` the player holds and wins. A bust or a reset ends the last turn short of the
    leader (0), as the kernels count it.
    """
    choices = outcomes(variant)
    monotone = all(e.kind in MONOTONE_KINDS for choice in choices for e, _ in choice)  # one sweep is exact
    win = [0.0] * (need + 1)
    hold = [payoff(k, need, tie) for k in range(need + 1)]
    rolls = [[0.0] * (need + 1) for _ in choices]
    settled = False
    for sweeps in range(1, MAX_SWEEPS + 1):
        change = 0.0
        for k in range(need, -1, -1):
            options = [hold[k]]
            for c, choice in enumerate(choices):
                value = 0.0
                for effect, p in choice:
                    kind, amount = effect.kind, effect.amount
                    if kind is EffectKind.BANK:
                        value += p * payoff(amount + (k if effect.keep_turn_total else 0), need, tie)
                        continue
                    if kind in (EffectKind.BUST, EffectKind.RESET_SCORE):
                        continue
                    _, k2, _ = effect.resolve(0, k)
                    value += p * (1.0 if k2 > need else win[k2])
                rolls[c][k] = value
                options.append(value)
            best = prefer(options, k == 0)
            change = max(change, abs(options[best] - win[k]))
            win[k] = options[best]
        if monotone or sweeps >= MAX_SWEEPS or (settled and change < SWEEP_TOLERANCE):
            break
        settled = change < SWEEP_TOLERANCE  # once the values settle, one more sweep for the roll values
    return hold, rolls
