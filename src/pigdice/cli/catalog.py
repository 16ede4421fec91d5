"""The catalog of variants: ``variants`` (all of them) and ``rules`` (one in full)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from rich import box
from rich.console import Console, ConsoleRenderable, Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from pigdice.cli.options import JsonOpt, VariantArg, VariantOptions, with_variant_options
from pigdice.cli.output import bullets, emit_json, fraction_text, percent, stdout_console
from pigdice.rules import all_variants
from pigdice.rules.effects import EffectKind
from pigdice.rules.outcomes import Outcome
from pigdice.rules.registry import variant_settings
from pigdice.rules.sources import find_source
from pigdice.rules.variant import Variant

SHOWN_TABLE_ROWS = 40  # outcome tables longer than this get only the per-choice summary for people


# -- variants ---------------------------------------------------------------------------------
WIDE_TABLE = 120  # the whole table fits from this many columns; narrower terminals get one block per variant


def variant_sources(variant: Variant) -> str:
    """Return the variant's sources as a player names them: 'Dice Game Depot; Neller & Presser's Pigtail (2005)'."""
    return "; ".join(find_source(s).short for s in variant.sources)


def _variants_table(found: Sequence[Variant]) -> Table:
    table = Table(title="Pig variants", title_style="bold", box=box.SIMPLE_HEAD)
    table.add_column("name", no_wrap=True, style="bold cyan")
    table.add_column("what it is", ratio=1)
    table.add_column("aliases", style="dim", max_width=24)
    table.add_column("players", justify="right", no_wrap=True)
    table.add_column("goal", justify="right")
    table.add_column("you choose", max_width=20)
    table.add_column("ending")
    table.add_column("sources", max_width=34)
    for variant in found:
        table.add_row(
            variant.name,
            Text(variant.title, style="bold") + Text(": " + variant.summary),
            ", ".join(variant.aliases),
            f"{variant.players_min}-{variant.players_max}",
            str(variant.goal),
            variant.decision.label,
            variant.endgame.label,
            variant_sources(variant),
        )
    return table


def _variant_block(variant: Variant) -> Padding:
    """Return one variant as a few short lines, for a narrow terminal."""
    lines: list[ConsoleRenderable] = [
        Text(variant.name, style="bold cyan") + Text(f"  {variant.title}", style="bold"),
        Padding(variant.summary, (0, 0, 0, 2)),
        Padding(
            f"{variant.players_min}-{variant.players_max} players · goal {variant.goal} · "
            f"{variant.decision.label} · {variant.endgame.label}",
            (0, 0, 0, 2),
        ),
    ]
    if variant.aliases:
        lines.append(Padding(Text("also called " + ", ".join(variant.aliases), style="dim"), (0, 0, 0, 2)))
    lines.append(Padding("sources: " + variant_sources(variant), (0, 0, 0, 2)))
    return Padding(Group(*lines), (1, 0, 0, 0))


def variants_command(json_out: JsonOpt = False) -> None:
    """List every variant with its aliases, sources, players, goal, choice and ending."""
    found = all_variants()
    if json_out:
        emit_json([variant.describe() for variant in found])
        return
    console = stdout_console()
    if console.width >= WIDE_TABLE:
        console.print(_variants_table(found))
    else:
        console.print(Text("Pig variants", style="bold"))
        for variant in found:
            console.print(_variant_block(variant))
        console.print()
    console.print("Details: pigdice rules NAME    Play: pigdice play NAME", style="dim")


# -- rules ------------------------------------------------------------------------------------
def choice_summary(outcomes: Sequence[Outcome]) -> dict[str, Fraction]:
    """Return P(turn total lost), P(score lost) and the expected gain from a turn total of 0."""
    bust = sum((row.probability for row in outcomes if row.effect.kind is EffectKind.BUST), Fraction(0))
    reset = sum((row.probability for row in outcomes if row.effect.kind is EffectKind.RESET_SCORE), Fraction(0))
    gain = Fraction(0)
    for row in outcomes:
        score, turn_total, _ = row.effect.resolve(0, 0)
        gain += row.probability * (score + turn_total)
    return {"bust": bust, "reset": reset, "gain": gain}


def _summary_table(variant: Variant) -> Table:
    table = Table(title="Each roll choice", title_style="bold", title_justify="left")
    table.add_column("dice", justify="right")
    table.add_column("outcomes", justify="right")
    table.add_column("P(turn total lost)", justify="right")
    table.add_column("P(whole score lost)", justify="right")
    table.add_column("expected gain", justify="right")
    for dice in variant.choices:
        rows = variant.outcomes(dice)
        summary = choice_summary(rows)
        table.add_row(
            str(dice),
            str(len(rows)),
            f"{percent(summary['bust'])}",
            f"{percent(summary['reset'])}",
            f"{float(summary['gain']):.3f}",
        )
    return table


def _effect_style(kind: EffectKind) -> str:
    if kind is EffectKind.RESET_SCORE:
        return "bold red"
    if kind is EffectKind.BUST:
        return "red"
    if kind in (EffectKind.BANK, EffectKind.DOUBLE, EffectKind.SET):
        return "yellow"
    return "green"


def _outcome_table(variant: Variant, dice: int) -> Table:
    """Return the outcome table of one roll choice, grouped by effect when it has many rows."""
    rows = variant.outcomes(dice)
    label = f"{dice} dice" if variant.chooses_dice else "One roll"
    table = Table(title=f"{label}: every outcome", title_style="bold", title_justify="left")
    if len(rows) <= 12:
        table.add_column("roll")
        table.add_column("probability", justify="right")
        table.add_column("", justify="right", style="dim")
        table.add_column("effect")
        for row in rows:
            table.add_row(
                row.label,
                fraction_text(row.probability),
                percent(row.probability),
                Text(row.effect.describe(), style=_effect_style(row.effect.kind)),
            )
        return table
    groups: dict[Any, list[Outcome]] = {}
    for row in rows:
        groups.setdefault(row.effect, []).append(row)
    table.add_column("effect")
    table.add_column("probability", justify="right")
    table.add_column("", justify="right", style="dim")
    table.add_column("rolls", overflow="fold")
    for effect in sorted(groups, key=lambda e: (e.kind is not EffectKind.ADD, e.kind, e.amount)):
        members = groups[effect]
        total = sum((row.probability for row in members), Fraction(0))
        table.add_row(
            Text(effect.describe(), style=_effect_style(effect.kind)),
            fraction_text(total),
            percent(total),
            ", ".join(row.label for row in members),
        )
    return table


def print_rules(variant: Variant, console: Console) -> None:
    """Print a variant's rules, source, endgame and outcome tables for people."""
    console.print(Text(variant.title, style="bold magenta"), Text(f"({variant.name})", style="dim"))
    console.print(Text(variant.summary, style="italic"))
    console.print()
    console.print(bullets(variant.rules))
    console.print()
    details = Table.grid(padding=(0, 2))
    details.add_column(style="bold")
    details.add_column()
    details.add_row("goal", str(variant.goal))
    details.add_row("players", f"{variant.players_min} to {variant.players_max}")
    details.add_row("you choose", variant.decision.label)
    details.add_row("ending", variant.endgame_note())
    for row, (setting, value) in enumerate(variant_settings(variant)):
        details.add_row("settings" if row == 0 else "", f"{setting.label}: {setting.words(value)}")
    if variant.aliases:
        details.add_row("also called", ", ".join(variant.aliases))
    for row, source_id in enumerate(variant.sources):
        details.add_row("sources" if row == 0 else "", find_source(source_id).citation)
    console.print(details)
    console.print()
    console.print(_summary_table(variant))
    shown = [dice for dice in variant.choices if len(variant.outcomes(dice)) <= SHOWN_TABLE_ROWS]
    if len(variant.choices) > 3:
        shown = []
    for dice in shown:
        console.print()
        console.print(_outcome_table(variant, dice))
    if len(shown) < len(variant.choices):
        console.print()
        console.print("Every outcome of every number of dice: the JSON form of this command.", style="dim")


def rules_json(variant: Variant) -> dict[str, Any]:
    """Return the JSON of ``pigdice rules --json``: the parameters, the rules in words, every outcome table."""
    data = variant.describe()
    data["rules"] = list(variant.rules)  # the lines ``pigdice rules`` prints
    data["outcomes"] = [
        {"dice": dice, "outcomes": [row.to_json() for row in variant.outcomes(dice)]} for dice in variant.choices
    ]
    return data


@with_variant_options
def rules_command(variant_name: VariantArg, options: VariantOptions, json_out: JsonOpt = False) -> None:
    """Show a variant's rules, endgame and exact outcome table."""
    variant = options.variant(variant_name)
    if json_out:
        emit_json(rules_json(variant))
        return
    print_rules(variant, stdout_console())
