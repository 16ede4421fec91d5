"""The game-record commands: ``replay``, ``review`` and ``verify`` a saved game (``play --save FILE``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table
from rich.text import Text

from pigdice.cli.exitcodes import EXIT_FAILED
from pigdice.cli.output import emit_json, stdout_console
from pigdice.errors import BadParameterError
from pigdice.rules.variant import Variant

if TYPE_CHECKING:
    from rich.console import Console

    from pigdice.study.review import Review

RecordArg = Annotated[
    Path,
    typer.Argument(
        metavar="FILE",
        help="A game record: saved by `pigdice play` (see --save) or downloaded from the web app.",
        dir_okay=False,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


def check_reviewable(variant: Variant, players: int) -> None:
    """Raise BadParameterError if reviewing a game of ``variant`` with ``players`` would need a solve past the cost
    model's bounds (the web server's: seconds to a minute), before any solving: a record may name any goal."""
    from pigdice.solve.cost import SolveBounds, exact_refusal
    from pigdice.solve.exact import exactness

    if exactness(variant, players) is None:
        solved = (variant, players)
    else:  # the perfect player's approximation reads the 2-player solve
        solved = (variant, 2) if variant.is_simultaneous else (variant.roll_hold_form(), 2)
    if exactness(*solved) is not None:
        return
    reason = exact_refusal(*solved, SolveBounds(), where="a review")
    if reason is not None:
        raise BadParameterError(f"this game is too large to review: {reason}")


def replay_command(
    record_file: RecordArg,
    pause: Annotated[
        float, typer.Option("--pause", metavar="SECONDS", min=0, max=10, help="Seconds between moves (0 to 10).")
    ] = 0.0,
) -> None:
    """Show a saved game move by move, exactly as it was played."""
    from pigdice.engine.record import load_record
    from pigdice.terminal.records import replay_record_in_terminal

    code = replay_record_in_terminal(load_record(record_file), pause=pause)
    if code:
        raise typer.Exit(code)


def review_command(record_file: RecordArg, as_json: JsonOpt = False) -> None:
    """Review a saved game against the perfect player: what each decision gave away, the luck, the rating."""
    from pigdice.cli.progress import progress_bar
    from pigdice.engine.record import load_record
    from pigdice.players.defaults import robot_title
    from pigdice.players.optimal import Optimal
    from pigdice.study.review import MARKS, describe_decision, review_record, summary_line

    record = load_record(record_file)
    check_reviewable(record.build_variant(), record.players)  # the goal and players, before any solve
    with progress_bar(enabled=not as_json) as bar:
        perfect = Optimal(record.build_variant(), progress=bar, in_worker=True)  # Ctrl-C stops a solve at once
        review = review_record(record, perfect, progress=lambda fraction: bar(fraction, "reviewing the decisions"))
    if as_json:
        emit_json(review.to_json())
        return
    console = stdout_console()
    players = [seat.name if seat.kind == "human" else robot_title(seat.name, seat.spec) for seat in record.seats]
    console.print(Text("Players: " + " · ".join(players)))
    marks = ", ".join(f"{name} {100 * least:.0f}+ points" for name, least in reversed(MARKS))
    console.print(Text(f"Every decision, the mover's chance to win after each option ({marks} given away):"))
    table = Table(box=None, padding=(0, 1), header_style="bold")
    for column in ("move", "player", "scores", "turn", "chose", "best", "given away", ""):
        table.add_column(column, justify="right" if column in ("move", "turn", "given away") else "left")
    for decision in review.decisions:
        style = {"blunder": "bold red", "mistake": "red", "inaccuracy": "yellow"}.get(decision.mark or "", "")
        best = decision.values[decision.best]
        lost = "" if decision.loss is None else f"{100 * decision.loss:.2f}%"
        table.add_row(
            str(decision.move),
            review.names[decision.seat],
            "-".join(map(str, decision.scores)),
            str(decision.turn_total),
            decision.taken,
            f"{decision.best} {100 * best:.1f}%",
            lost,
            decision.mark or "",
            style=style,
        )
    console.print(table)
    for summary in review.seats:
        console.print(Text(summary_line(summary, review.names)))
    worst = [d for d in review.decisions if d.mark == "blunder"][:3]
    for decision in worst:
        console.print(Text(f"  blunder: {describe_decision(decision, review.names)}", style="red"))
    print_luck_and_skill(console, review)
    if review.approximate:
        console.print(Text(f"approximate: {review.approximate}", style="dim"))


def print_luck_and_skill(console: Console, review: Review) -> None:
    """Print each seat's luck against skill and Performance Rating, and the luckiest and unluckiest rolls."""
    from pigdice.study.review import luck_line, rating_line

    console.print(Text("Luck and skill", style="bold"))
    for summary in review.seats:
        line = luck_line(review, summary.seat)
        if line is not None:
            console.print(Text(line))
        console.print(Text(rating_line(summary)))
    luck = review.luck
    if luck is None:
        console.print(Text("Luck is measured only where the perfect player's values are exact.", style="dim"))
        return
    for summary in review.seats:
        for word, roll in (("luckiest", luck.luckiest(summary.seat)), ("unluckiest", luck.unluckiest(summary.seat))):
            if roll is not None:
                thrower = "the shared die showed" if roll.seat < 0 else f"{review.names[roll.seat]} rolled"
                whose = "Your" if summary.name == "You" else f"{summary.name}'s"
                points = f"{100 * roll.luck[summary.seat]:+.1f} points"
                console.print(Text(f"  {whose} {word} roll: move {roll.move}, {thrower} {roll.throw} ({points})"))
    console.print(Text(f"Measured in {luck.values}; for every seat result = start + luck - error.", style="dim"))


def verify_command(record_file: RecordArg, as_json: JsonOpt = False) -> None:
    """Check that a saved game's dice are fair: the commitment, every throw from the seed, and the faces seen."""
    from pigdice.engine.fairness import verify_and_count
    from pigdice.engine.record import load_record

    record = load_record(record_file)
    record.build_variant()  # a game that cannot be rebuilt is a bad record (one error line), not a failed check
    verification, statistics = verify_and_count(record)  # one replay, however long the game
    if as_json:
        emit_json({**verification.to_json(), "dice": None if statistics is None else statistics.to_json()})
    else:
        console = stdout_console()
        promise = {
            "matches": "the revealed seed is the one promised before the game (SHA-256 commitment matches)",
            "does not match": "the revealed seed is NOT the one promised before the game",
            "none": "no commitment was made before this game (a terminal game shows its seed at the start)",
            "secret": "the seed is still secret: the game has not ended",
        }[verification.commitment]
        console.print(Text(f"commitment: {promise}"))
        console.print(
            Text(f"replayed {verification.moves_checked} moves, {verification.throws_checked} throws from the seed")
        )
        for problem in verification.problems:
            console.print(Text(f"problem: {problem}", style="red"))
        if statistics is not None:
            table = Table(box=None, padding=(0, 1), header_style="bold")
            for column in ("die", "face", "seen", "expected"):
                table.add_column(column, justify="left" if column in ("die", "face") else "right")
            for row in statistics.faces:
                table.add_row(row.die, row.face, str(row.seen), f"{row.expected:.1f}")
            console.print(table)
            p_value = "not enough throws to test" if statistics.p_value is None else f"p = {statistics.p_value:.3f}"
            console.print(
                Text(
                    f"chi-square {statistics.chi_square:.2f} on {statistics.degrees_of_freedom} degrees of freedom, "
                    f"{p_value} (the chance that fair dice look at least this uneven)"
                )
            )
            for note in statistics.notes:
                console.print(Text(note, style="dim"))
        console.print(Text("verified: the dice are the seed's" if verification.ok else "NOT verified", style="bold"))
    if not verification.ok:
        raise typer.Exit(EXIT_FAILED)
