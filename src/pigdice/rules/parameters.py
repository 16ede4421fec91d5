"""Variant parameters, parsed strictly and cheaply before any work: every accepted form has a bound.

A parameter arrives from a keyword argument, a ``--param key=value`` on the command line or a
JSON request, so it may be any type and any size. Each parser accepts a few documented forms,
checks their length and digits before converting anything (``Fraction("1e-10000000")`` alone
takes seconds and gigabytes), and refuses everything else with a ``BadParameterError`` that
names the parameter and the forms it takes.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from pigdice.errors import BadParameterError

MAX_TEXT = 32  # the longest parameter text read (the web protocol's limit too)
MAX_DIGITS = 12  # digits before or after a decimal point, or in a fraction's numerator or denominator
MAX_EXPONENT = 12  # the largest |exponent| of a decimal in e-notation, e.g. 1e-3
SHOWN = 40  # characters of a refused value repeated in the error message

_DECIMAL = re.compile(r"-?([0-9]{0,12})(?:\.([0-9]{0,12}))?(?:[eE]([+-]?[0-9]{1,2}))?", re.ASCII)
_FRACTION = re.compile(r"-?[0-9]{1,12}/[0-9]{1,12}", re.ASCII)

PROBABILITY_FORMS = (
    f"a number, a decimal like 0.01 or 1e-3 (at most {MAX_DIGITS} digits before and after the point, "
    f"exponent -{MAX_EXPONENT}..{MAX_EXPONENT}) or a fraction like 1/100 (at most {MAX_DIGITS} digits each)"
)


def shown(value: Any) -> str:
    """Return ``repr(value)`` cut to a few dozen characters, for an error message."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**SHOWN:
        return "a very large number"  # (repr of a huge int is slow, and refused past 4300 digits)
    if isinstance(value, Fraction) and max(abs(value.numerator), value.denominator) >= 10**SHOWN:
        return "a fraction with very many digits"
    text = repr(value) if isinstance(value, (str, int, float, Fraction)) else f"a {type(value).__name__}"
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def _fraction_of_text(name: str, text: str, forms: str) -> Fraction:
    """Return the exact value of a short decimal or fraction text, or raise BadParameterError."""
    text = text.strip()
    if len(text) > MAX_TEXT:
        raise BadParameterError(f"{name} must be {forms}; got {len(text)} characters")
    if _FRACTION.fullmatch(text):
        numerator, denominator = text.split("/")
        if int(denominator) == 0:
            raise BadParameterError(f"{name} must be {forms}; {text!r} divides by zero")
        return Fraction(int(numerator), int(denominator))
    match = _DECIMAL.fullmatch(text)
    if match is None or not (match.group(1) or match.group(2)):
        raise BadParameterError(f"{name} must be {forms}, got {shown(text)}")
    if match.group(3) is not None and abs(int(match.group(3))) > MAX_EXPONENT:
        raise BadParameterError(f"{name} must be {forms}; the exponent of {text!r} is out of range")
    return Fraction(text)


def parse_probability(name: str, value: Any, *, below_one: bool = True) -> Fraction:
    """Return ``value`` as an exact probability in [0, 1) (or [0, 1]), refusing every other form.

    Accepted: an int, a finite float (read as its shortest decimal, so 0.01 is 1/100), a
    ``Fraction`` with at most ``MAX_DIGITS`` digits on each side, or a text of at most
    ``MAX_TEXT`` characters holding a decimal or a fraction ``a/b`` (see ``PROBABILITY_FORMS``).
    """
    forms = f"a probability: {PROBABILITY_FORMS}"
    if isinstance(value, bool):
        raise BadParameterError(f"{name} must be {forms}, got {value!r}")
    if isinstance(value, int):
        probability = Fraction(value) if abs(value) <= 1 else None
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise BadParameterError(f"{name} must be {forms}, got {value!r}")
        probability = _fraction_of_text(name, float.__repr__(value), forms)
    elif isinstance(value, Fraction):
        if max(abs(value.numerator), value.denominator) >= 10**MAX_DIGITS:
            raise BadParameterError(f"{name} must be {forms}; {shown(value)} has too many digits")
        probability = value
    elif isinstance(value, str):
        probability = _fraction_of_text(name, value, forms)
    else:
        raise BadParameterError(f"{name} must be {forms}, got {shown(value)}")
    high = "1)" if below_one else "1]"
    if probability is None or probability < 0 or probability > 1 or (below_one and probability == 1):
        raise BadParameterError(f"{name} must be a probability in [0, {high}, got {shown(value)}")
    return probability


def parse_count(name: str, value: Any, low: int, high: int) -> int:
    """Return ``value`` as a whole number in [low, high]; texts, floats and booleans are refused."""
    number = int(value) if isinstance(value, numbers.Integral) and not isinstance(value, bool) else None
    if number is None or not low <= number <= high:
        raise BadParameterError(f"{name} must be a whole number from {low} to {high}, got {shown(value)}")
    return number


def parse_choice(name: str, value: Any, allowed: Sequence[str]) -> str:
    """Return ``value`` if it is exactly one of the ``allowed`` texts, else raise BadParameterError."""
    if not isinstance(value, str) or value not in allowed:
        raise BadParameterError(f"unknown {name} {shown(value)}; allowed: {', '.join(allowed)}")
    return value
