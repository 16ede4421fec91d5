"""Commands on optimal play: ``solve``, ``policy`` and ``hint``."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.table import Table

from pigdice.cli.checks import number_option, output_option, writing
from pigdice.cli.options import (
    GoalOpt,
    JsonOpt,
    ParamOpt,
    VariantArg,
    VariantOptions,
    variant_from_options,
    with_variant_options,
)
from pigdice.cli.output import emit_json, stderr_console, stdout_console
from pigdice.cli.progress import progress_bar
from pigdice.errors import BadParameterError
from pigdice.players.optimal import hint_from_policy
from pigdice.rules.variant import MAX_GOAL, Decision, Variant
from pigdice.solve import Policy, solvable, solve

NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Solve again even if a cached policy exists.")]


def solved(variant: Variant, no_cache: bool = False) -> tuple[Policy, float]:
    """Return the policy of ``variant`` (from the cache unless ``no_cache``) and the seconds it took."""
    started = time.perf_counter()
    with progress_bar() as bar:

        def progress(fraction: float, label: str) -> None:
            bar(fraction, f"solving {variant.name} goal {variant.goal}, {label}")

        policy = solve(variant, use_cache=not no_cache, progress=progress)
    return policy, time.perf_counter() - started


def solve_summary(policy: Policy, seconds: float) -> dict[str, Any]:
    """Return the stable JSON of ``pigdice solve``."""
    return {
        "variant": policy.variant.name,
        "goal": policy.goal,
        "endgame": str(policy.variant.endgame),
        "win_probability_first_player": float(policy.values[0, 0]),
        "start_action": policy.start_action(),
        "states": policy.states,
        "iterations": policy.iterations,
        "residual": policy.residual,
        "seconds": seconds,
        "solve_seconds": policy.seconds,
        "from_cache": policy.from_cache,
    }


@with_variant_options
def solve_command(
    variant_name: VariantArg,
    options: VariantOptions,
    no_cache: NoCacheOpt = False,
    json_out: JsonOpt = False,
) -> None:
    """Compute the policy that maximises the probability of winning (2 players, first to the goal)."""
    variant = solvable(options.variant(variant_name))
    policy, seconds = solved(variant, no_cache)
    summary = solve_summary(policy, seconds)
    if json_out:
        emit_json(summary)
        return
    console = stdout_console()
    table = Table(title=f"{variant.title}, goal {variant.goal} (2 players, first to the goal wins)", show_header=False)
    table.add_column(style="bold")
    table.add_column()
    start = summary["start_action"]
    start_text = f"roll {start} dice" if variant.decision is Decision.DICE_PER_TURN else f"hold at {start}"
    table.add_row("first player wins", f"{summary['win_probability_first_player']:.6f}")
    table.add_row("at 0-0 the optimal player", start_text)
    table.add_row("states", f"{policy.states:,}")
    table.add_row("passes", str(policy.iterations))
    table.add_row("residual", f"{policy.residual:.2e}")
    source = "from the cache" if policy.from_cache else "solved now"
    table.add_row("time", f"{seconds:.3f} s ({source}; solve took {policy.seconds:.3f} s)")
    console.print(table)


def _csv_lines(policy: Policy) -> Iterator[str]:
    """Yield the CSV text of ``policy`` one (score, opponent) block at a time."""
    variant = policy.variant
    goal = policy.goal
    names = [f"roll:{n}" for n in variant.choices] if variant.chooses_dice else ["roll"]
    labels = np.array(["hold", *names], dtype=object)
    for i in range(goal):
        for j in range(goal):
            if variant.decision is Decision.DICE_PER_TURN:
                values = policy.dice_values(i, j)
                best = int(values.argmax())
                cells = ",".join(repr(float(v)) for v in values)
                yield f"{i},{j},dice:{variant.choices[best]},{float(values[best])!r},{cells}\n"
                continue
            row = policy.turn(i, j)
            best_roll = row.rolls.max(axis=0)
            numbers: list[np.ndarray] = [row.win, best_roll, row.hold]
            if variant.chooses_dice:
                numbers.extend(row.rolls)
            lines = []
            for k, (label, *values) in enumerate(zip(labels[row.action], *numbers, strict=True)):  # type: ignore[assignment]
                rest = ",".join(repr(float(v)) for v in values)
                lines.append(f"{i},{j},{k},{label},{rest}\n")
            yield "".join(lines)


def csv_header(variant: Variant) -> list[str]:
    """Return the header of ``pigdice policy --export``."""
    if variant.decision is Decision.DICE_PER_TURN:
        return ["score", "opponent", "action", "win_probability", *(f"dice_{n}_value" for n in variant.choices)]
    header = ["score", "opponent", "turn_total", "action", "win_probability", "roll_value", "hold_value"]
    if variant.chooses_dice:
        header.extend(f"roll_{n}_value" for n in variant.choices)
    return header


def export_csv(policy: Policy, path: Path, show_progress: bool = False) -> int:
    """Write every state of ``policy`` to ``path`` as CSV; return the number of rows."""
    blocks = policy.goal * policy.goal
    with path.open("w", newline="") as handle, progress_bar(show_progress) as bar:
        handle.write(",".join(csv_header(policy.variant)) + "\n")
        for index, block in enumerate(_csv_lines(policy)):
            handle.write(block)
            if index % 100 == 0:
                bar(index / blocks, f"writing {path}")
    return policy.states


def threshold_grid(policy: Policy, step: int) -> Table:
    """Return a table of hold thresholds (or Hog dice counts) by player and opponent score."""
    variant = policy.variant
    hog = variant.decision is Decision.DICE_PER_TURN
    what = "dice the optimal player throws" if hog else "turn total at which the optimal player holds"
    table = Table(
        title=f"{variant.title}, goal {variant.goal}: {what}",
        caption="rows: your score; columns: the opponent's score",
    )
    scores = list(range(0, policy.goal, step))
    table.add_column("you \\ opp", justify="right", style="bold")
    for j in scores:
        table.add_column(str(j), justify="right")
    for i in scores:
        cells = []
        for j in scores:
            if hog:
                cells.append(str(variant.choices[policy.best_choice(i, j, 0) - 1]))
            else:
                cells.append(str(policy.hold_threshold(i, j)))
        table.add_row(str(i), *cells)
    return table


def policy_command(
    variant_name: VariantArg,
    goal: GoalOpt = None,
    param: ParamOpt = None,
    export: Annotated[Path | None, output_option("--export", help="Write every state to this CSV file.")] = None,
    step: Annotated[int, number_option("--step", low=1, high=MAX_GOAL, help="Score step of the printed grid")] = 10,
    no_cache: NoCacheOpt = False,
) -> None:
    """Show the optimal policy as a grid of hold thresholds, or export every state as CSV."""
    variant = solvable(variant_from_options(variant_name, goal, params=param))
    solved_policy, _ = solved(variant, no_cache)
    if export is None:
        stdout_console().print(threshold_grid(solved_policy, step))
        return
    with writing(export):
        rows = export_csv(solved_policy, export, show_progress=sys.stderr.isatty())
    stderr_console().print(f"wrote {rows:,} states to {export}")


def check_state(variant: Variant, score: int, opponent: int, turn_total: int) -> None:
    """Refuse a state the game cannot be in: a score at the goal, or a turn total that already reaches it."""
    goal = variant.goal
    if score >= goal:
        raise BadParameterError(f"--score {score} has already reached the goal {goal}; give 0 to {goal - 1}")
    if opponent >= goal:
        raise BadParameterError(
            f"--opponent {opponent} has already reached the goal {goal} (the game is over); give 0 to {goal - 1}"
        )
    if variant.decision is Decision.DICE_PER_TURN and turn_total:
        raise BadParameterError(f"{variant.name} has no turn total (one throw per turn); leave out --turn-total")
    if score + turn_total >= goal:
        raise BadParameterError(
            f"--turn-total {turn_total} with --score {score} already reaches the goal {goal} (holding wins); "
            f"give a turn total from 0 to {goal - 1 - score}"
        )


def hint_command(
    variant_name: VariantArg,
    score: Annotated[int, number_option("--score", low=0, high=MAX_GOAL - 1, help="Your score (below the goal)")] = 0,
    opponent: Annotated[
        int, number_option("--opponent", low=0, high=MAX_GOAL - 1, help="The highest opponent score (below the goal)")
    ] = 0,
    turn_total: Annotated[
        int,
        number_option(
            "--turn-total", low=0, high=MAX_GOAL - 1, help="Your turn total so far (score + turn total below the goal)"
        ),
    ] = 0,
    goal: GoalOpt = None,
    param: ParamOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Say what the perfect player does in a state, with the win probability of each choice."""
    variant = solvable(variant_from_options(variant_name, goal, params=param))
    check_state(variant, score, opponent, turn_total)
    solved_policy, _ = solved(variant)
    advice = hint_from_policy(solved_policy, score, opponent, turn_total)
    if json_out:
        emit_json(
            {
                "variant": variant.name,
                "goal": variant.goal,
                "score": score,
                "opponent": opponent,
                "turn_total": turn_total,
                **advice.to_json(),
            }
        )
        return
    table = Table(title=f"{variant.title}: you {score}, opponent {opponent}, turn total {turn_total}")
    table.add_column("choice")
    table.add_column("chance to win", justify="right")
    for name, value in sorted(advice.values.items(), key=lambda item: -item[1]):
        marker = "  ← best" if name == advice.best else ""
        table.add_row(name, f"{100 * value:.2f}%{marker}")
    stdout_console().print(table)
