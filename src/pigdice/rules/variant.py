"""Variant: everything that defines one game of the Pig family, as frozen data."""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any

from pigdice.errors import BadParameterError
from pigdice.rules.outcomes import Outcome, RollSpec
from pigdice.rules.parameters import MAX_TEXT, shown
from pigdice.rules.sources import find_source

# Playing needs no goal-sized arrays, so the goal may be large; whatever allocates them (the solver's
# goal^2 values, goal^3 action tables, exact studies) first checks the memory it needs
# (pigdice.solve.memory) and names the largest goal that fits: goal 100_000's values alone are 80 GB.
MAX_GOAL = 100_000
FINGERPRINT_CACHE_SIZE = 256  # variants whose fingerprints are kept (a lookup per solve() call)


class Decision(StrEnum):
    """What the player chooses."""

    ROLL_HOLD = "roll-hold"  # roll again or hold, with a fixed set of dice
    DICE_PER_TURN = "dice-per-turn"  # one throw per turn; choose how many dice (Hog)
    DICE_PER_ROLL = "dice-per-roll"  # roll again (choosing how many dice) or hold
    SIMULTANEOUS = "simultaneous"  # everyone plays the same shared rolls (Swine Herd)

    @property
    def label(self) -> str:
        """Return the choice in a player's words, e.g. 'roll again or hold'."""
        return CHOICE_LABELS[Decision][self]


class Endgame(StrEnum):
    """How reaching the goal ends the game."""

    FIRST_TO_GOAL = "first-to-goal"  # the first to bank the goal wins at once
    FINAL_ROUND = "final-round"  # every other player gets one more turn (or roll)
    EQUAL_TURNS = "equal-turns"  # the round is finished, so everyone has had as many turns

    @property
    def label(self) -> str:
        """Return the ending in a player's words, e.g. 'first to the goal wins'."""
        return CHOICE_LABELS[Endgame][self]


class TieRule(StrEnum):
    """Who wins when the best final scores are equal (final-round and equal-turns endings)."""

    SHARED = "shared"  # all tied players share the victory
    FIRST_TO_REACH = "first-to-reach"  # the player who reached that score first wins

    @property
    def label(self) -> str:
        """Return the tie rule in a player's words, e.g. 'ties are shared'."""
        return CHOICE_LABELS[TieRule][self]


class FinalTurn(StrEnum):
    """What the others get once the goal is reached under the final-round ending."""

    TURN = "turn"  # one more full turn (003)
    ROLL = "roll"  # one more roll of the dice, which is banked (000's Pig Dice)

    @property
    def label(self) -> str:
        """Return the final turn in a player's words, e.g. 'one more roll'."""
        return CHOICE_LABELS[FinalTurn][self]


# What players read for each choice (menus, rules pages, `pigdice rules`); the values stay the
# words scripts and the API use.
CHOICE_LABELS: dict[type[StrEnum], dict[Any, str]] = {
    Decision: {
        Decision.ROLL_HOLD: "roll again or hold",
        Decision.DICE_PER_TURN: "choose how many dice to throw, once a turn",
        Decision.DICE_PER_ROLL: "choose how many dice for each roll, or hold",
        Decision.SIMULTANEOUS: "everyone decides on the same rolls at once: stay standing or sit down",
    },
    Endgame: {
        Endgame.FIRST_TO_GOAL: "first to the goal wins",
        Endgame.FINAL_ROUND: "a final round for everyone else",
        Endgame.EQUAL_TURNS: "equal turns",
    },
    TieRule: {
        TieRule.SHARED: "ties are shared",
        TieRule.FIRST_TO_REACH: "ties go to whoever reached the score first",
    },
    FinalTurn: {
        FinalTurn.TURN: "one more turn",
        FinalTurn.ROLL: "one more roll",
    },
}


@dataclass(frozen=True)
class Variant:
    """A playable, solvable variant: parameters plus one outcome table per roll choice."""

    name: str
    title: str
    sources: tuple[str, ...]
    summary: str
    rules: tuple[str, ...]
    goal: int
    decision: Decision
    choices: tuple[int, ...]  # how many dice each roll choice throws
    rolls: tuple[RollSpec, ...]  # aligned with ``choices``
    endgame: Endgame = Endgame.FIRST_TO_GOAL
    ties: TieRule = TieRule.SHARED
    final_turn: FinalTurn = FinalTurn.TURN
    players_min: int = 2
    players_max: int = 10
    parameters: tuple[tuple[str, Any], ...] = ()
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.goal, bool) or not isinstance(self.goal, int):
            raise BadParameterError(f"goal must be a whole number, got {shown(self.goal)}")
        if not 1 <= self.goal <= MAX_GOAL:
            raise BadParameterError(f"goal must be between 1 and {MAX_GOAL}, got {shown(self.goal)}")
        if len(self.choices) != len(self.rolls) or not self.choices:
            raise BadParameterError(f"variant {self.name}: choices and rolls do not match")
        if self.decision in (Decision.ROLL_HOLD, Decision.SIMULTANEOUS) and len(self.choices) != 1:
            raise BadParameterError(f"variant {self.name}: a {self.decision} game has one roll choice")
        if self.decision is Decision.SIMULTANEOUS and (
            self.endgame is not Endgame.EQUAL_TURNS or self.ties is not TieRule.SHARED
        ):
            raise BadParameterError(
                f"{self.name}: everyone plays every turn, so the game always ends after the turn in which "
                "someone reaches the goal, tied players sharing the victory (endgame equal-turns, ties shared)"
            )

    # -- rolls ---------------------------------------------------------------------------
    @property
    def chooses_dice(self) -> bool:
        """Return True if the player picks a number of dice (Hog, Hog with rerolls, 3-dice Piggy Six)."""
        return self.decision in (Decision.DICE_PER_TURN, Decision.DICE_PER_ROLL)

    @property
    def can_hold(self) -> bool:
        """Return True if the player decides when to hold (every decision but one throw per turn)."""
        return self.decision is not Decision.DICE_PER_TURN

    def roll_spec(self, dice: int | None = None) -> RollSpec:
        """Return the roll spec for throwing ``dice`` dice (None: the only or smallest choice)."""
        if dice is None:
            if self.chooses_dice:
                raise BadParameterError(
                    f"{self.name}: say how many dice to roll ({self.choices[0]}..{self.choices[-1]})"
                )
            return self.rolls[0]
        if dice not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            if len(self.choices) > 6:
                allowed = f"{self.choices[0]}..{self.choices[-1]}"
            raise BadParameterError(f"{self.name}: cannot roll {dice} dice; allowed: {allowed}")
        return self.rolls[self.choices.index(dice)]

    def outcomes(self, dice: int | None = None) -> tuple[Outcome, ...]:
        """Return the exact outcome table of one roll choice."""
        return self.roll_spec(dice if self.chooses_dice else None).outcomes()

    # -- derived variants -----------------------------------------------------------------
    def with_goal(self, goal: int) -> Variant:
        """Return this variant with another goal."""
        return dataclasses.replace(self, goal=goal)

    def with_endgame(
        self,
        endgame: Endgame | str,
        ties: TieRule | str | None = None,
        final_turn: FinalTurn | str | None = None,
    ) -> Variant:
        """Return this variant with another endgame rule (and optionally tie rule, final turn)."""
        return dataclasses.replace(
            self,
            endgame=parse_enum(Endgame, endgame, "endgame"),
            ties=self.ties if ties is None else parse_enum(TieRule, ties, "ties"),
            final_turn=self.final_turn if final_turn is None else parse_enum(FinalTurn, final_turn, "final turn"),
        )

    def first_to_goal(self) -> Variant:
        """Return the first-to-goal form of this variant (the game seed 003 solves "for symmetry")."""
        if self.endgame is Endgame.FIRST_TO_GOAL:
            return self
        return dataclasses.replace(self, endgame=Endgame.FIRST_TO_GOAL)

    def roll_hold_form(self) -> Variant:
        """Return the turn-based roll/hold game with this variant's dice and goal, first to the goal.

        Swine Herd's shared rolls become one player's rolls: the game its approximate robot solves.
        """
        if self.two_dice_sets:  # the race is one player against another: one set of dice
            parameters = tuple(item for item in self.parameters if item[0] != "dice_sets")
            return dataclasses.replace(self, parameters=parameters, players_min=2).roll_hold_form()
        if self.decision is not Decision.SIMULTANEOUS:
            return self.first_to_goal()
        return dataclasses.replace(
            self, decision=Decision.ROLL_HOLD, endgame=Endgame.FIRST_TO_GOAL, ties=TieRule.SHARED
        )

    @property
    def is_simultaneous(self) -> bool:
        """Return True if everyone decides on the same shared rolls at once (Swine Herd)."""
        return self.decision is Decision.SIMULTANEOUS

    @property
    def sits_at_goal(self) -> bool:
        """Return True if, while two or more stand, a shared total that takes everyone standing to the goal
        seats them all (Swine Herd's house rule ``at_goal`` = 'sit'; without it perfect play never ends)."""
        return self.is_simultaneous and dict(self.parameters).get("at_goal", "sit") == "sit"

    def require_turns(self, what: str) -> Variant:
        """Return this variant, or raise BadParameterError if it is simultaneous and ``what`` needs turns."""
        if self.is_simultaneous:
            raise BadParameterError(
                f"{self.name} is played by everyone at once on shared rolls; {what} follows turn-based games"
            )
        return self

    def endgame_note(self) -> str:
        """Return a one-line description of how reaching the goal ends the game."""
        if self.endgame is Endgame.FIRST_TO_GOAL:
            return f"first to {self.goal} wins"
        if self.two_dice_sets:
            return (
                f"reaching {self.goal} lets the player with the other set of dice finish their turn; best score wins; "
                f"{self.ties.label}"
            )
        if self.endgame is Endgame.FINAL_ROUND:
            others = f"gives everyone else {self.final_turn.label}"
            return f"reaching {self.goal} {others}; best score wins; {self.ties.label}"
        return f"reaching {self.goal} finishes the round; best score wins; {self.ties.label}"

    @property
    def two_dice_sets(self) -> bool:
        """Return True if two sets of dice go round the table at once (Piggy Six for large groups)."""
        return dict(self.parameters).get("dice_sets") == "2"

    def check_players(self, players: int) -> None:
        """Raise BadParameterError unless ``players`` is a legal number of players."""
        if self.two_dice_sets and players < 7:
            raise BadParameterError(
                f"two sets of dice are for a large group of 7 or more players, not {players}; play with one set"
            )
        if not self.players_min <= players <= self.players_max:
            raise BadParameterError(
                f"{self.name} is played by {self.players_min} to {self.players_max} players, not {players}"
            )

    # -- identity -------------------------------------------------------------------------
    def fingerprint(self) -> str:
        """Return a hash of everything that changes optimal play (goal, choices, exact tables)."""
        return _fingerprint(self.goal, self.decision, self.choices, self.rolls)

    def describe(self) -> dict[str, Any]:
        """Return the variant's parameters as JSON-ready data (without the outcome tables)."""
        return {
            "name": self.name,
            "title": self.title,
            "aliases": list(self.aliases),
            "source": [find_source(source).citation for source in self.sources],  # by title, never by file id
            "summary": self.summary,
            "players_min": self.players_min,
            "players_max": self.players_max,
            "goal": self.goal,
            "decision": str(self.decision),
            "dice_choices": list(self.choices),
            "endgame": str(self.endgame),
            "ties": str(self.ties),
            "final_turn": str(self.final_turn),
            "parameters": {key: _json_value(value) for key, value in self.parameters},
        }


@lru_cache(maxsize=FINGERPRINT_CACHE_SIZE)
def _fingerprint(goal: int, decision: Decision, choices: tuple[int, ...], rolls: tuple[RollSpec, ...]) -> str:
    digest = hashlib.sha256()
    digest.update(f"{goal}|{decision}|{choices}".encode())
    for spec in rolls:
        for effect, probability in spec.distribution():
            digest.update(f"{effect.kind.name}:{effect.amount}:{effect.keep_turn_total}={probability};".encode())
        digest.update(b"/")
    return digest.hexdigest()[:16]


def _json_value(value: Any) -> Any:
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    return str(value)


def parse_enum(enum_type: Any, value: Any, what: str) -> Any:
    """Return ``value`` as a member of ``enum_type`` or raise an error listing the allowed values."""
    if isinstance(value, enum_type):
        return value
    if isinstance(value, str) and len(value) <= MAX_TEXT:
        text = value.strip().lower().replace("_", "-").replace(" ", "-")
        for member in enum_type:
            if member.value == text:
                return member
    allowed = ", ".join(member.value for member in enum_type)
    raise BadParameterError(f"unknown {what} {shown(value)}; allowed: {allowed}")
