"""Commands on exact analysis and figures: ``analyze`` and ``plot``."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from pigdice import files as files_module
from pigdice.cli.checks import NAME_MAX, OutputError, number_option, output_option, shown, writing
from pigdice.cli.options import GoalOpt, JsonOpt, ParamOpt, VariantArg, variant_from_options
from pigdice.cli.output import emit_json, stdout_console
from pigdice.cli.progress import progress_bar
from pigdice.errors import BadParameterError, BadStrategyError
from pigdice.rules.variant import MAX_GOAL, Decision, Variant
from pigdice.study.question_limits import MAX_QUESTION_PLAYERS

FIGURE_GOAL = 2  # the smallest goal whose figures can be drawn (a 2 x 2 grid of scores)
FIGURE_NAME_ROOM = 24  # bytes a figure's name adds to the report's, e.g. "-turn-score.html"
MAX_VARIANTS = 20  # variants compared side by side in one command (there are fewer than 20 to compare)
STILL_PLAYING = 1e-6  # an analysis whose games are unfinished with more probability than this is refused


def _check_figures(variants: list[Variant], what: str) -> None:
    """Refuse figures for a goal too small to draw."""
    small = [v for v in variants if v.goal < FIGURE_GOAL]
    if small:
        raise BadParameterError(
            f"{what} need a goal of at least {FIGURE_GOAL}; {small[0].name} has goal {small[0].goal}"
        )


def _check_report_name(out: Path) -> None:
    """Refuse a report name too long for the figure files written next to it (NAME-boundary.png, ...)."""
    if len(out.stem.encode("utf-8", "surrogateescape")) + FIGURE_NAME_ROOM > NAME_MAX:
        raise OutputError(
            f"--out {shown(out.name)}: the name is too long for the figures written next to it "
            f"(NAME-turn-score.png, ...); keep it under {NAME_MAX - FIGURE_NAME_ROOM} bytes"
        )


def _check_game_ends(tails: list[float], names: tuple[str, str], goal: int) -> None:
    """Refuse an analysis whose games do not end (the chain stopped with games still going)."""
    left = max(tails)
    if left <= STILL_PLAYING:
        return
    a, b = names
    who = f"{a} against itself" if a == b else f"{a} against {b}"
    if left > 1 - STILL_PLAYING:
        why = f"no game of {who} ever ends: nobody banks the points to reach the goal {goal}"
    else:
        why = f"{100 * left:.4g}% of games of {who} never end (nobody reaches the goal {goal})"
    raise BadStrategyError(f"{why}; pick strategies that hold with points")


def _emitted(
    to_json: Callable[..., dict[str, Any]],
    text: Callable[[], str],
    files: list[Path],
    json_out: bool,
    arrays: bool,
    out: Path | None,
    fmt: str | None,
) -> bool:
    """Print the answer as JSON (with the files written) or as report text if asked; return True if printed."""
    if json_out:
        data = to_json(arrays=arrays)
        if files:
            data["files"] = [str(path) for path in files]
        emit_json(data)
        return True
    if out is None and fmt is not None:
        typer.echo(text())
        return True
    return False


def _strategy_list(text: str) -> list[str]:
    items = [s.strip() for s in text.split(",")]
    if not 1 <= len(items) <= 2 or not all(items):
        raise BadParameterError(f"--strategies takes one or two strategies (A or A,B), got {text!r}")
    return items


def analyze_command(
    variant_name: VariantArg,
    goal: GoalOpt = None,
    strategies: Annotated[
        str,
        typer.Option(
            "--strategies",
            help="One strategy (both play it) or two, A,B: optimal, hold:N, dice:N, hold:N+dice:D.",
        ),
    ] = "optimal",
    fmt: Annotated[
        str | None, typer.Option("--format", help="Report format: md or html (default: from --out, else md).")
    ] = None,
    out: Annotated[
        Path | None, output_option("--out", help="Write the report here, with its PNG figures next to it.")
    ] = None,
    param: ParamOpt = None,
    arrays: Annotated[
        bool, typer.Option("--arrays", help="Add per-state arrays to the JSON (turn scores, turn starts).")
    ] = False,
    questions: Annotated[
        bool,
        typer.Option(
            "--questions",
            help="Answer the open questions of Neller & Presser's Pigtail (2005) instead: the first player's "
            "chance under every ending, by how much players go past the goal, the last player's target, "
            "3+ players, how good the 2-player approximation is.",
        ),
    ] = False,
    most_players: Annotated[
        int | None,
        number_option(
            "--players",
            low=2,
            high=MAX_QUESTION_PLAYERS,
            help="With --questions: answer for up to this many players (default 3; 4 takes minutes)",
        ),
    ] = None,
    players_goal: Annotated[
        int | None,
        number_option(
            "--players-goal",
            low=1,
            high=MAX_GOAL,
            help="With --questions: the goal of the games of 3 or more players (default: the variant's, "
            "lowered to the largest whose arrays fit in 4 GiB)",
        ),
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Exact first-player advantage, game length, scoring turns and state visits (no simulation).

    VARIANT may list several variants (pig,hog,piggy) for a side-by-side comparison. With
    --questions: the open questions of Neller & Presser's Pigtail (2005) (endings, by how much, 3+
    players) answered exactly.
    """
    from pigdice.study.analysis import analyze as run_analysis
    from pigdice.study.report import format_from, per_player_rows, report_text, summary_rows, write_report

    variants = _variants(variant_name, goal, param)
    report_format = format_from(out, fmt)
    if questions:
        if len(variants) > 1:
            raise BadParameterError("--questions answers for one variant at a time; name just one")
        if strategies.strip().lower() != "optimal":
            raise BadParameterError("--questions is about optimal play; drop --strategies")
        _questions(variants[0], most_players, players_goal, out, fmt, report_format, json_out, arrays)
        return
    for option, given in (("--players", most_players), ("--players-goal", players_goal)):
        if given is not None:
            raise BadParameterError(f"{option} goes with --questions (the open questions for 3 or more players)")
    specs = _strategy_list(strategies)
    if any(v.is_simultaneous for v in variants):
        _swine_herd(variants, specs, out, fmt, report_format, json_out, arrays)
        return
    if len(variants) > 1:
        _compare(variants, specs, out, fmt, report_format, json_out, arrays)
        return
    if out is not None:
        _check_figures(variants, "a report's figures")
        _check_report_name(out)
    with progress_bar() as bar:
        analysis = run_analysis(variants[0], specs, progress=bar)
        _check_game_ends([s.tail for s in analysis.seatings], analysis.names, analysis.variant.goal)
        files: list[Path] = []
        if out is not None:
            with writing(out):
                files = write_report(analysis, out, report_format, progress=bar)
    if _emitted(analysis.to_json, lambda: report_text(analysis, report_format), files, json_out, arrays, out, fmt):
        return
    console = stdout_console()
    v = analysis.variant
    title = f"{v.title}, goal {v.goal}: " + (
        f"{specs[0]} against itself" if analysis.same_strategy else f"{analysis.names[0]} against {analysis.names[1]}"
    )
    table = Table(title=title, title_style="bold", show_header=False)
    table.add_column(style="bold")
    table.add_column()
    for name, value in summary_rows(analysis):
        table.add_row(name, value)
    table.add_row("time", f"{analysis.seconds:.2f} s (exact: forward propagation of the chain of turns)")
    console.print(table)
    players = Table(title="Per player, expected per game", title_style="bold")
    from pigdice.study.report import PER_PLAYER_HEADER

    for header in PER_PLAYER_HEADER:
        players.add_column(header, justify="left" if header in ("seat", "strategy") else "right")
    for row in per_player_rows(analysis):
        players.add_row(*row)
    console.print(players)
    if analysis.original_endgame is not analysis.variant.endgame:
        console.print(
            f"Analysed with the first-to-goal ending (as Neller & Presser do); {v.name}'s own ending is "
            f"{analysis.original_endgame}.",
            style="dim",
        )
    if files:
        console.print(f"Wrote {files[0]} and {len(files) - 1} figures next to it.")
    else:
        console.print(f"Report with figures: pigdice analyze {v.name} --out report.md (or .html)", style="dim")


def _one_simultaneous(variants: list[Variant], what: str) -> Variant:
    """Return the one Swine Herd variant of ``variants``, or refuse a mix with other games."""
    if len(variants) > 1:
        herd = next(v for v in variants if v.is_simultaneous)
        raise BadParameterError(
            f"{herd.name} is played by everyone at once on shared rolls; {what} it on its own, not with other games"
        )
    return variants[0]


def _swine_herd(
    variants: list[Variant],
    specs: list[str],
    out: Path | None,
    fmt: str | None,
    report_format: str,
    json_out: bool,
    arrays: bool,
) -> None:
    """Analyse 2-player Swine Herd exactly: a table, JSON, or a report with its picture next to it."""
    from pigdice.study.analysis.swineherd import (
        VALUE_HEADER,
        analyze_swine_herd,
        notes,
        report_text,
        summary_rows,
        value_rows,
        who,
    )
    from pigdice.study.plots.swineherd import plot_swine_herd

    variant = _one_simultaneous(variants, "analyze")
    if out is not None:
        _check_figures([variant], "a report's figures")
        _check_report_name(out)
    files: list[Path] = []
    with progress_bar() as bar:
        bar(0.0, "solving the best play")
        analysis = analyze_swine_herd(variant, specs)
        if out is not None:
            bar(0.9, "drawing")
            with writing(out):
                picture = out.with_name(f"{out.stem}-sit.png")
                plot_swine_herd(variant, picture, policy=analysis.policy)
                files_module.write_text(out, report_text(analysis, report_format, picture.name))
            files = [out, picture]
        bar(1.0, "done")
    if _emitted(analysis.to_json, lambda: report_text(analysis, report_format), files, json_out, arrays, out, fmt):
        return
    console = stdout_console()
    table = Table(title=f"{variant.title}, goal {variant.goal}: {who(analysis)}", title_style="bold", show_header=False)
    table.add_column(style="bold")
    table.add_column()
    for name, value in summary_rows(analysis):
        table.add_row(name, value)
    console.print(table)
    values = Table(title="Best play by both: your chance at the start of a turn", title_style="bold")
    for header in VALUE_HEADER:
        values.add_column(header, justify="right")
    for row in value_rows(analysis):
        values.add_row(*row)
    console.print(values)
    for line in notes(analysis):
        console.print(line, style="dim")
    if files:
        console.print(f"Wrote {files[0]} and its picture {files[1]}.")
    else:
        console.print(
            f"Report with its picture: pigdice analyze {variant.name} --out report.md (or .html)", style="dim"
        )


def _questions(
    variant: Variant,
    players: int | None,
    players_goal: int | None,
    out: Path | None,
    fmt: str | None,
    report_format: str,
    json_out: bool,
    arrays: bool,
) -> None:
    """Answer Pigtail's open questions for one variant: tables, JSON or a report with figures."""
    from pigdice.study.analysis.questions import open_questions
    from pigdice.study.questions_report import questions_text, write_questions_report

    most = 3 if players is None else players
    if players_goal is not None and most < 3:
        raise BadParameterError("--players-goal is the goal of the games of 3 or more players: add --players 3 or more")
    if out is not None:
        _check_figures([variant], "a report's figures")
        _check_report_name(out)
    with progress_bar() as bar:
        answers = open_questions(variant, most, players_goal, progress=bar)
        files: list[Path] = []
        if out is not None:
            with writing(out):
                files = write_questions_report(answers, out, report_format, progress=bar)
    if _emitted(answers.to_json, lambda: questions_text(answers, report_format), files, json_out, arrays, out, fmt):
        return
    _print_questions(answers)
    console = stdout_console()
    if files:
        console.print(f"Wrote {files[0]} and {len(files) - 1} figures next to it.")
    else:
        console.print(
            f"Report with figures: pigdice analyze {variant.name} --questions --out report.md (or .html)", style="dim"
        )


def _print_questions(answers: Any) -> None:
    """Print the open questions' answers as rich tables."""
    from pigdice.study import questions_report as qr

    console = stdout_console()
    v = answers.variant

    def table(title: str, header: list[str], rows: list[list[str]]) -> None:
        shown_table = Table(title=title, title_style="bold")
        for index, name in enumerate(header):
            shown_table.add_column(name, justify="left" if index == 0 or not rows else "right")
        for row in rows:
            shown_table.add_row(*row)
        console.print(shown_table)

    table(f"{v.title}, goal {v.goal}: the first player's chance, 2 players", qr.ENDING_HEADER, qr.ending_rows(answers))
    if answers.margins:
        table("By how much past the goal (the player who can reach it)", qr.MARGIN_HEADER, qr.margin_rows(answers))
    if answers.last_turns:
        table("The last player's target (read from the policy)", qr.LAST_TURN_HEADER, qr.last_turn_rows(answers))
    for answer in answers.players:
        n = answer.players
        table(f"{n} players, {answer.goal_note}: each seat's chance", qr.seat_header(n), qr.players_rows(answer))
        if answer.approximation is not None:
            table(
                f"{n} players: one seat plays the 2-player policy against the highest score",
                qr.APPROXIMATION_HEADER,
                qr.approximation_rows(answer.approximation),
            )
            console.print(qr.approximation_note(answer.approximation), style="dim")
        elif answer.reason:
            console.print(f"{n} players: the approximation is not measured: {answer.reason}", style="dim")
    console.print(f"Pigtail's open questions, answered exactly in {answers.seconds:.1f} s.", style="dim")


def _compare(
    variants: list[Variant],
    specs: list[str],
    out: Path | None,
    fmt: str | None,
    report_format: str,
    json_out: bool,
    arrays: bool,
) -> None:
    """Analyse several variants with the same strategies and compare them side by side."""
    from pigdice.study.analysis import analyze as run_analysis
    from pigdice.study.report import COMPARISON_HEADER, comparison_rows, comparison_text

    analyses = []
    with progress_bar() as bar:
        for variant in variants:

            def report(fraction: float, what: str, name: str = variant.name) -> None:
                bar(fraction, f"{name}: {what}")

            analysis = run_analysis(variant, specs, progress=report)
            _check_game_ends([s.tail for s in analysis.seatings], analysis.names, analysis.variant.goal)
            analyses.append(analysis)
    if out is not None:
        with writing(out):
            files_module.write_text(out, comparison_text(analyses, report_format))
    if json_out:
        emit_json([a.to_json(arrays=arrays) for a in analyses])
        return
    if out is None and fmt is not None:
        typer.echo(comparison_text(analyses, report_format))
        return
    table = Table(title=f"Exact comparison: {', '.join(analyses[0].names)}", title_style="bold")
    for header in COMPARISON_HEADER:
        table.add_column(header, justify="left" if header in ("variant", "opening") else "right")
    for row in comparison_rows(analyses):
        table.add_row(*row)
    console = stdout_console()
    console.print(table)
    console.print(
        "Neller & Presser (Pigtail, 2005): variants won in four or five scoring turns are much more popular "
        "than those won in two.",
        style="dim",
    )
    if out is not None:
        console.print(f"Wrote {out}.")


def _variants(names: str, goal: int | None, param: list[str] | None) -> list[Variant]:
    items = [n.strip() for n in names.split(",")]
    if not all(items):
        raise BadParameterError(f"empty variant name in {shown(names)}")
    if len(items) > MAX_VARIANTS:
        raise BadParameterError(f"give at most {MAX_VARIANTS} variants side by side, not {len(items)}")
    return [variant_from_options(name, goal, params=param) for name in items]


def plot_command(
    kind: Annotated[
        str,
        typer.Argument(
            metavar="KIND", help="boundary | slice | hog | turn-score | win (see the list below).", show_default=False
        ),
    ],
    variant_name: Annotated[
        str,
        typer.Argument(
            metavar="VARIANT", help="Variant name or alias; turn-score takes up to three: pig,hog.", show_default=False
        ),
    ],
    out: Annotated[Path, output_option("--out", help="F.png (matplotlib) or F.html (interactive plotly, offline).")],
    goal: GoalOpt = None,
    opponent: Annotated[
        int, number_option("--opponent", low=0, high=MAX_GOAL - 1, help="Opponent score for the slice (below the goal)")
    ] = 0,
    param: ParamOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Draw the perfect player: boundary (3D), slice, hog (dice map), turn-score, win.

    boundary: roll/hold boundary surface (Pigtail, Figures 1-8); slice: hold threshold and win
    probability against the player's score at one opponent score; hog: dice-count map (Figure 9);
    turn-score: expected points per turn (Figure 10); win: win probability at turn total 0.
    """
    from pigdice.study.plots import FORMATS, KINDS
    from pigdice.study.plots import plot as draw

    name = kind.strip().lower()
    if name not in KINDS:
        raise BadParameterError(f"unknown plot kind {kind!r}; use one of: {', '.join(KINDS)}")
    if out.suffix.lower() not in FORMATS:
        raise BadParameterError(f"--out must end in .png or .html, not {out.name!r}")
    variants = _variants(variant_name, goal, param)
    _check_figures(variants, "figures")
    if opponent < 0 or any(opponent >= v.goal for v in variants):
        raise BadParameterError(f"--opponent must be from 0 to {min(v.goal for v in variants) - 1}, got {opponent}")
    if any(v.is_simultaneous for v in variants):
        _plot_swine_herd(name, _one_simultaneous(variants, "draw"), out, opponent, json_out)
        return
    if name == "boundary" and variants[0].decision is Decision.DICE_PER_TURN:
        raise BadParameterError(
            f"{variants[0].name} has no hold (one throw per turn): draw its dice map with "
            f"`pigdice plot hog {variants[0].name} --out ...`"
        )
    started = time.perf_counter()
    with progress_bar() as bar, writing(out):
        figure = draw(name, variants, out, opponent, progress=bar)
    _wrote_figure(name, variants, out, figure.title, figure.note, time.perf_counter() - started, json_out)


def _wrote_figure(
    kind: str, variants: list[Variant], out: Path, title: str, note: str, seconds: float, json_out: bool
) -> None:
    """Say what ``pigdice plot`` wrote: its JSON, or a line for people (and the figure's note)."""
    if json_out:
        emit_json(
            {
                "kind": kind,
                "variants": [v.name for v in variants],
                "goal": variants[0].goal,
                "out": str(out),
                "format": out.suffix.lower().lstrip("."),
                "bytes": out.stat().st_size,
                "title": title,
                "note": note,
                "seconds": seconds,
            }
        )
        return
    console = stdout_console()
    console.print(f"Wrote {out} ({out.stat().st_size / 1024:.0f} KiB): {title}")
    if note:
        console.print(note, style="dim")


def _plot_swine_herd(kind: str, variant: Variant, out: Path, other: int, json_out: bool) -> None:
    """Draw when to sit in 2-player Swine Herd (boundary: in 3D with a slice; slice: the slice alone)."""
    from pigdice.study.plots.swineherd import KINDS as SWINE_HERD_KINDS
    from pigdice.study.plots.swineherd import plot_swine_herd

    if kind not in SWINE_HERD_KINDS:
        raise BadParameterError(
            f"{variant.name} is played by everyone at once; draw it with {' or '.join(SWINE_HERD_KINDS)}, not {kind}"
        )
    started = time.perf_counter()
    with progress_bar() as bar, writing(out):
        bar(0.0, "solving the best play")
        picture = plot_swine_herd(variant, out, kind, other)
        bar(1.0, "done")
    _wrote_figure(kind, [variant], out, picture.title, picture.note, time.perf_counter() - started, json_out)
