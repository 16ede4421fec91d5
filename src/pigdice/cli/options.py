"""Options shared by the commands, and how they become a variant, a seed or a list of players.

A command that adjusts a variant declares one parameter ``options: VariantOptions`` and is
wrapped with ``with_variant_options``: typer then sees the five shared options (``--goal``,
``--endgame``, ``--ties``, ``--final-turn``, ``--param``) in that parameter's place, and the
command receives them as one ``VariantOptions``.
"""

from __future__ import annotations

import functools
import inspect
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Annotated, Any, get_type_hints

import typer

from pigdice.cli.checks import has_foreign_digits, number_option, shown
from pigdice.engine.game import MAX_SEED
from pigdice.errors import BadParameterError
from pigdice.rules import find_variant
from pigdice.rules.variant import MAX_GOAL, Endgame, FinalTurn, TieRule, Variant

if TYPE_CHECKING:  # the players (and numpy) load when a command reads its players
    from pigdice.players.base import Strategy

MAX_PARAM_DIGITS = 18  # a whole-number variant parameter (max_dice=10) has at most this many digits


def _values(enum_type: Any) -> str:
    return " | ".join(member.value for member in enum_type)


VariantArg = Annotated[
    str, typer.Argument(metavar="VARIANT", help="Variant name or alias (see `pigdice variants`).", show_default=False)
]
VariantOpt = Annotated[
    str, typer.Option("--variant", "-v", metavar="VARIANT", help="Variant name or alias (see `pigdice variants`).")
]
GoalOpt = Annotated[
    int | None,
    number_option("--goal", low=1, high=MAX_GOAL, help="Points needed to win (default: the variant's goal)"),
]
EndgameOpt = Annotated[
    str | None,
    typer.Option("--endgame", metavar="ENDING", help=f"How reaching the goal ends the game: {_values(Endgame)}."),
]
TiesOpt = Annotated[
    str | None, typer.Option("--ties", metavar="RULE", help=f"Who wins equal best scores: {_values(TieRule)}.")
]
FinalTurnOpt = Annotated[
    str | None,
    typer.Option("--final-turn", metavar="WHAT", help=f"What the others get in a final round: {_values(FinalTurn)}."),
]
ParamOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--param",
        "-p",
        metavar="KEY=VALUE",
        help="Variant parameter key=value (repeatable), e.g. --param max_dice=10.",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts instead of tables.")]
SeedOpt = Annotated[
    int | None, number_option("--seed", low=0, high=MAX_SEED, help="Random seed (default: a fresh one, printed)")
]

RESERVED_PARAMS = ("name", "goal", "endgame", "ties", "final_turn")


WHOLE_NUMBER = re.compile(r"-?[0-9]+")


def parse_param_value(text: str, key: str = "") -> int | str:
    """Return ``text`` as an int if it is a whole number in ASCII digits, else the string itself.

    Digits of other scripts (², ٢, ５) and numbers longer than ``MAX_PARAM_DIGITS`` are refused.
    """
    stripped = text.strip()
    name = f"--param {key}=..." if key else "--param"
    if has_foreign_digits(stripped):
        raise BadParameterError(f"{name}: write numbers with the digits 0-9, got {shown(stripped)}")
    if WHOLE_NUMBER.fullmatch(stripped):
        if len(stripped.lstrip("-").lstrip("0")) > MAX_PARAM_DIGITS:
            raise BadParameterError(f"{name}: {shown(stripped)} is too large a number")
        return int(stripped)
    return stripped


def parse_params(items: Sequence[str] | None) -> dict[str, int | str]:
    """Parse repeated ``key=value`` strings into variant parameters."""
    params: dict[str, int | str] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key or not value.strip():
            raise BadParameterError(f"--param expects key=value (e.g. max_dice=10), got {item!r}")
        if key in RESERVED_PARAMS:
            option = "--" + key.replace("_", "-")
            raise BadParameterError(f"--param {key}=... is not a variant parameter; use {option} instead")
        if key in params:
            raise BadParameterError(f"--param {key} given twice")
        params[key] = parse_param_value(value, key)
    return params


def variant_from_options(
    name: str,
    goal: int | None = None,
    endgame: str | None = None,
    ties: str | None = None,
    final_turn: str | None = None,
    params: Sequence[str] | None = None,
) -> Variant:
    """Return the variant the shared command-line options describe (raises PigdiceError on bad input)."""
    return find_variant(
        name, goal=goal, endgame=endgame, ties=ties, final_turn=final_turn, files=True, **parse_params(params)
    )


@dataclass(frozen=True)
class VariantOptions:
    """The shared options that adjust a variant: --goal, --endgame, --ties, --final-turn, --param."""

    goal: GoalOpt = None
    endgame: EndgameOpt = None
    ties: TiesOpt = None
    final_turn: FinalTurnOpt = None
    param: ParamOpt = None

    def variant(self, name: str) -> Variant:
        """Return the variant ``name`` adjusted by these options."""
        return variant_from_options(name, self.goal, self.endgame, self.ties, self.final_turn, self.param)


NO_OPTIONS = VariantOptions()  # the placeholder default of a VariantOptions parameter after defaulted ones


def _option_parameters() -> list[inspect.Parameter]:
    """Return the fields of ``VariantOptions`` as keyword parameters typer reads as options."""
    hints = get_type_hints(VariantOptions, include_extras=True)
    keyword = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return [
        inspect.Parameter(f.name, keyword, default=f.default, annotation=hints[f.name]) for f in fields(VariantOptions)
    ]


def with_variant_options(command: Callable[..., None]) -> Callable[..., None]:
    """Return ``command`` showing typer the shared variant options in place of its ``VariantOptions`` parameter."""
    hints = get_type_hints(command, include_extras=True)
    names = [f.name for f in fields(VariantOptions)]
    parameters: list[inspect.Parameter] = []
    target = ""
    for parameter in inspect.signature(command).parameters.values():
        annotation = hints.get(parameter.name, parameter.annotation)
        if annotation is VariantOptions:
            target = parameter.name
            parameters.extend(_option_parameters())
        else:
            parameters.append(parameter.replace(annotation=annotation))
    if not target:
        raise TypeError(f"{command.__name__} has no VariantOptions parameter")

    @functools.wraps(command)
    def run(**values: Any) -> None:
        options = VariantOptions(**{name: values.pop(name) for name in names})
        command(**values, **{target: options})

    run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    return run


def resolve_seed(seed: int | None) -> int:
    """Return ``seed`` checked, or a fresh random seed when none was given."""
    if seed is None:
        return secrets.randbelow(2**31)
    if not 0 <= seed <= MAX_SEED:
        raise BadParameterError(f"seed must be a whole number from 0 to {MAX_SEED}, got {seed}")
    return seed


def players_from_option(specs: str, variant: Variant) -> list[Strategy]:
    """Return the strategies a ``--players`` option names, checked against the variant."""
    from pigdice.players.specs import parse_players

    return parse_players(specs, variant)
