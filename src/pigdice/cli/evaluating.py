"""The ``evaluate`` command: any agent's exact chance against the perfect player, its gap and its costliest choices."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table
from rich.text import Text

from pigdice.cli.checks import number_option
from pigdice.cli.options import NO_OPTIONS, JsonOpt, VariantOpt, VariantOptions, with_variant_options
from pigdice.cli.output import emit_json, percent, stdout_console
from pigdice.cli.progress import progress_bar
from pigdice.errors import BadStrategyError
from pigdice.solve.background import Progress, run_in_worker

if TYPE_CHECKING:
    from pigdice.rules.variant import Variant
    from pigdice.study.agent_evaluation import AgentEvaluation

MAX_EVALUATE_PLAYERS = 10


@with_variant_options
def evaluate_command(
    agent: Annotated[
        str,
        typer.Argument(
            metavar="AGENT",
            help="The agent: a strategy (hold:20, keep-pace, level:3, py:mine.py:f), an action table "
            "file (.npy or .npz: roll 1, hold 0, indexed [my score, other score, turn total]) or a saved "
            "Stable-Baselines3 model (sb3:model.zip: PPO, A2C, DQN or MaskablePPO trained on a pigdice "
            "environment at this goal; its greedy choice at every position is evaluated) or a saved OpenSpiel "
            "TabularPolicy of pig or python_pigdice keyed by positions (openspiel:policy.txt, the text of "
            "pyspiel.TabularPolicy.serialize()).",
        ),
    ],
    variant_name: VariantOpt = "pig",
    against: Annotated[
        str, typer.Option("--against", metavar="STRATEGY", help="The opponent (default: the perfect player).")
    ] = "optimal",
    options: VariantOptions = NO_OPTIONS,
    players: Annotated[
        int,
        number_option(
            "--players", low=2, high=MAX_EVALUATE_PLAYERS, help="Players in the game (3+: all others perfect)"
        ),
    ] = 2,
    json_out: JsonOpt = False,
) -> None:
    """Give an agent's exact chance to win against the perfect player, the gap, and where it loses most."""
    variant = options.variant(variant_name)
    variant.check_players(players)
    for spec in (agent, against):
        check_agent(spec, variant)  # bad input is refused here, before any work
    with progress_bar(enabled=not json_out) as bar:  # in a worker process: Ctrl-C stops it at once
        result = run_in_worker(evaluation_work, (agent, variant, against, players), bar)
    if json_out:
        emit_json(result.to_json())
        return
    print_evaluation(result)


def check_agent(text: str, variant: Variant) -> None:
    """Raise a PigdiceError unless ``text`` names a strategy, a readable action table or model for ``variant``."""
    from pigdice.players.specs import parse_strategy
    from pigdice.study.agent_tables import is_table_file, read_table_file
    from pigdice.study.openspiel_policies import is_policy_file_spec, read_policy_file
    from pigdice.study.saved_models import is_model_spec, load_model

    if not text.strip():
        raise BadStrategyError("name an agent: a strategy such as hold:20, or an action table file")
    saved = is_policy_file_spec(text) or is_model_spec(text)
    if saved and variant.is_simultaneous:
        raise BadStrategyError(f"{variant.name} is played by everyone at once: a saved model is not evaluated")
    if is_policy_file_spec(text):
        read_policy_file(text, variant.roll_hold_form().first_to_goal())
    elif is_model_spec(text):
        load_model(text, variant.roll_hold_form())
    elif is_table_file(text):
        read_table_file(text, variant.roll_hold_form())
    else:
        parse_strategy(text, variant)


def evaluation_work(agent: str, variant: Variant, against: str, players: int, progress: Progress) -> AgentEvaluation:
    """Evaluate ``agent`` exactly against ``against``: the worker of ``evaluate``."""
    from pigdice.study.agent_evaluation import evaluate

    return evaluate(agent, variant, against, players=players, progress=progress)


def print_evaluation(result: AgentEvaluation) -> None:
    """Print an evaluation for people: the chances by seat, the gap, the shared choices and the costliest ones."""
    console = stdout_console()
    game = f"{result.variant.name} to {result.variant.goal}"
    if result.players > 2:
        game += f" with {result.players} players"
    console.print(Text(f"{result.agent} against {result.opponent} in {game}:"))
    table = Table(box=None, padding=(0, 1), header_style="bold")
    for column in ("seat", result.agent, "the perfect player in its place", "gap"):
        table.add_column(column, justify="left" if column == "seat" else "right")
    seats = [("moving first" if s == 0 else f"seat {s + 1}") for s in range(result.players)]
    if result.players == 2:
        seats[1] = "moving second"
    rows = zip(seats, result.seats, result.perfect_seats, strict=True)
    for name, mine, perfect in rows:
        table.add_row(name, percent(mine), percent(perfect), f"{100 * (perfect - mine):.2f} points")
    table.add_row(
        "both seats", percent(result.average), percent(result.perfect_average), f"{100 * result.gap:.2f} points"
    )
    console.print(table)
    if result.same_choice_share is not None:
        console.print(
            Text(f"It chooses as well as the perfect player in {percent(result.same_choice_share)} of its decisions ")
            + Text(f"(counting {result.share_basis}).", style="dim")
        )
    if result.costly:
        print_costly(result)
    for note in result.notes:
        console.print(Text(f"Note: {note}.", style="dim"))
    if result.exact:
        console.print(Text("Every figure is exact, not simulated.", style="dim"))


def print_costly(result: AgentEvaluation) -> None:
    """Print the positions where the agent gives away most."""
    console = stdout_console()
    per_game = result.costly[0].reached is not None
    title = "Where it gives away most" + (" (reached: times per game, both seats averaged):" if per_game else ":")
    console.print(Text(title))
    table = Table(box=None, padding=(0, 1), header_style="bold")
    columns = ["score", "other", "turn total", "chose", "best", "loses there"]
    if per_game:
        columns += ["reached", "loses per game"]
    for column in columns:
        table.add_column(column, justify="left" if column in ("chose", "best") else "right")
    for spot in result.costly:
        row = [str(spot.score), str(spot.opponent), str(spot.turn_total), spot.choice, spot.perfect]
        row.append(percent(spot.chance_lost))
        if spot.reached is not None and spot.expected_loss is not None:
            row += [f"{spot.reached:.4f}", f"{100 * spot.expected_loss:.4f}%"]
        table.add_row(*row)
    console.print(table)
