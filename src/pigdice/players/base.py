"""Strategies (robots) and their spec strings: ``hold:20``, ``rolls:3``, ``dice:6``, ``random``, ``human``.

A strategy is anything with ``name`` and ``choose(state, rng) -> Action``. Spec strings join
terms with '+', e.g. ``hold:20+dice:2`` (hold at 20, rolling two dice each time) in games where
the player picks the number of dice. More specs (``optimal``, ...) register themselves with
``register_spec`` from the modules that provide them, so this module stays below the solver.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from pigdice.engine.game import Action, GameState, Hold, Roll, legal_actions
from pigdice.errors import BadStrategyError
from pigdice.rules.variant import Decision, Variant


@runtime_checkable
class Strategy(Protocol):
    """Chooses an action for the current player of a state."""

    @property
    def name(self) -> str:
        """Return the strategy's spec string or display name."""

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Return the action to take in ``state``."""


def can_win_by_holding(state: GameState) -> bool:
    """Return True if holding now wins (or, in a final round, beats every other score)."""
    player = state.current
    total = state.scores[player] + state.turn_total
    if state.final_round is not None:
        return total > max(s for p, s in enumerate(state.scores) if p != player)
    return total >= state.variant.goal


def must_keep_rolling(state: GameState) -> bool:
    """Return True in a final round while holding would still leave the player behind."""
    return state.final_round is not None and not can_win_by_holding(state)


@dataclass(frozen=True)
class HoldAt:
    """Roll until the turn total reaches ``threshold`` or holding wins (``dice`` per roll if chosen)."""

    threshold: int
    dice: int | None = None

    @property
    def name(self) -> str:
        """Return the spec string."""
        return f"hold:{self.threshold}" + (f"+dice:{self.dice}" if self.dice else "")

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Hold at the threshold (or when holding wins), otherwise roll."""
        legal = legal_actions(state)
        if Hold() in legal and not must_keep_rolling(state):
            if state.turn_total >= self.threshold or (state.turn_total > 0 and can_win_by_holding(state)):
                return Hold()
        return _roll(state, self.dice)


@dataclass(frozen=True)
class RollTimes:
    """Roll ``times`` times each turn, then hold (earlier if holding wins)."""

    times: int
    dice: int | None = None

    @property
    def name(self) -> str:
        """Return the spec string."""
        return f"rolls:{self.times}" + (f"+dice:{self.dice}" if self.dice else "")

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Hold after the given number of rolls (or when holding wins), otherwise roll."""
        legal = legal_actions(state)
        if Hold() in legal and not must_keep_rolling(state):
            if state.rolls_this_turn >= self.times or (state.turn_total > 0 and can_win_by_holding(state)):
                return Hold()
        return _roll(state, self.dice)


@dataclass(frozen=True)
class RandomPlayer:
    """Holds with probability one half (when it may), else rolls a random legal number of dice."""

    name: str = "random"

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Pick a random legal action."""
        legal = legal_actions(state)
        rolls = [a for a in legal if isinstance(a, Roll)]
        if Hold() in legal and rng.random() < 0.5:
            return Hold()
        return rolls[int(rng.integers(len(rolls)))]


@dataclass(frozen=True)
class Human:
    """A person at the keyboard (or browser); front ends ask them instead of calling ``choose``."""

    label: str = "you"

    @property
    def name(self) -> str:
        """Return the display name."""
        return self.label

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Humans are asked by the front end, never through this method."""
        raise BadStrategyError("a human player's moves come from the front end")


def is_human(strategy: object) -> bool:
    """Return True if ``strategy`` stands for a person."""
    return isinstance(strategy, Human)


def _roll(state: GameState, dice: int | None) -> Roll:
    variant = state.variant
    if not variant.chooses_dice:
        return Roll()
    wanted = dice if dice is not None else variant.choices[0]
    return Roll(min(max(wanted, variant.choices[0]), variant.choices[-1]))


SpecParser = Callable[[str, Variant], Strategy]
_EXTRA_SPECS: dict[str, tuple[SpecParser, str]] = {}


def register_spec(word: str, parser: SpecParser, help_text: str) -> None:
    """Register another spec word (e.g. 'optimal') with its parser and a line of help."""
    _EXTRA_SPECS[word] = (parser, help_text)


SPEC_HELP = {
    "hold:N": "roll until the turn total is at least N, or holding wins",
    "rolls:N": "roll N times each turn, then hold",
    "dice:N": "throw N dice (Hog: each turn; dice-per-roll games: each roll, holding at 20)",
    "hold:N+dice:D": "hold at N, throwing D dice per roll",
    "random": "random legal moves",
    "you / human / human:NAME": "a person at the keyboard",
}


def _load_extra_specs() -> None:
    """Import the modules that register strategies built on the solver ('optimal', ...)."""
    # each registers itself: 'optimal'; 'keep-pace', 'max-score', 'python:module:function'
    import pigdice.players.optimal
    import pigdice.players.zoo  # noqa: F401


def known_specs() -> dict[str, str]:
    """Return every spec form with one line of help."""
    _load_extra_specs()
    return {**SPEC_HELP, **{word: help_text for word, (_, help_text) in _EXTRA_SPECS.items()}}


def _number(term: str, value: str, low: int = 0) -> int:
    if not value.strip().isdecimal() or int(value) < low:
        raise BadStrategyError(f"{term!r}: expected a whole number >= {low} after ':'")
    return int(value)


def parse_strategy(spec: str, variant: Variant) -> Strategy:
    """Return the strategy a spec string names, checked against ``variant``."""
    text = spec.strip()
    lowered = text.lower()
    if lowered in ("you", "human", "me"):
        return Human("you")
    if lowered.startswith("human:"):
        label = text[6:].strip()
        if not label:
            raise BadStrategyError("human:NAME needs a name")
        return Human(label)
    word = lowered.split(":", 1)[0]
    if word not in _EXTRA_SPECS:
        _load_extra_specs()
    if word in _EXTRA_SPECS:
        # the spec as typed: plug-ins (python:module:function) name case-sensitive modules and files
        return _EXTRA_SPECS[word][0](text, variant)
    if lowered == "random":
        return RandomPlayer()
    terms: dict[str, int] = {}
    for term in lowered.split("+"):
        key, _, value = term.partition(":")
        if key not in ("hold", "rolls", "dice") or not value:
            raise _unknown(spec)
        if key in terms:
            raise BadStrategyError(f"{spec!r}: {key} given twice")
        terms[key] = _number(term, value, 1)
    dice = terms.get("dice")
    if dice is not None:
        if not variant.chooses_dice:
            raise BadStrategyError(f"{spec!r}: {variant.name} does not let you choose the number of dice")
        if dice not in variant.choices:
            raise BadStrategyError(
                f"{spec!r}: {variant.name} allows {variant.choices[0]} to {variant.choices[-1]} dice, not {dice}"
            )
    if variant.decision is Decision.DICE_PER_TURN:
        if "hold" in terms or "rolls" in terms or dice is None:
            raise BadStrategyError(f"{spec!r}: {variant.name} has one throw per turn; use dice:N")
        return DiceEachTurn(dice)
    if "hold" in terms and "rolls" in terms:
        raise BadStrategyError(f"{spec!r}: give hold:N or rolls:N, not both")
    if "rolls" in terms:
        return RollTimes(terms["rolls"], dice)
    return HoldAt(terms.get("hold", 20), dice)


@dataclass(frozen=True)
class DiceEachTurn:
    """Hog: throw the same number of dice every turn."""

    dice: int

    @property
    def name(self) -> str:
        """Return the spec string."""
        return f"dice:{self.dice}"

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Throw ``dice`` dice."""
        return Roll(self.dice)


def _unknown(spec: str) -> BadStrategyError:
    forms = ", ".join(known_specs())
    return BadStrategyError(f"unknown strategy {spec!r}; use one of: {forms}")


def parse_players(specs: str | list[str], variant: Variant) -> list[Strategy]:
    """Parse a comma-separated player list ('you,hold:20,optimal') and check the player count."""
    items = [s for s in (specs.split(",") if isinstance(specs, str) else specs)]
    items = [s.strip() for s in items]
    if any(not s for s in items):
        raise BadStrategyError(f"empty player in {specs!r}; separate players with commas")
    strategies = [parse_strategy(s, variant) for s in items]
    variant.check_players(len(strategies))
    return strategies
