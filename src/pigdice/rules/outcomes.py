"""Roll specifications and their exact outcome tables.

A ``RollSpec`` names the dice thrown together and a *scorer* that maps the faces to an
``Effect``. The scorer is a fold (``start``/``step``/``effect``), so the exact table is built by
convolving one die at a time and merging equal partial states: two dice give all 36 ordered
face pairs, while Hog's 26 dice collapse to (any 1?, sum) and stay small. The game samples
faces and folds them with the *same* scorer, so the game and the solver share one rule.
"""

from __future__ import annotations

import bisect
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from pigdice.rules.dice import Die
from pigdice.rules.effects import Effect, add, bust, reset_score

if TYPE_CHECKING:  # numpy loads only when dice are thrown: the command line starts without it
    import numpy as np


class Scorer(Protocol):
    """Folds the faces of one throw into an effect."""

    def start(self) -> Hashable:
        """Return the partial state before any die is read."""

    def step(self, acc: Hashable, face: int) -> Hashable:
        """Return the partial state after reading one more die face."""

    def effect(self, acc: Hashable) -> Effect:
        """Return the effect of a finished throw."""

    def label(self, acc: Hashable, dice: tuple[Die, ...]) -> str:
        """Return a short text for a finished throw."""

    def faces(self, acc: Hashable) -> tuple[int, ...] | None:
        """Return the faces of a finished throw if the partial state keeps them, else None."""


@dataclass(frozen=True)
class ByFaces:
    """A scorer that keeps every face (in die order) and classifies the whole throw."""

    classify: Callable[[tuple[int, ...]], Effect]

    def start(self) -> tuple[int, ...]:
        """Return the empty throw."""
        return ()

    def step(self, acc: Any, face: int) -> tuple[int, ...]:
        """Append a face."""
        return (*acc, face)

    def effect(self, acc: Any) -> Effect:
        """Classify the whole throw."""
        return self.classify(acc)

    def label(self, acc: Any, dice: tuple[Die, ...]) -> str:
        """Return the faces joined with dashes, e.g. '3-4' or 'H-T'."""
        return "-".join(die.label(face) for die, face in zip(dice, acc, strict=True))

    def faces(self, acc: Any) -> tuple[int, ...]:
        """Return the faces."""
        return tuple(acc)


@dataclass(frozen=True)
class SumUnlessBad:
    """Sum of the dice, unless a bad face shows: one bad face busts, ``reset_at`` or more reset.

    Used where the number of dice is large (Hog, Hog with rerolls) and the order of the faces
    does not matter, so the table stays small: the partial state is (bad faces seen, sum).
    """

    bad_face: int
    reset_at: int = 0  # 0: never resets the score

    def start(self) -> tuple[int, int]:
        """Return (bad faces seen, sum of good faces) before any die."""
        return (0, 0)

    def step(self, acc: Any, face: int) -> tuple[int, int]:
        """Count a bad face (capped where it stops mattering) or add a good one."""
        bad, total = acc
        if face == self.bad_face:
            cap = max(self.reset_at, 1)
            return (min(bad + 1, cap), 0)
        if bad:
            return acc
        return (0, total + face)

    def effect(self, acc: Any) -> Effect:
        """Return bust, reset or add(sum)."""
        bad, total = acc
        if self.reset_at and bad >= self.reset_at:
            return reset_score()
        if bad:
            return bust()
        return add(total)

    def label(self, acc: Any, dice: tuple[Die, ...]) -> str:
        """Return e.g. 'no 1, total 14' or 'a 1'."""
        bad, total = acc
        if self.reset_at and bad >= self.reset_at:
            return f"{self.reset_at} or more {self.bad_face}s"
        if bad:
            return f"a {self.bad_face}"
        return f"no {self.bad_face}, total {total}"

    def faces(self, acc: Any) -> None:
        """Faces are not kept."""
        return None


@dataclass(frozen=True)
class Mishap:
    """An event outside the dice (Pass the Pigs' oinker) with its own probability and effect."""

    probability: Fraction
    label: str
    effect: Effect


@dataclass(frozen=True)
class Outcome:
    """One row of an exact outcome table."""

    faces: tuple[int, ...] | None
    label: str
    probability: Fraction
    effect: Effect

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready row: faces, label, probability as 'p/q', effect."""
        return {
            "faces": list(self.faces) if self.faces is not None else None,
            "label": self.label,
            "probability": f"{self.probability.numerator}/{self.probability.denominator}",
            "effect": self.effect.to_json(),
        }


@dataclass(frozen=True)
class Throw:
    """What one sampled throw showed: its faces (None for a mishap), label and effect."""

    faces: tuple[int, ...] | None
    labels: tuple[str, ...]
    text: str
    effect: Effect


@dataclass(frozen=True)
class RollSpec:
    """The dice thrown together on one roll and how their faces score."""

    dice: tuple[Die, ...]
    scorer: Scorer
    mishap: Mishap | None = None

    def __hash__(self) -> int:
        """Hash the dice as runs of equal dice (Hog's 100 equal dice hash as one)."""
        return hash((runs(self.dice), self.scorer, self.mishap))

    @property
    def count(self) -> int:
        """Return the number of dice thrown."""
        return len(self.dice)

    def outcomes(self) -> tuple[Outcome, ...]:
        """Return the exact outcome table (probabilities are Fractions summing to 1)."""
        return _outcomes(self)

    def distribution(self) -> tuple[tuple[Effect, Fraction], ...]:
        """Return the outcome table merged by effect, sorted by effect."""
        return _distribution(self)

    def throw(self, rng: Any) -> Throw:
        """Sample one throw with ``rng`` (a numpy Generator or a ``ScriptedDice``)."""
        if isinstance(rng, ScriptedDice):
            return rng.next_throw(self)
        if self.mishap is not None and self.mishap.probability > 0:
            if rng.random() < float(self.mishap.probability):
                return Throw(None, (), self.mishap.label, self.mishap.effect)
        faces = tuple(_sample_face(die, rng) for die in self.dice)
        return self.throw_faces(faces)

    def throw_faces(self, faces: tuple[int, ...] | None) -> Throw:
        """Score given faces (None means the mishap happened)."""
        if faces is None:
            if self.mishap is None or self.mishap.probability == 0:
                raise ValueError("this roll has no mishap to script (its probability is 0)")
            return Throw(None, (), self.mishap.label, self.mishap.effect)
        faces = tuple(faces)
        known = self.__dict__.get("_scored")
        if known is not None and faces in known:
            return known[faces]  # a throw's score never changes: scored once per spec (few faces only)
        if len(faces) != len(self.dice):
            raise ValueError(f"scripted throw {faces} has {len(faces)} faces, expected {len(self.dice)}")
        acc = self.scorer.start()
        for die, face in zip(self.dice, faces, strict=True):
            if face not in die.faces:
                raise ValueError(f"face {face} is not on die {die.name!r} (faces {die.faces})")
            acc = self.scorer.step(acc, face)
        labels = tuple(die.label(face) for die, face in zip(self.dice, faces, strict=True))
        throw = Throw(tuple(faces), labels, "-".join(labels), self.scorer.effect(acc))
        if len(self.dice) <= SCORED_DICE:
            if known is None:
                known = {}
                object.__setattr__(self, "_scored", known)  # a cache beside the fields: eq and hash ignore it
            known[throw.faces] = throw
        return throw


class ScriptedDice:
    """A stand-in for a Generator that returns scripted throws, for tests and replays by faces.

    Each scripted throw is the faces shown, None for the mishap, or a whole ``Throw`` (what an
    explicit chance node picked, e.g. one effect of ``RollSpec.distribution``), used as it is.
    """

    def __init__(self, throws: list[tuple[int, ...] | None] | list[tuple[int, ...] | Throw | None]) -> None:
        self._throws = list(throws)
        self._index = 0

    def next_faces(self, spec: RollSpec) -> tuple[int, ...] | Throw | None:
        """Return the next scripted throw."""
        if self._index >= len(self._throws):
            raise ValueError("the scripted dice ran out of throws")
        faces = self._throws[self._index]
        self._index += 1
        return faces

    def next_throw(self, spec: RollSpec) -> Throw:
        """Return the next scripted throw of ``spec``, scored."""
        scripted = self.next_faces(spec)
        return scripted if isinstance(scripted, Throw) else spec.throw_faces(scripted)

    @property
    def remaining(self) -> int:
        """Return how many scripted throws are left."""
        return len(self._throws) - self._index


def _sample_face(die: Die, rng: np.random.Generator) -> int:
    index = bisect.bisect_right(die.cumulative, rng.random())  # numpy's searchsorted(side="right"), without a call
    return die.faces[min(index, len(die.faces) - 1)]


SCORED_DICE = 3  # throws of up to this many dice (216 faces) are scored once and kept on their roll spec

# Roll specs whose tables are kept in memory (least recently used dropped first): Hog at its
# most dice has MAX_HOG_DICE of them, every other registered variant one to three.
OUTCOME_CACHE_SIZE = 1024
# Partial folds kept for reuse by longer throws (Hog's n dice extend its n - 1 dice).
FOLD_CACHE_SIZE = 1024

_Fold = tuple[dict[Hashable, int], int]  # partial state -> integer weight, and their common denominator
_FOLDS: OrderedDict[tuple[Scorer, tuple[tuple[Die, int], ...]], _Fold] = OrderedDict()
_FOLDS_LOCK = threading.Lock()


def _integer_weights(die: Die) -> tuple[tuple[int, ...], int]:
    """Return the die's probabilities as integers over one common denominator, and that denominator."""
    denominator = math.lcm(*(p.denominator for p in die.probabilities))
    return tuple(p.numerator * (denominator // p.denominator) for p in die.probabilities), denominator


def runs(dice: tuple[Die, ...]) -> tuple[tuple[Die, int], ...]:
    """Return ``dice`` as runs of equal dice, e.g. ((d6, 26),): a short key for many equal dice."""
    out: list[tuple[Die, int]] = []
    for die in dice:
        if out and (out[-1][0] is die or out[-1][0] == die):
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((die, 1))
    return tuple(out)


def _prefix(key: tuple[tuple[Die, int], ...], count: int) -> tuple[tuple[Die, int], ...]:
    """Return the runs of the first ``count`` dice of the runs ``key``."""
    out: list[tuple[Die, int]] = []
    for die, n in key:
        if count <= 0:
            break
        out.append((die, min(n, count)))
        count -= n
    return tuple(out)


def _fold(scorer: Scorer, dice: tuple[Die, ...]) -> _Fold:
    """Return the partial states of folding ``dice`` one at a time, with exact integer weights.

    Integer weights over a common denominator keep the convolution in plain integer arithmetic
    (Fractions normalise at every step), and every prefix is cached under its runs of equal
    dice, so the table of n dice extends the table of n - 1 dice instead of starting again:
    all of Hog's tables together cost about as much as its largest one.
    """
    key = runs(dice)
    start = len(dice)
    with _FOLDS_LOCK:
        while start > 0 and (scorer, _prefix(key, start)) not in _FOLDS:
            start -= 1
        if start:
            _FOLDS.move_to_end((scorer, _prefix(key, start)))
            partial, denominator = _FOLDS[(scorer, _prefix(key, start))]
        else:
            partial, denominator = {scorer.start(): 1}, 1
    for count in range(start, len(dice)):
        die = dice[count]
        weights, scale = _integer_weights(die)
        grown: dict[Hashable, int] = {}
        for acc, weight in partial.items():
            for face, w in zip(die.faces, weights, strict=True):
                if w:
                    state = scorer.step(acc, face)
                    grown[state] = grown.get(state, 0) + weight * w
        partial, denominator = grown, denominator * scale
        with _FOLDS_LOCK:
            _FOLDS[(scorer, _prefix(key, count + 1))] = (partial, denominator)
            while len(_FOLDS) > FOLD_CACHE_SIZE:
                _FOLDS.popitem(last=False)
    return partial, denominator


@lru_cache(maxsize=OUTCOME_CACHE_SIZE)
def _outcomes(spec: RollSpec) -> tuple[Outcome, ...]:
    partial, denominator = _fold(spec.scorer, spec.dice)
    scale: Fraction | None = None  # the dice's share when a mishap may happen instead
    rows: list[Outcome] = []
    if spec.mishap is not None and spec.mishap.probability > 0:
        scale = 1 - spec.mishap.probability
        rows.append(Outcome(None, spec.mishap.label, spec.mishap.probability, spec.mishap.effect))
    for acc, weight in partial.items():
        probability = Fraction(weight, denominator)
        rows.append(
            Outcome(
                spec.scorer.faces(acc),
                spec.scorer.label(acc, spec.dice),
                probability if scale is None else probability * scale,
                spec.scorer.effect(acc),
            )
        )
    return tuple(rows)


@lru_cache(maxsize=OUTCOME_CACHE_SIZE)
def _distribution(spec: RollSpec) -> tuple[tuple[Effect, Fraction], ...]:
    merged: dict[Effect, Fraction] = {}
    for row in _outcomes(spec):
        known = merged.get(row.effect)
        merged[row.effect] = row.probability if known is None else known + row.probability
    return tuple(sorted(merged.items()))
