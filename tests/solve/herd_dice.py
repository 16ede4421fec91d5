"""Shared by the Swine Herd solver tests: a loaded one-die roll and Swine Herd on another die."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from pigdice.rules import find_variant
from pigdice.rules.dice import Die
from pigdice.rules.effects import Effect
from pigdice.rules.outcomes import ByFaces, RollSpec
from pigdice.rules.variant import Variant

EXACT = 1e-9  # the Swine Herd solvers' values against the references in their tests
SWINE = find_variant("swine-herd")


def loaded(*faces: tuple[Effect, str]) -> RollSpec:
    """Return a one-die roll with the given effects and probabilities."""
    labels = tuple(f"f{n}" for n in range(len(faces)))
    die = Die("loaded", tuple(range(1, len(faces) + 1)), labels, tuple(Fraction(p) for _, p in faces))
    effects = {n + 1: effect for n, (effect, _) in enumerate(faces)}
    return RollSpec((die,), ByFaces(lambda thrown: effects[thrown[0]]))


def herd(goal: int, roll: RollSpec | None = None, at_goal: str = "sit") -> Variant:
    """Return Swine Herd at ``goal``, optionally on another shared die; ``at_goal`` is the house rule's setting
    ('sit', the default; 'roll-on': no house rule, the 2-player draw rule scores endless play)."""
    variant = find_variant("swine-herd", goal=goal, at_goal=at_goal)
    return variant if roll is None else dataclasses.replace(variant, rolls=(roll,))


def sit_gain(stage, k: int) -> float:
    """Return what player k of an all-standing stage gains by sitting rather than staying, the others playing
    their sit chances (``SwineHerdNPolicy.stage``): 0 for a player who mixes at an equilibrium."""
    others = [m for m in range(3) if m != k]
    gain = 0.0
    for prof in range(8):
        if prof >> k & 1:
            continue
        w = 1.0
        for m in others:
            w *= stage.sit[m] if prof >> m & 1 else 1 - stage.sit[m]
        gain += w * (stage.payoffs[prof | 1 << k][k] - stage.payoffs[prof][k])
    return gain
