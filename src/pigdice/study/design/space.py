"""The rule space the designer searches: a JSON space file listing the values of each rule, grid or sampled.

A space file::

    {"format": "pigdice-design-space", "version": 1, "mode": "grid", "seed": 0, "min_risk": "1/12",
     "fields": {"dice": [1, 2, 3], "sides": [4, 6, 8], "single_bad": ["bust", "reset", "harmless"],
                "bust_sum": [0, "commonest"], "goal": [50, 100], ...}}

Every combination of the listed values (fields left out keep their default, ``rules.designed.FIELDS``)
is a rule set; combinations the rules refuse (a bonus without a rule that pays it, a pair rule
with one die, a game where no roll puts the turn total at risk) are dropped, and rule sets that play alike are
kept once (``RuleSet.canonical``). ``"commonest"`` in ``bust_sum`` stands for the commonest total
of the dice (7 for two six-sided dice; where two middle totals are equally common, as 10 and 11
for three six-sided dice, the lower). One die has no commonest total (every face is equally
likely, so "commonest" would only rename a face: Pig with a relabelled die), so a one-die
combination with ``"commonest"`` is dropped, and a space whose only dice value is 1 may not list
it. The points come in an order shuffled by ``seed`` (a
hash of the seed and the rules: a point keeps its place when the space grows or shrinks), so
``--budget N`` takes a fair sample of the first N; ``"mode": "sample"`` with ``"samples": N``
keeps N of them. Rule sets whose chance of losing the turn total on a roll (``RuleSet.risk``) is
outside ``min_risk``..``max_risk`` (1/12..1/2 unless the file says otherwise) are left out: below,
nearly every turn rolls on to the goal; above, few rolls score.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from pigdice.cleantext import clean_text, json_has_surrogates
from pigdice.errors import BadParameterError
from pigdice.files import UnsafeFileError, read_text
from pigdice.rules.designed import FIELD_NAMES, FIELDS, RuleSet
from pigdice.rules.parameters import parse_probability, shown

SPACE_FORMAT = "pigdice-design-space"
SPACE_VERSION = 1
MAX_SPACE_FILE_BYTES = 64 * 1024
MAX_VALUES = 64  # values listed for one field
MAX_COMBINATIONS = 2_000_000  # combinations a grid may list before they are checked
MAX_SEED = 2**63 - 1
COMMONEST = "commonest"
# the chance that a roll loses the turn total, kept by default: Pig's is 1/6, Two-Dice Pig's 11/36; below
# 1/12 nearly every turn rolls on to the goal, above 1/2 few rolls score (and both take the solver long)
MIN_RISK = Fraction(1, 12)
MAX_RISK = Fraction(1, 2)
MODES = ("grid", "sample")

# the example space (``pigdice design --example-space FILE``): 3,864 distinct rule sets
EXAMPLE_FIELDS: dict[str, list[Any]] = {
    "dice": [1, 2, 3],
    "sides": [4, 6, 8],
    "single_bad": ["bust", "harmless"],  # a single 1 that resets the score: long games, up to a minute to solve
    "double_bad": ["same", "bust", "reset", "add", "set", "bank", "score"],
    "bonus": [0, 10, 25],
    "doubles": ["normal", "twice", "bust"],
    "bust_sum": [0, COMMONEST],
    "goal": [50, 100],
    "endgame": ["first-to-goal", "final-round", "equal-turns"],
}


@dataclass(frozen=True)
class Space:
    """A parsed space: the values of every field, grid or sampled, the seed of its order, the risks kept."""

    fields: dict[str, tuple[Any, ...]]
    mode: str = "grid"
    seed: int = 0
    samples: int | None = None
    min_risk: Fraction = MIN_RISK
    max_risk: Fraction = MAX_RISK

    def to_json(self) -> dict[str, Any]:
        """Return the space file's JSON content."""
        data: dict[str, Any] = {
            "format": SPACE_FORMAT,
            "version": SPACE_VERSION,
            "mode": self.mode,
            "seed": self.seed,
            "fields": {k: list(v) for k, v in self.fields.items()},
        }
        if self.samples is not None:
            data["samples"] = self.samples
        data["min_risk"] = f"{self.min_risk.numerator}/{self.min_risk.denominator}"
        data["max_risk"] = f"{self.max_risk.numerator}/{self.max_risk.denominator}"
        return data

    def points(self) -> list[RuleSet]:
        """Return the distinct rule sets of the space, in the order shuffled by ``seed`` (sampled: the first N);
        worked out once (a space of two million combinations takes a while)."""
        found: list[RuleSet] | None = self.__dict__.get("_points")
        if found is None:
            found = self._points()
            object.__setattr__(self, "_points", found)
        return list(found)

    def check_not_empty(self) -> None:
        """Raise BadParameterError if no rule set is left once the rules and the risk bounds have had their say."""
        if not self.points():
            raise BadParameterError(
                f"no rule set of the space is left: the rules refuse every combination or its chance of losing the "
                f"turn total lies outside {self.min_risk}..{self.max_risk} (min_risk..max_risk)"
            )

    def _points(self) -> list[RuleSet]:
        names = [name for name in FIELD_NAMES if name in self.fields]
        seen: dict[str, RuleSet] = {}
        for combo in itertools.product(*(self.fields[name] for name in names)):
            values = dict(zip(names, combo, strict=True))
            if values.get("bust_sum") == COMMONEST:
                total = commonest_total(values.get("dice", RuleSet.dice), values.get("sides", RuleSet.sides))
                if total is None:
                    continue  # one die: no total is commoner than another
                values["bust_sum"] = total
            try:
                point = RuleSet(**values).canonical()
            except BadParameterError:
                continue  # a combination the rules refuse
            if point.key() not in seen and self.min_risk <= point.risk() <= self.max_risk:
                seen[point.key()] = point
        shuffled = sorted(seen.values(), key=lambda point: _draw(self.seed, point))
        return shuffled[: self.samples] if self.samples is not None else shuffled


def commonest_total(dice: int, sides: int) -> int | None:
    """Return the commonest total of ``dice`` fair dice (the lower of two that tie), or None for one die."""
    if dice < 2:
        return None  # every face of one die is equally likely
    return dice * (sides + 1) // 2  # the middle of dice..dice*sides; the lower middle when the count is even


def _draw(seed: int, point: RuleSet) -> str:
    """Return the point's place in the seeded order: a hash, so each point keeps it whatever else the space holds."""
    return hashlib.sha256(f"{seed}:{point.key()}".encode()).hexdigest()


def example_space() -> Space:
    """Return the example space (3,864 rule sets: dice, sides, bad faces, doubles, sevens, bonus, goal, ending)."""
    return Space({k: tuple(v) for k, v in EXAMPLE_FIELDS.items()})


def parse_space(data: Any) -> Space:
    """Return the space of parsed JSON ``data``; anything unknown, mistyped or out of bounds is refused."""
    allowed = ("format", "version", "mode", "seed", "samples", "min_risk", "max_risk", "fields")
    if not isinstance(data, dict):
        raise BadParameterError(f"a space file is a JSON object with keys {', '.join(allowed)}")
    unknown = [key for key in data if key not in allowed]
    if unknown:
        raise BadParameterError(f"unknown key {shown(unknown[0])} in the space file; allowed: {', '.join(allowed)}")
    if data.get("format") != SPACE_FORMAT:
        raise BadParameterError(f"not a space file: 'format' must be {SPACE_FORMAT!r}")
    if data.get("version") != SPACE_VERSION or isinstance(data.get("version"), bool):
        raise BadParameterError(f"space file version {shown(data.get('version'))} is not supported; this reads 1")
    mode = data.get("mode", "grid")
    if mode not in MODES:
        raise BadParameterError(f"mode must be one of {', '.join(MODES)}; got {shown(mode)}")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise BadParameterError(f"seed must be a whole number from 0 to {MAX_SEED}; got {shown(seed)}")
    samples = data.get("samples")
    if mode == "sample":
        if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= MAX_COMBINATIONS:
            raise BadParameterError(f"a sampled space needs samples, a whole number from 1 to {MAX_COMBINATIONS}")
    elif samples is not None:
        raise BadParameterError('samples belongs to a sampled space ("mode": "sample")')
    fields = data.get("fields")
    if not isinstance(fields, dict) or not fields:
        raise BadParameterError(f"fields must be an object listing values of: {', '.join(FIELD_NAMES)}")
    by_name = {f.name: f for f in FIELDS}
    parsed: dict[str, tuple[Any, ...]] = {}
    for name, values in fields.items():
        if name not in by_name:
            raise BadParameterError(f"unknown field {shown(name)}; the fields are: {', '.join(FIELD_NAMES)}")
        if not isinstance(values, list) or not 1 <= len(values) <= MAX_VALUES:
            raise BadParameterError(f"{name}: list 1 to {MAX_VALUES} values, e.g. [{by_name[name].default!r}]")
        checked = tuple(
            value if name == "bust_sum" and value == COMMONEST else by_name[name].parse(value) for value in values
        )
        if len(set(checked)) != len(checked):
            raise BadParameterError(f"{name}: a value is listed twice")
        parsed[name] = checked
    if COMMONEST in parsed.get("bust_sum", ()) and set(parsed.get("dice", (RuleSet.dice,))) == {1}:
        raise BadParameterError(
            'bust_sum "commonest" needs two or more dice: every face of one die is equally likely, so no total '
            "is the commonest; list a total instead (e.g. [0, 6])"
        )
    size = math.prod(len(v) for v in parsed.values())
    if size > MAX_COMBINATIONS:
        raise BadParameterError(f"the space lists {size} combinations; at most {MAX_COMBINATIONS}")
    low = parse_probability("min_risk", data.get("min_risk", "1/12"), below_one=False)
    high = parse_probability("max_risk", data.get("max_risk", "1/2"), below_one=False)
    if low > high:
        raise BadParameterError(f"min_risk ({low}) is above max_risk ({high})")
    return Space(parsed, mode, seed, samples if mode == "sample" else None, low, high)


def read_space(path: Path) -> Space:
    """Read and check a space file; a missing, huge or malformed file is a BadParameterError naming it."""
    where = shown(clean_text(str(path)))
    try:
        data = json.loads(read_text(path, MAX_SPACE_FILE_BYTES, "a space file"))
    except UnsafeFileError as exc:
        raise BadParameterError(str(exc)) from None
    except OSError as exc:
        raise BadParameterError(f"cannot read space file {where}: {exc.strerror or exc}") from None
    except RecursionError:
        raise BadParameterError(f"space file {where} is not valid JSON: it is nested too deeply") from None
    except ValueError as exc:  # not UTF-8, not JSON, or a number past sys.get_int_max_str_digits (4,300 digits)
        why = "holds a number with thousands of digits" if "integer string" in str(exc) else f"is not valid JSON: {exc}"
        raise BadParameterError(f"space file {where} {why}") from None
    if json_has_surrogates(data):
        raise BadParameterError(f"space file {where} holds a character that is not text (a lone surrogate)")
    try:
        return parse_space(data)
    except BadParameterError as exc:
        raise BadParameterError(f"space file {shown(str(path))}: {exc}") from None
