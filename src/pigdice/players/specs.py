"""Spec strings: one explicit registry from a player's name ('hold:20', 'optimal', ...) to a strategy.

Spec strings join terms with '+', e.g. ``hold:20+dice:2`` (hold at 20, rolling two dice each
time) in games where the player picks the number of dice. Every spec word is listed in
``SPEC_WORDS`` below with its parser; the perfect player's module (which loads the solver) is
imported only when 'optimal' is asked for.
"""

from __future__ import annotations

from collections.abc import Callable

from pigdice.errors import BadStrategyError
from pigdice.players import plugins, zoo
from pigdice.players.base import Human, Strategy
from pigdice.players.fixed import DiceEachTurn, HoldAt, RandomPlayer, RollTimes
from pigdice.rules.variant import Decision, Variant

SpecParser = Callable[[str, Variant], Strategy]


def _optimal(spec: str, variant: Variant) -> Strategy:
    from pigdice.players.optimal import parse_optimal  # the solver (numba) loads only when needed

    return parse_optimal(spec, variant)


def _level(spec: str, variant: Variant) -> Strategy:
    from pigdice.players.levels import parse_level  # reads the perfect player's values: loaded only when needed

    return parse_level(spec, variant)


# the spec words with arguments or a module of their own: word -> (parser, the form, one line of help)
SPEC_WORDS: dict[str, tuple[SpecParser, str, str]] = {
    "optimal": (_optimal, "optimal", "the perfect player (solves the variant once, then cached)"),
    "level": (
        _level,
        "level:N",
        "a robot of strength N, from 1 (a beginner) to 8 (the perfect player)",
    ),
    "keep-pace": (
        zoo.parse_keep_pace,
        "keep-pace",
        "Neller & Presser's keep pace and end race (hold at 21 + (opp - you)/8)",
    ),
    "max-score": (
        zoo.parse_max_score,
        "max-score",
        "roll while one more roll gains points on average (Pig: hold at 20)",
    ),
    "python": (
        plugins.parse_python,
        "python:module:function",
        "your function f(score, opponent, turn_total, variant)",
    ),
    "py": (plugins.parse_python, "py:file.py:function", "the same, from a file"),
}

SPEC_HELP = {
    "hold:N": "roll until the turn total is at least N, or holding wins",
    "rolls:N": "roll N times each turn, then hold",
    "dice:N": "throw N dice (Hog: each turn; where you choose the dice for every roll: each roll, holding at 20)",
    "hold:N+dice:D": "hold at N, throwing D dice per roll",
    "random": "random legal moves",
    "you / human / human:NAME": "a person at the keyboard",
    **{form: help_text for _, form, help_text in SPEC_WORDS.values()},
}


def known_specs() -> dict[str, str]:
    """Return every spec form with one line of help."""
    return dict(SPEC_HELP)


MAX_SPEC_NUMBER = 100_000  # no hold point, roll count or dice count in any game is larger


def _number(term: str, value: str, low: int = 0) -> int:
    """Return the whole number after ':' (ASCII digits only, ``low`` to ``MAX_SPEC_NUMBER``)."""
    digits = value.strip()
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 7) or not low <= int(digits) <= MAX_SPEC_NUMBER:
        raise BadStrategyError(f"{term!r}: expected a whole number from {low} to {MAX_SPEC_NUMBER} after ':'")
    return int(digits)


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
    if word in SPEC_WORDS:
        # the spec as typed: plug-ins (python:module:function) name case-sensitive modules and files
        return SPEC_WORDS[word][0](text, variant)
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
