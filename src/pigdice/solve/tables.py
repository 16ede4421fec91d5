"""Numeric effect tables for the solver kernels, read from the variant's exact outcome tables."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.rules.effects import EffectKind
from pigdice.rules.variant import Decision, Variant

MONOTONE_KINDS = (EffectKind.ADD, EffectKind.BUST, EffectKind.RESET_SCORE, EffectKind.BANK)


@dataclass(frozen=True)
class EffectTable:
    """All roll choices' effects as flat arrays; choice c owns rows offsets[c]:offsets[c+1]."""

    kinds: np.ndarray  # int64
    amounts: np.ndarray  # int64
    keeps: np.ndarray  # bool
    probabilities: np.ndarray  # float64
    offsets: np.ndarray  # int64, length choices + 1
    choices: tuple[int, ...]  # dice thrown by each choice

    @property
    def monotone(self) -> bool:
        """Return True if no effect can lower or pin the turn total (one backward sweep is exact)."""
        return bool(np.all(np.isin(self.kinds, [int(kind) for kind in MONOTONE_KINDS])))

    @property
    def has_reset(self) -> bool:
        """Return True if some effect resets the score (states then depend on lower score sums)."""
        return bool(np.any(self.kinds == int(EffectKind.RESET_SCORE)))


def effect_table(variant: Variant) -> EffectTable:
    """Return the merged effect distribution of every roll choice of ``variant``."""
    if variant.decision is Decision.SIMULTANEOUS:
        raise BadParameterError(
            f"{variant.name} is played by everyone at once; the solver handles turn-based variants "
            "(the 'optimal' robot plays it with Pig's policy)"
        )
    kinds: list[int] = []
    amounts: list[int] = []
    keeps: list[bool] = []
    probabilities: list[float] = []
    offsets = [0]
    for spec in variant.rolls:
        for effect, probability in spec.distribution():
            if effect.amount < 0:
                raise BadParameterError(f"{variant.name}: negative effect amounts are not supported")
            kinds.append(int(effect.kind))
            amounts.append(effect.amount)
            keeps.append(effect.keep_turn_total)
            probabilities.append(float(probability))
        offsets.append(len(kinds))
    return EffectTable(
        np.array(kinds, dtype=np.int64),
        np.array(amounts, dtype=np.int64),
        np.array(keeps, dtype=np.bool_),
        np.array(probabilities, dtype=np.float64),
        np.array(offsets, dtype=np.int64),
        variant.choices,
    )
