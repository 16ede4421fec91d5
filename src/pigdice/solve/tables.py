"""Numeric effect tables for the numba kernels, read from the variant's exact outcome tables.

The kernels take an effect's step through ``pigdice.solve.step.effect_step``, which compares
with these module-level codes, compiled in as constants; what the Python side needs to know
about the kinds (is there a doubling, how likely is a bust) is worked out here once, as fields
of the table. ``tests/solve/test_effect_kernels.py`` drives every kernel through every kind.
(Numba's cache is keyed on each kernel's own source file, so renumbering ``EffectKind`` or
changing the step needs ``NUMBA_CACHE_DIR`` cleared.)
"""

from __future__ import annotations

import functools
import itertools
from typing import Any, NamedTuple

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.rules.effects import EffectKind
from pigdice.rules.outcomes import RollSpec
from pigdice.rules.variant import Variant
from pigdice.solve.layout import sweep_layout

KIND_ADD = int(EffectKind.ADD)
KIND_DOUBLE = int(EffectKind.DOUBLE)
KIND_SUBTRACT = int(EffectKind.SUBTRACT)
KIND_SET = int(EffectKind.SET)
KIND_BUST = int(EffectKind.BUST)
KIND_RESET = int(EffectKind.RESET_SCORE)
KIND_BANK = int(EffectKind.BANK)

MONOTONE_KINDS = (EffectKind.ADD, EffectKind.BUST, EffectKind.RESET_SCORE, EffectKind.BANK)


class EffectTable(NamedTuple):
    """All roll choices' effects as flat arrays; choice c owns rows offsets[c]:offsets[c+1].

    A NamedTuple so the kernels take it whole (numba compiles field reads to plain loads).
    """

    kinds: np.ndarray  # int64 EffectKind codes
    amounts: np.ndarray  # int64
    keeps: np.ndarray  # bool: BANK also banks the turn total
    probabilities: np.ndarray  # float64
    offsets: np.ndarray  # int64, length choices + 1
    monotone: bool  # no effect can lower or pin the turn total (one backward sweep is exact)
    has_reset: bool  # some effect resets the score (states then depend on lower score sums)
    has_double: bool  # some effect doubles the turn total (a roll then jumps furthest)
    lowest_bust_chance: float  # the smallest chance of a bust among the roll choices
    # The same effects arranged for the roll/hold sweep's inner loop (``rollhold._turn_sweep``), so
    # it runs without a switch on the kind for the common effects: per choice c, the ADD rows
    # add_offsets[c]:add_offsets[c+1] (amounts ascending), the chance of losing the turn total
    # (BUST, or banking nothing) and of a reset, and the rows of every other effect (DOUBLE,
    # SUBTRACT, SET, BANK) as indices into the arrays above.
    add_amounts: np.ndarray  # int64
    add_probabilities: np.ndarray  # float64
    add_offsets: np.ndarray  # int64, length choices + 1
    bust_probabilities: np.ndarray  # float64, per choice
    reset_probabilities: np.ndarray  # float64, per choice
    other_rows: np.ndarray  # int64 rows of kinds/amounts/keeps/probabilities
    other_offsets: np.ndarray  # int64, length choices + 1
    # which sweep first-to-goal turns take and the adds arranged for it (``layout.SweepLayout``)
    sweep: int
    window_start: int
    window_end: int
    window_chance: float
    singles: np.ndarray
    single_chances: np.ndarray
    add_totals: np.ndarray
    triangle_width: int
    triangle_start: int
    triangle_chance: float
    corrections: np.ndarray
    correction_chances: np.ndarray


def effect_table(variant: Variant) -> EffectTable:
    """Return the merged effect distribution of every roll choice of ``variant`` (built once per rule set)."""
    variant.require_turns("the solver")
    return _built_table(variant.name, variant.rolls)


@functools.lru_cache(maxsize=256)
def _built_table(name: str, rolls: tuple[RollSpec, ...]) -> EffectTable:
    """Return the effect table of the roll choices ``rolls`` (kept: building it took as long as Pig's goal-50 solve)."""
    kinds: list[int] = []
    amounts: list[int] = []
    keeps: list[bool] = []
    probabilities: list[float] = []
    offsets = [0]
    for spec in rolls:
        for effect, probability in spec.distribution():
            if effect.amount < 0:
                raise BadParameterError(f"{name}: negative effect amounts are not supported")
            kinds.append(int(effect.kind))
            amounts.append(effect.amount)
            keeps.append(effect.keep_turn_total)
            probabilities.append(float(probability))
        offsets.append(len(kinds))
    kind_array = np.array(kinds, dtype=np.int64)
    chances = np.array(probabilities, dtype=np.float64)
    busts = [float(chances[a:b][kind_array[a:b] == KIND_BUST].sum()) for a, b in itertools.pairwise(offsets)]
    return EffectTable(
        kind_array,
        np.array(amounts, dtype=np.int64),
        np.array(keeps, dtype=np.bool_),
        chances,
        np.array(offsets, dtype=np.int64),
        bool(np.all(np.isin(kind_array, [int(kind) for kind in MONOTONE_KINDS]))),
        bool(np.any(kind_array == KIND_RESET)),
        bool(np.any(kind_array == KIND_DOUBLE)),
        min([1.0, *busts]),
        *_sweep_arrays(kinds, amounts, keeps, probabilities, offsets),
    )


def _sweep_arrays(
    kinds: list[int], amounts: list[int], keeps: list[bool], probabilities: list[float], offsets: list[int]
) -> tuple[Any, ...]:
    """Return the sweep's arrangement of the effects (the fields of ``EffectTable`` after ``lowest_bust_chance``)."""
    rolls: list[tuple[list[int], list[float]]] = []
    add_amounts: list[int] = []
    add_probabilities: list[float] = []
    add_offsets = [0]
    bust: list[float] = []
    reset: list[float] = []
    other_rows: list[int] = []
    other_offsets = [0]
    for choice in range(len(offsets) - 1):
        rows = range(offsets[choice], offsets[choice + 1])
        adds = sorted((amounts[e], probabilities[e]) for e in rows if kinds[e] == KIND_ADD)
        add_amounts += [amount for amount, _ in adds]
        add_probabilities += [probability for _, probability in adds]
        add_offsets.append(len(add_amounts))
        rolls.append(([amount for amount, _ in adds], [probability for _, probability in adds]))
        banks_nothing = [e for e in rows if kinds[e] == KIND_BANK and not amounts[e] and not keeps[e]]
        loses = [e for e in rows if kinds[e] == KIND_BUST] + banks_nothing
        bust.append(float(sum(probabilities[e] for e in loses)))
        reset.append(float(sum(probabilities[e] for e in rows if kinds[e] == KIND_RESET)))
        other_rows += [e for e in rows if kinds[e] not in (KIND_ADD, KIND_BUST, KIND_RESET) and e not in loses]
        other_offsets.append(len(other_rows))
    return (
        np.array(add_amounts, dtype=np.int64),
        np.array(add_probabilities, dtype=np.float64),
        np.array(add_offsets, dtype=np.int64),
        np.array(bust, dtype=np.float64),
        np.array(reset, dtype=np.float64),
        np.array(other_rows, dtype=np.int64),
        np.array(other_offsets, dtype=np.int64),
        *sweep_layout(rolls, not other_rows and all(amount >= 1 for amount in add_amounts)),
    )


BAND_WIDTH = 6  # the banded elimination (``two/banded.py``) keeps each total's equation over this many below
BANDED_KINDS = (KIND_ADD, KIND_SUBTRACT, KIND_DOUBLE, KIND_SET, KIND_BUST, KIND_RESET)


def is_banded(t: EffectTable) -> bool:
    """Return True if ``t``'s turns take the banded elimination when first to the goal (``two/banded.py``).

    One roll choice whose turn total can fall (not ``monotone``), by subtracts of at most
    ``BAND_WIDTH`` or a set to one total, besides adds (at least 1), doubles, busts and resets: Pig Dice,
    Knizia's Big Pig. Plain Python, so the cost model can ask without numba.
    """
    if t.offsets.shape[0] != 2 or t.monotone or not np.all(np.isin(t.kinds, BANDED_KINDS)):
        return False
    subtracts = t.amounts[t.kinds == KIND_SUBTRACT]
    pinned = np.unique(t.amounts[t.kinds == KIND_SET])
    falls = bool(np.all((subtracts >= 1) & (subtracts <= BAND_WIDTH))) and pinned.shape[0] <= 1
    return falls and bool(np.all(t.add_amounts >= 1))


class Band(NamedTuple):
    """One roll's effects as the elimination reads them: adds, subtracts, the doubling, the set and the losses."""

    add_amounts: np.ndarray  # int64
    add_chances: np.ndarray  # float64
    subtract_amounts: np.ndarray  # int64, each 1..width
    subtract_chances: np.ndarray  # float64
    double_chance: float
    lose: float  # losing the turn total (a bust)
    reset: float  # losing the whole score
    width: int  # the largest subtract: how far below a total its equation reaches
    reach: int  # the largest add
    pinned: int  # the total a roll sets the turn total to (Knizia's 25), -1 none
    set_chance: float


def band_of(t: EffectTable) -> Band:
    """Return the one roll of ``t`` arranged for the banded elimination (``is_banded`` must hold)."""
    subtract = t.kinds == KIND_SUBTRACT
    amounts = t.amounts[subtract].astype(np.int64)
    return Band(
        t.add_amounts.astype(np.int64),
        t.add_probabilities.astype(np.float64),
        amounts,
        t.probabilities[subtract].astype(np.float64),
        float(t.probabilities[t.kinds == KIND_DOUBLE].sum()),
        float(t.bust_probabilities[0]),
        float(t.reset_probabilities[0]),
        int(amounts.max()) if amounts.shape[0] else 0,
        int(t.add_amounts.max()) if t.add_amounts.shape[0] else 0,
        int(t.amounts[t.kinds == KIND_SET][0]) if np.any(t.kinds == KIND_SET) else -1,
        float(t.probabilities[t.kinds == KIND_SET].sum()),
    )
