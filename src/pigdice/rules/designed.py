"""Designed games: a rule set of the jeopardy-dice rule space, its rule file, and the ``Variant`` it plays as.

A ``RuleSet`` is a point of the rule space the game designer searches (``pigdice design``): how
many dice with how many sides, what the bad face does alone and in pairs, what doubles do, which
sum busts, the bonus, the goal and the ending. ``to_variant()`` writes it as an ordinary
``Variant`` (one roll/hold choice whose exact outcome table comes from ``DesignedScoring``), so
every command that takes a variant name takes ``designed:FILE`` too (``registry.find_variant``).

The rule file is JSON, refused whole if anything in it is unknown, of the wrong type or out of
bounds (``RULE_FILE_FORMAT``, version ``RULE_FILE_VERSION``)::

    {"format": "pigdice-rules", "version": 1, "title": "Snake Eyes Bonus",
     "rules": {"dice": 2, "sides": 6, "single_bad": "bust", "double_bad": "add", "bonus": 25,
               "doubles": "twice", "goal": 100, "endgame": "equal-turns"}}

Fields left out take their defaults (``FIELDS``); ``figures`` may carry the designer's measures.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
from dataclasses import asdict, dataclass, replace
from fractions import Fraction
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from pigdice.cleantext import clean_text, json_has_surrogates
from pigdice.errors import BadParameterError
from pigdice.files import UnsafeFileError, read_text, write_text
from pigdice.rules.dice import Die, standard_die
from pigdice.rules.effects import Effect, EffectKind, add, bank, bust, reset_score, set_total
from pigdice.rules.outcomes import ByFaces, RollSpec
from pigdice.rules.parameters import MAX_TEXT, shown
from pigdice.rules.variant import Decision, Endgame, TieRule, Variant

RULE_FILE_FORMAT = "pigdice-rules"
RULE_FILE_VERSION = 1
MAX_RULE_FILE_BYTES = 64 * 1024  # a rule file is a few hundred bytes; anything much larger is refused unread
MAX_TITLE = 80  # characters of a designed game's title
MAX_FIGURES = 40  # measures a rule file may carry along
PREFIX = "designed:"

# the bounds of every whole-number field; dice ** sides outcome rows are listed exactly (12 ** 4 = 20736)
DICE = (1, 4)
SIDES = (2, 12)
BONUS = (0, 100)
GOAL = (1, 1000)
SINGLE_BAD = ("bust", "reset", "harmless")
DOUBLE_BAD = ("same", "bust", "reset", "add", "set", "bank", "score")
DOUBLES = ("normal", "twice", "bust")
USES_BONUS = ("add", "set", "bank", "score")
ENDGAMES = tuple(member.value for member in Endgame)
TIES = tuple(member.value for member in TieRule)


@dataclass(frozen=True)
class Field:
    """One field of a rule set: its name, the values it takes (a range or a list), its meaning."""

    name: str
    default: Any
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()
    help: str = ""

    def parse(self, value: Any) -> Any:
        """Return ``value`` if it is a legal value of this field, else raise BadParameterError."""
        if self.choices:
            if not isinstance(value, str) or len(value) > MAX_TEXT or value not in self.choices:
                raise BadParameterError(f"{self.name} must be one of {', '.join(self.choices)}; got {shown(value)}")
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadParameterError(
                f"{self.name} must be a whole number from {self.low} to {self.high}; got {shown(value)}"
            )
        if not (self.low is not None and self.high is not None and self.low <= value <= self.high):
            raise BadParameterError(
                f"{self.name} must be a whole number from {self.low} to {self.high}; got {shown(value)}"
            )
        return value

    def bounds(self) -> str:
        """Return the values this field takes, in words."""
        return " | ".join(self.choices) if self.choices else f"{self.low}..{self.high}"


FIELDS: tuple[Field, ...] = (
    Field("dice", 2, *DICE, help="dice thrown together on every roll"),
    Field("sides", 6, *SIDES, help="sides of each die (faces 1..sides)"),
    Field("bad_face", 1, 1, SIDES[1], help="the face that is bad (at most sides)"),
    Field("single_bad", "bust", choices=SINGLE_BAD, help="one bad face: lose the turn total, the score, or nothing"),
    Field("double_bad", "same", choices=DOUBLE_BAD, help="two or more bad faces (2+ dice)"),
    Field("bonus", 0, *BONUS, help="the amount of double_bad add/set/bank/score"),
    Field("doubles", "normal", choices=DOUBLES, help="all dice alike (2+ dice): count as usual, twice, or bust"),
    Field("bust_sum", 0, 0, DICE[1] * SIDES[1], help="a total that loses the turn total (0: none)"),
    Field("goal", 100, *GOAL, help="points to win"),
    Field("endgame", "first-to-goal", choices=ENDGAMES, help="how reaching the goal ends the game"),
    Field("ties", "shared", choices=TIES, help="who wins equal best scores (final round, equal turns)"),
)
FIELD_NAMES = tuple(f.name for f in FIELDS)
_BY_NAME = {f.name: f for f in FIELDS}


@dataclass(frozen=True)
class DesignedScoring:
    """How a designed game scores one throw: bad faces first, then the busting sum, doubles, the sum.

    Order of the rules: two or more bad faces (``double_bad``, unless "same"), then one bad face
    (``single_bad``, unless "harmless"), then a total of ``bust_sum``, then doubles (all dice
    alike), and otherwise the sum of the dice joins the turn total.
    """

    bad_face: int
    single_bad: str
    double_bad: str
    bonus: int
    doubles: str
    bust_sum: int

    def __call__(self, faces: tuple[int, ...]) -> Effect:
        """Return the effect of a throw showing ``faces``."""
        bad = faces.count(self.bad_face)
        total = sum(faces)
        if bad >= 2 and self.double_bad != "same":
            return _double_bad_effect(self.double_bad, self.bonus)
        if bad >= 1 and self.single_bad != "harmless":
            return bust() if self.single_bad == "bust" else reset_score()
        if self.bust_sum and total == self.bust_sum:
            return bust()
        if len(faces) >= 2 and len(set(faces)) == 1 and self.doubles != "normal":
            return bust() if self.doubles == "bust" else add(2 * total)
        return add(total)


@lru_cache(maxsize=4096)
def _risk(scorer: DesignedScoring, dice: int, sides: int) -> Fraction:
    """Return the chance that a throw of ``dice`` fair dice loses the turn total under ``scorer``."""
    losing = 0
    for faces in itertools.product(range(1, sides + 1), repeat=dice):
        effect = scorer(faces)
        kind = effect.kind
        if kind in (EffectKind.BUST, EffectKind.RESET_SCORE) or (
            kind is EffectKind.BANK and not effect.keep_turn_total
        ):
            losing += 1
    return Fraction(losing, sides**dice)


def _double_bad_effect(kind: str, bonus: int) -> Effect:
    return {
        "bust": bust(),
        "reset": reset_score(),
        "add": add(bonus),
        "set": set_total(bonus),
        "bank": bank(bonus),
        "score": bank(bonus, keep_turn_total=False),
    }[kind]


@cache
def fair_die(sides: int) -> Die:
    """Return a fair die with faces 1..sides (the standard d6 for six sides)."""
    if sides == 6:
        return standard_die()
    return Die(
        f"d{sides}",
        tuple(range(1, sides + 1)),
        tuple(str(f) for f in range(1, sides + 1)),
        (Fraction(1, sides),) * sides,
    )


@dataclass(frozen=True)
class RuleSet:
    """One jeopardy dice game of the rule space (see ``FIELDS`` for each field's bounds)."""

    dice: int = 2
    sides: int = 6
    bad_face: int = 1
    single_bad: str = "bust"
    double_bad: str = "same"
    bonus: int = 0
    doubles: str = "normal"
    bust_sum: int = 0
    goal: int = 100
    endgame: str = "first-to-goal"
    ties: str = "shared"

    def __post_init__(self) -> None:
        for f in FIELDS:
            f.parse(getattr(self, f.name))
        if self.bad_face > self.sides:
            raise BadParameterError(f"bad_face must be a face of the die (1 to {self.sides}); got {self.bad_face}")
        if self.bust_sum and not self.dice <= self.bust_sum <= self.dice * self.sides:
            raise BadParameterError(
                f"bust_sum must be 0 (none) or a total {self.dice} dice can show ({self.dice} to "
                f"{self.dice * self.sides}); got {self.bust_sum}"
            )
        if self.dice == 1 and (self.double_bad != "same" or self.doubles != "normal"):
            raise BadParameterError("with one die there are no pairs: double_bad must be 'same' and doubles 'normal'")
        if self.bonus and self.double_bad not in USES_BONUS:
            raise BadParameterError(
                f"bonus is paid by double_bad {', '.join(USES_BONUS)}; with double_bad {self.double_bad!r} it must be 0"
            )
        if self.double_bad == "add" and self.bonus == 0:
            raise BadParameterError("double_bad 'add' with a bonus of 0 changes nothing: give a bonus from 1 to 100")
        if not self.risks_turn_total():
            raise BadParameterError(
                "nothing in these rules ever puts the turn total in jeopardy: the first player would roll to the "
                "goal at once; make a bad face, a sum or doubles lose the turn total"
            )

    def risks_turn_total(self) -> bool:
        """Return True if some throw loses the turn total (else nothing is in jeopardy: roll to the goal)."""
        return (
            self.single_bad != "harmless"
            or self.bust_sum != 0
            or (self.dice >= 2 and (self.doubles == "bust" or self.double_bad in ("bust", "reset", "score")))
        )

    def risk(self) -> Fraction:
        """Return the exact chance that one roll loses the turn total (busts, resets, or scores a fixed amount)."""
        return _risk(self.scoring(), self.dice, self.sides)

    # -- identity -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Return the fields as JSON-ready data."""
        return asdict(self)

    def key(self) -> str:
        """Return the canonical text of the rule set (sorted JSON): equal rules, equal keys."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def ident(self) -> str:
        """Return a short stable id, e.g. 'r-3fa94c1d2b' (the same in every process and on every machine)."""
        return "r-" + hashlib.sha256(self.key().encode()).hexdigest()[:10]

    def canonical(self) -> RuleSet:
        """Return the rule set with rules that change nothing written the plain way (for deduplication).

        Two 1s that do what one 1 does are "same"; scoring exactly 0 is losing the turn total; the tie
        rule of a first-to-goal game is "shared" (no ties happen); a bad face that does nothing is 1.
        """
        double_bad = self.double_bad
        if double_bad == "score" and self.bonus == 0:
            double_bad = "bust"  # scoring exactly 0 is losing the turn total
        if (double_bad, self.single_bad) in (("bust", "bust"), ("reset", "reset")):
            double_bad = "same"
        ties = self.ties if self.endgame != "first-to-goal" else "shared"
        bonus = self.bonus if double_bad in USES_BONUS else 0
        idle = self.single_bad == "harmless" and double_bad == "same"  # the bad face does nothing: any face will do
        bad_face = 1 if idle else self.bad_face
        return replace(self, double_bad=double_bad, bonus=bonus, ties=ties, bad_face=bad_face)

    # -- the game -------------------------------------------------------------------------
    def scoring(self) -> DesignedScoring:
        """Return the scorer of one throw."""
        return DesignedScoring(self.bad_face, self.single_bad, self.double_bad, self.bonus, self.doubles, self.bust_sum)

    def roll_spec(self) -> RollSpec:
        """Return the dice thrown together and how they score."""
        return RollSpec(tuple(fair_die(self.sides) for _ in range(self.dice)), ByFaces(self.scoring()))

    def to_variant(self, name: str | None = None, title: str | None = None) -> Variant:
        """Return the playable, solvable ``Variant`` of this rule set."""
        ident = self.ident()
        return Variant(
            name=name or f"designed-{ident}",
            title=title or f"Designed game {ident}",
            sources=(),
            summary=self.summary(),
            rules=tuple(self.words()),
            goal=self.goal,
            decision=Decision.ROLL_HOLD,
            choices=(self.dice,),
            rolls=(self.roll_spec(),),
            endgame=Endgame(self.endgame),
            ties=TieRule(self.ties),
            players_min=2,
            players_max=10,
            parameters=tuple((k, v) for k, v in self.to_dict().items()),
        )

    # -- the rules in words ---------------------------------------------------------------
    def _face(self) -> str:
        return f"{self.bad_face}"

    def summary(self) -> str:
        """Return one line a player reads in a list of games, naming every rule (the full text: ``words``)."""
        face = self._face()
        many = self.dice >= 2
        dice = f"one {self.sides}-sided die" if not many else f"{_number(self.dice)} {self.sides}-sided dice"
        parts = [dice]
        if many and self.double_bad != "same":
            parts.append(f"two {face}s {_pair_effect(self.double_bad, self.bonus)}")
        if self.single_bad != "harmless":
            single = "a single" if many and self.double_bad != "same" else ("any" if many else "a")
            parts.append(f"{single} {face} {_lose(self.single_bad)}")
        if self.bust_sum:
            parts.append(f"{'a' if not many else 'a total of'} {self.bust_sum} loses the turn total")
        if many and self.doubles != "normal":
            parts.append("doubles count twice" if self.doubles == "twice" else "doubles lose the turn total")
        parts.append(_ending_summary(self.goal, Endgame(self.endgame), TieRule(self.ties)))
        return "; ".join(parts) + "."

    def words(self) -> list[str]:
        """Return the rules written out for players, one line per rule, in the order they apply."""
        face = self._face()
        many = self.dice >= 2
        dice = f"one {self.sides}-sided die" if not many else f"{_number(self.dice)} {self.sides}-sided dice"
        numbered = f"numbered 1 to {self.sides}"
        lines = [
            f"On your turn roll {dice} ({numbered}) as often as you like; unless a rule below says otherwise, "
            f"the total you roll joins your turn total."
        ]
        if many and self.double_bad != "same":
            what = {
                "bust": "ends the turn with the turn total lost",
                "reset": "ends the turn and wipes out your whole score",
                "add": f"adds {self.bonus} to the turn total, and the turn goes on",
                "set": f"makes the turn total exactly {self.bonus}, and the turn goes on"
                if self.bonus
                else "wipes out the turn total, and the turn goes on",
                "bank": f"banks the turn total plus {self.bonus} and ends the turn"
                if self.bonus
                else "banks the turn total and ends the turn",
                "score": f"ends the turn scoring exactly {self.bonus}; the rest of the turn total is lost",
            }[self.double_bad]
            both = "two" if self.dice == 2 else "two or more"
            lines.append(f"Rolling {both} {face}s at once {what}.")
        if self.single_bad != "harmless":
            single = "a single" if many and self.double_bad != "same" else ("any" if many else "a")
            lines.append(f"Rolling {single} {face} {_lose(self.single_bad, full=True)}.")
        else:
            lines.append(
                f"A {'single ' if many and self.double_bad != 'same' else ''}{face} is just a number like any other."
            )
        if self.bust_sum:
            total = f"Rolling a {self.bust_sum}" if not many else f"A total of {self.bust_sum}"
            lines.append(f"{total} ends the turn with the turn total lost.")
        if many and self.doubles != "normal":
            alike = "Other doubles" if self.dice == 2 else "Any other roll with all dice alike"
            plural = self.dice == 2
            if self.doubles == "twice":
                lines.append(f"{alike} {'count' if plural else 'counts'} twice {'their' if plural else 'its'} total.")
            else:
                lines.append(f"{alike} {'end' if plural else 'ends'} the turn with the turn total lost.")
        lines.append("Hold to bank the turn total into your score; then the next player rolls.")
        lines.append(_ending_words(self.goal, Endgame(self.endgame), TieRule(self.ties)))
        return lines


def _number(n: int) -> str:
    return {1: "one", 2: "two", 3: "three", 4: "four"}.get(n, str(n))


def _pair_effect(kind: str, bonus: int) -> str:
    """Return what two or more bad faces do, in a few words (the summary line)."""
    return {
        "bust": "lose the turn total",
        "reset": "lose the whole score",
        "add": f"add {bonus}",
        "set": f"set the turn total to {bonus}" if bonus else "wipe out the turn total",
        "bank": f"bank the turn total plus {bonus}" if bonus else "bank the turn total",
        "score": f"score exactly {bonus}",
    }[kind]


def _ending_summary(goal: int, endgame: Endgame, ties: TieRule) -> str:
    """Return the goal and the ending in a few words (the summary line)."""
    if endgame is Endgame.FIRST_TO_GOAL:
        return f"first to {goal} wins"
    tie = "ties shared" if ties is TieRule.SHARED else "ties to whoever got there first"
    if endgame is Endgame.FINAL_ROUND:
        return f"reaching {goal} gives the others one more turn, {tie}"
    return f"reaching {goal} finishes the round, {tie}"


def _lose(kind: str, full: bool = False) -> str:
    if kind == "bust":
        return "ends the turn with the turn total lost" if full else "loses the turn total"
    return "ends the turn and wipes out your whole score" if full else "loses your whole score"


def _ending_words(goal: int, endgame: Endgame, ties: TieRule) -> str:
    if endgame is Endgame.FIRST_TO_GOAL:
        return f"The first to bank {goal} points wins at once."
    tie = "tied players share the win" if ties is TieRule.SHARED else "a tie goes to whoever got there first"
    if endgame is Endgame.FINAL_ROUND:
        return f"Once someone reaches {goal}, everyone else gets one more turn; the best score wins and {tie}."
    return (
        f"Once someone reaches {goal}, the round is finished so everyone has had the same number of turns; "
        f"the best score wins and {tie}."
    )


def rule_set(data: Any) -> RuleSet:
    """Return the rule set of a JSON object of fields (missing fields take their defaults; unknown refused)."""
    if not isinstance(data, dict):
        raise BadParameterError(f"rules must be an object of fields ({', '.join(FIELD_NAMES)}); got {shown(data)}")
    unknown = [key for key in data if key not in _BY_NAME]
    if unknown:
        raise BadParameterError(f"unknown rule {shown(unknown[0])}; the rules are: {', '.join(FIELD_NAMES)}")
    values = {key: _BY_NAME[key].parse(value) for key, value in data.items()}
    return RuleSet(**values)


@dataclass(frozen=True)
class RuleFile:
    """A designed game as saved: its title, its rules and (optionally) the designer's measures of it."""

    title: str
    rules: RuleSet
    figures: tuple[tuple[str, float], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Return the file's JSON content."""
        data: dict[str, Any] = {
            "format": RULE_FILE_FORMAT,
            "version": RULE_FILE_VERSION,
            "title": self.title,
            "rules": self.rules.to_dict(),
            "in_words": self.rules.words(),
        }
        if self.figures:
            data["figures"] = dict(self.figures)
        return data

    def write(self, path: Path) -> None:
        """Write the rule file to ``path`` (a plain file, replaced atomically)."""
        write_text(path, json.dumps(self.to_json(), indent=2) + "\n")


TOP_KEYS = ("format", "version", "title", "rules", "in_words", "figures")


def parse_rule_file(data: Any) -> RuleFile:
    """Return the rule file of parsed JSON ``data``; anything unknown, mistyped or out of bounds is refused."""
    if not isinstance(data, dict):
        raise BadParameterError(f"a rule file is a JSON object with keys {', '.join(TOP_KEYS)}; got {shown(data)}")
    unknown = [key for key in data if key not in TOP_KEYS]
    if unknown:
        raise BadParameterError(f"unknown key {shown(unknown[0])} in the rule file; allowed: {', '.join(TOP_KEYS)}")
    if data.get("format") != RULE_FILE_FORMAT:
        raise BadParameterError(
            f"not a rule file: 'format' must be {RULE_FILE_FORMAT!r}, got {shown(data.get('format'))}"
        )
    version = data.get("version")
    if version != RULE_FILE_VERSION or isinstance(version, bool):
        raise BadParameterError(f"rule file version {shown(version)} is not supported; this pigdice reads version 1")
    title = data.get("title", "Designed game")
    if not isinstance(title, str) or not title.strip() or len(title) > MAX_TITLE or not title.isprintable():
        raise BadParameterError(f"title must be a printable text of 1 to {MAX_TITLE} characters; got {shown(title)}")
    if "rules" not in data:
        raise BadParameterError(f"the rule file has no 'rules' (an object of {', '.join(FIELD_NAMES)})")
    rules = rule_set(data["rules"])
    words = data.get("in_words", [])
    if not isinstance(words, list) or not all(isinstance(line, str) for line in words):
        raise BadParameterError("in_words must be a list of texts (it is written from the rules and not read)")
    figures = data.get("figures", {})
    if not isinstance(figures, dict) or len(figures) > MAX_FIGURES:
        raise BadParameterError(f"figures must be an object of at most {MAX_FIGURES} named numbers")
    pairs = []
    for key, value in figures.items():
        ok_value = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if not (isinstance(key, str) and len(key) <= MAX_TEXT and ok_value):
            raise BadParameterError(f"figures: {shown(key)} must name a finite number, got {shown(value)}")
        pairs.append((key, float(value)))
    return RuleFile(title.strip(), rules, tuple(pairs))


def _where(path: Path) -> str:
    """Return a path for an error message: whole when short, else its end (the file's name kept)."""
    text = clean_text(str(path))
    return repr(text) if len(text) <= 60 else repr("..." + text[-57:])


def read_rule_file(path: str | os.PathLike[str]) -> RuleFile:
    """Read and check a rule file; a missing, huge, non-plain (a device, a pipe) or malformed file is a
    BadParameterError naming it, raised before more than ``MAX_RULE_FILE_BYTES`` are read."""
    where = Path(path)
    try:
        text = read_text(where, MAX_RULE_FILE_BYTES, "a rule file")
    except UnsafeFileError as exc:
        raise BadParameterError(str(exc)) from None
    except OSError as exc:
        raise BadParameterError(f"cannot read rule file {_where(where)}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise BadParameterError(f"rule file {_where(where)} is not UTF-8 text") from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise BadParameterError(f"rule file {_where(where)} is not valid JSON: it is nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, or a number past sys.get_int_max_str_digits (4,300 digits)
        why = "holds a number with thousands of digits" if "integer string" in str(exc) else f"is not valid JSON: {exc}"
        raise BadParameterError(f"rule file {_where(where)} {why}") from None
    if json_has_surrogates(data):
        raise BadParameterError(f"rule file {_where(where)} holds a character that is not text (a lone surrogate)")
    try:
        return parse_rule_file(data)
    except BadParameterError as exc:
        raise BadParameterError(f"rule file {_where(where)}: {exc}") from None


def is_designed_name(name: Any) -> bool:
    """Return True if ``name`` asks for a designed game ('designed:FILE')."""
    return isinstance(name, str) and name[: len(PREFIX)].lower() == PREFIX


def designed_variant(name: str) -> Variant:
    """Return the variant of 'designed:FILE' (the rule file at FILE)."""
    path = name[len(PREFIX) :].strip()
    if not path:
        raise BadParameterError("designed:FILE needs the path of a rule file, e.g. designed:proposals/1.json")
    found = read_rule_file(path)
    return found.rules.to_variant(name=f"{PREFIX}{path}", title=found.title)
