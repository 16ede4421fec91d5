"""The one effect step of every numba kernel: what a bust, reset, add, set, bank or doubling does.

``Effect.resolve`` (rules/effects.py) is the rule for Python; ``effect_step`` is the same rule for
numba, and every kernel calls it instead of switching on the effect kind itself. Inlined
(``inline="always"``), it costs nothing over a written-out switch (bench/bench_solve.py).
The kind codes are ``EffectKind``'s values, compiled in as constants.
"""

from __future__ import annotations

from typing import Any

from numba import njit

from pigdice.solve.tables import KIND_ADD, KIND_BUST, KIND_DOUBLE, KIND_RESET, KIND_SET, KIND_SUBTRACT

# Kernels that allocate nothing and only borrow their caller's arrays compile without numba's reference
# counting (``_nrt=False``, measured in numba's own issues #2345 and #2350): otherwise every bundle handed
# to an inlined helper, or a field read from it, counts each of its arrays up and down on every use
# (90% of the vector env's step; the 3-player solves 20-180% slower). Used by envs/vector_kernels.py
# and solve/n/ (nkernels, mixing, equilibria), whose scratch the caller allocates.
WITHOUT_REFCOUNTS: dict[str, Any] = {"_nrt": False}  # numba's switch, which its type stubs do not list


@njit(cache=True, inline="always")
def effect_step(kind, amount, keep, score, turn_total):  # pragma: no cover - numba
    """Return (score, turn total, turn ends) after one effect, as ``Effect.resolve`` does.

    A turn that goes on keeps ``score``; one that ends returns turn total 0 with what was banked
    (a bust banks nothing, a reset loses the whole score, a bank adds its amount and, if ``keep``,
    the turn total).
    """
    if kind == KIND_ADD:
        return score, turn_total + amount, False
    if kind == KIND_DOUBLE:
        return score, 2 * turn_total, False
    if kind == KIND_SUBTRACT:
        return score, max(turn_total - amount, 0), False
    if kind == KIND_SET:
        return score, amount, False
    if kind == KIND_BUST:
        return score, 0, True
    if kind == KIND_RESET:
        return 0, 0, True
    return score + amount + (turn_total if keep else 0), 0, True


@njit(cache=True, inline="always")
def thrown_score(kind, amount, keep, score):  # pragma: no cover - numba
    """Return the score after one throw banked at once (Hog, a final roll): the step from turn total 0, banked."""
    new_score, turn_total, _ = effect_step(kind, amount, keep, score, 0)
    return new_score + turn_total


@njit(cache=True, inline="always")
def last_turn_step(kind, amount, keep, turn_total):  # pragma: no cover - numba
    """Return (points banked, turn total, turn ends) after one effect in a 2-player game's last turn.

    The step of ``effect_step``, counted in what the player banks. A bust or a reset ends the last
    turn short of the leader (banks -1), at a deficit of 0 too, where a bust would leave the scores
    level: that deficit never arises in play, and the shipped values count it so.
    """
    if kind in (KIND_BUST, KIND_RESET):
        return -1, 0, True
    return effect_step(kind, amount, keep, 0, turn_total)
