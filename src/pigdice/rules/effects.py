"""What a roll does to the roller's score and turn total."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any


class EffectKind(IntEnum):
    """The kinds of effect a roll can have (the integer codes are used by the solver kernels)."""

    ADD = 0  # turn total += amount; the turn goes on
    DOUBLE = 1  # turn total *= 2; the turn goes on (Pig Dice head + tail)
    SUBTRACT = 2  # turn total = max(0, turn total - amount); the turn goes on (Pig Dice tail)
    SET = 3  # turn total = amount; the turn goes on (Knizia's 1-1)
    BUST = 4  # turn total lost; the turn ends
    RESET_SCORE = 5  # turn total and whole score lost; the turn ends
    BANK = 6  # score += amount (+ turn total if kept); the turn ends (Frey's 1-1, 002's Big Pig 1-1)


@dataclass(frozen=True, order=True)
class Effect:
    """One effect: a kind, an amount, and for BANK whether the turn total is banked too."""

    kind: EffectKind
    amount: int = 0
    keep_turn_total: bool = True

    @property
    def ends_turn(self) -> bool:
        """Return True if this effect ends the roller's turn."""
        return self.kind in (EffectKind.BUST, EffectKind.RESET_SCORE, EffectKind.BANK)

    def resolve(self, score: int, turn_total: int) -> tuple[int, int, bool]:
        """Return (new score, new turn total, turn ends) after this effect."""
        kind = self.kind
        if kind is EffectKind.ADD:
            return score, turn_total + self.amount, False
        if kind is EffectKind.DOUBLE:
            return score, 2 * turn_total, False
        if kind is EffectKind.SUBTRACT:
            return score, max(0, turn_total - self.amount), False
        if kind is EffectKind.SET:
            return score, self.amount, False
        if kind is EffectKind.BUST:
            return score, 0, True
        if kind is EffectKind.RESET_SCORE:
            return 0, 0, True
        banked = turn_total if self.keep_turn_total else 0
        return score + banked + self.amount, 0, True

    def describe(self) -> str:
        """Return a short human description, e.g. '+8' or 'lose the turn total'."""
        kind = self.kind
        if kind is EffectKind.ADD:
            return f"+{self.amount}"
        if kind is EffectKind.DOUBLE:
            return "double the turn total"
        if kind is EffectKind.SUBTRACT:
            return f"-{self.amount} (not below 0)"
        if kind is EffectKind.SET:
            return f"turn total becomes {self.amount}"
        if kind is EffectKind.BUST:
            return "lose the turn total, turn ends"
        if kind is EffectKind.RESET_SCORE:
            return "lose the whole score, turn ends"
        if self.keep_turn_total:
            return f"bank the turn total +{self.amount}, turn ends" if self.amount else "bank the turn total, turn ends"
        return f"score exactly {self.amount} (turn total lost), turn ends"

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready description of this effect."""
        data: dict[str, Any] = {"kind": self.kind.name.lower().replace("_", "-"), "amount": self.amount}
        if self.kind is EffectKind.BANK:
            data["keep_turn_total"] = self.keep_turn_total
        data["text"] = self.describe()
        return data


def add(amount: int) -> Effect:
    """Add ``amount`` to the turn total."""
    return Effect(EffectKind.ADD, amount)


def double() -> Effect:
    """Double the turn total."""
    return Effect(EffectKind.DOUBLE)


def subtract(amount: int) -> Effect:
    """Subtract ``amount`` from the turn total, never below zero."""
    return Effect(EffectKind.SUBTRACT, amount)


def set_total(amount: int) -> Effect:
    """Set the turn total to ``amount``."""
    return Effect(EffectKind.SET, amount)


def bust() -> Effect:
    """Lose the turn total and end the turn."""
    return Effect(EffectKind.BUST)


def reset_score() -> Effect:
    """Lose the turn total and the whole score, and end the turn."""
    return Effect(EffectKind.RESET_SCORE)


def bank(bonus: int, keep_turn_total: bool = True) -> Effect:
    """End the turn scoring ``bonus`` plus (if kept) the turn total."""
    return Effect(EffectKind.BANK, bonus, keep_turn_total)
