"""The analysis report: a Markdown or HTML page with its figures written next to it."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Decision
from pigdice.solve.actions import hold_thresholds
from pigdice.study.analysis import Analysis

REPORT_FORMATS = ("md", "html")


def format_from(path: Path | None, fmt: str | None) -> str:
    """Return the report format: the one asked for, else the file's suffix, else Markdown."""
    if fmt is not None:
        text = fmt.strip().lower().lstrip(".")
        text = {"markdown": "md", "htm": "html"}.get(text, text)
        if text not in REPORT_FORMATS:
            raise BadParameterError(f"--format must be md or html, not {fmt!r}")
        return text
    if path is not None and path.suffix.lower() in (".html", ".htm"):
        return "html"
    return "md"


def _who(analysis: Analysis) -> str:
    a, b = analysis.names
    return f"{a} against itself" if a == b else f"{a} (A) against {b} (B)"


def _opening(analysis: Analysis) -> str:
    """Return strategy A's first move at 0-0 as text ('hold at 21', 'dice 6', ...)."""
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in analysis.opening().items())


def summary_rows(analysis: Analysis) -> list[tuple[str, str]]:
    """Return the headline results as (measure, value) rows for tables."""
    rows: list[tuple[str, str]] = []
    seatings = analysis.seatings
    if analysis.same_strategy:
        p = seatings[0].p_first_wins
        rows.append(("P(first player wins)", f"{p:.6f}"))
    else:
        a, b = analysis.names
        rows.append((f"P(first wins), {a} first", f"{seatings[0].p_first_wins:.6f}"))
        rows.append((f"P(first wins), {b} first", f"{seatings[1].p_first_wins:.6f}"))
        rows.append((f"P({a} wins), half the games first", f"{analysis.a_win_rate:.6f}"))
    advantage = analysis.first_player_advantage
    rows.append(("first-player advantage", f"{advantage:+.6f}"))
    if analysis.policy is not None and analysis.same_strategy:
        rows.append(("solver's V(0,0) - 1/2", f"{analysis.policy.values[0, 0] - 0.5:+.6f}"))
    for seating in seatings:
        label = "" if analysis.same_strategy else f" ({seating.first} first)"
        rows.append(
            (
                f"game length, turns{label}",
                f"mean {seating.mean_length:.3f}, sd {seating.sd_length:.2f}, "
                f"median {seating.length_quantile(0.5)}, 90% by {seating.length_quantile(0.9)}",
            )
        )
    a_scoring, b_scoring = analysis.scoring_turns
    if analysis.same_strategy:
        first = seatings[0]
        rows.append(
            (
                "scoring turns per player",
                f"first {first.stat(0, 'scoring_turns'):.3f}, second {first.stat(1, 'scoring_turns'):.3f}",
            )
        )
    else:
        rows.append(
            ("scoring turns per game", f"{analysis.names[0]} {a_scoring:.3f}, {analysis.names[1]} {b_scoring:.3f}")
        )
    rows.append(("winner's scoring turns", f"{analysis.winner_scoring_turns:.3f}"))
    rows.append(("opening (A at 0-0)", _opening(analysis)))
    rows.append(("turn score at 0-0 (A)", f"{analysis.turns[0].banked[0, 0]:.3f}"))
    rows.append(("tail probability", f"{max(s.tail for s in seatings):.1e}"))
    return rows


def per_player_rows(analysis: Analysis) -> list[list[str]]:
    """Return per-seat expected totals per game: seat, strategy, turns, scoring turns, points, busts, resets, rolls."""
    rows = []
    for seating in analysis.seatings:
        for seat, who in enumerate((seating.first, seating.second)):
            rows.append(
                [
                    "first" if seat == 0 else "second",
                    who,
                    f"{seating.stat(seat, 'turns'):.3f}",
                    f"{seating.stat(seat, 'scoring_turns'):.3f}",
                    f"{seating.stat(seat, 'points_banked'):.2f}",
                    f"{seating.stat(seat, 'busts'):.3f}",
                    f"{seating.stat(seat, 'resets'):.4f}",
                    f"{seating.stat(seat, 'rolls'):.2f}",
                ]
            )
    return rows


PER_PLAYER_HEADER = ["seat", "strategy", "turns", "scoring turns", "points banked", "busts", "resets", "rolls"]


def endgame_note(analysis: Analysis) -> str:
    """Return the sentence on the ending analysed."""
    if str(analysis.original_endgame) == str(analysis.variant.endgame):
        return "First to reach the goal wins."
    return (
        f"The variant's own ending is {analysis.original_endgame}; like Neller & Presser's Pigtail (2005) and "
        "the solver, the analysis uses first-to-goal: the first to reach the goal wins."
    )


def make_figures(analysis: Analysis, folder: Path, stem: str, interactive: bool = False) -> dict[str, Path]:
    """Write the report's figures as PNG files in ``folder``; return them by name."""
    from pigdice.study import plots

    variant = analysis.variant
    figures: dict[str, Path] = {}
    title = f"{variant.title} (goal {variant.goal}): {_who(analysis)}"

    def save(name: str, figure: plots.Figure) -> None:
        path = folder / f"{stem}-{name}.png"
        plots.save_figure(figure, path)
        figures[name] = path

    entries = [
        (seating.first + " first" if not analysis.same_strategy else "", seating.length)
        for seating in analysis.seatings
    ]
    seating = analysis.seatings[0]
    save(
        "length",
        plots.length_figure(
            f"{title}: game length",
            entries,
            f"Mean {analysis.mean_length:.2f} turns (both players' turns counted), computed exactly; "
            f"probability left beyond the last turn: {seating.tail:.1e}.",
        ),
    )
    if analysis.policy is not None:
        policy = analysis.policy
        optimal = analysis.actions[0] if analysis.names[0] == "optimal" else analysis.actions[1]
        if variant.can_hold:
            boundary = plots.boundary_figure(variant, hold_thresholds(optimal), optimal)
            save("boundary", boundary)
            if interactive:
                figures["boundary-html"] = plots.save_figure(boundary, folder / f"{stem}-boundary.html")
        if variant.chooses_dice:
            save("dice", plots.dice_figure(variant, optimal))
        save("win", plots.win_figure(variant, policy.values))
    save("turn-score", plots.turn_score_figure([(variant, analysis.turns[0].banked)]))
    visits = analysis.state_visits() if variant.decision is not Decision.DICE_PER_TURN else None
    thresholds = hold_thresholds(analysis.actions[0]) if visits is not None else None
    save("visits", plots.visits_figure(f"{title}: where play goes", analysis.turn_starts, visits, thresholds))
    return figures


_CAPTIONS = {  # figure name: heading and caption, in page order
    "length": (
        "Game length",
        "Exact distribution of the number of turns (both players' turns counted) until someone wins.",
    ),
    "boundary": (
        "Roll/hold boundary",
        "The smallest turn total at which the perfect player holds, for each score i and opponent score j "
        "(Pigtail, Figures 1-8). Below the surface: roll.",
    ),
    "dice": ("Dice choice", "How many dice the perfect player throws at the start of a turn (Pigtail, Figure 9)."),
    "win": ("Win probability", "The mover's probability of winning at the start of a turn under optimal play."),
    "turn-score": (
        "Expected turn score",
        "Expected points banked by the mover's turn from each (i, j) under strategy A (Pigtail, Figure 10).",
    ),
    "visits": (
        "State visits",
        "Expected number of turns per game that start at (score i, opponent score j), and of visits to each "
        "(score i, turn total k) summed over the opponent's score, with either player to move. These are "
        "expected visits, not probabilities: a state can recur (after busts by both players).",
    ),
}


@dataclass(frozen=True)
class _Report:
    """What a report says, before it is written as Markdown or HTML."""

    title: str
    intro: str
    summary: list[tuple[str, str]]
    players: list[list[str]]
    figures: dict[str, Path]
    design: str

    def sections(self) -> list[tuple[str, str, str, str | None]]:
        """Return the figure sections in page order: heading, caption, image file, interactive file or None."""
        interactive = self.figures.get("boundary-html")
        return [
            (
                *_CAPTIONS[name],
                self.figures[name].name,
                interactive.name if name == "boundary" and interactive else None,
            )
            for name in _CAPTIONS
            if name in self.figures
        ]


def report_text(analysis: Analysis, fmt: str, figures: dict[str, Path] | None = None) -> str:
    """Return the report as Markdown or HTML, linking the figures by file name."""
    variant = analysis.variant
    report = _Report(
        title=f"Exact analysis: {variant.title}, goal {variant.goal}",
        intro=(
            f"{_who(analysis)}. {endgame_note(analysis)} Every number is computed exactly by propagating "
            "probabilities through the Markov chain of turns (no simulation), until less than 1e-12 of the "
            f"probability is still playing; {analysis.seconds:.2f} s."
        ),
        summary=summary_rows(analysis),
        players=per_player_rows(analysis),
        figures=figures or {},
        design=(
            "Neller & Presser (Pigtail, 2005) observe that variants where optimal play takes four or five "
            "successful turns to win are "
            f"much more popular than those that take two. Here the winner needs {analysis.winner_scoring_turns:.2f} "
            "scoring turns on average."
        ),
    )
    return _html(report) if fmt == "html" else _markdown(report)


_METHOD = (
    "A game is a Markov chain over turn-start states (mover's score, other's score); the movers alternate. "
    "For each state, a forward pass over the turn total under the strategy's action table gives the exact "
    "distribution of the turn's outcome (hold, bust, score reset, bank, or reaching the goal), the expected "
    "points banked and the expected visits to each turn total. The game chain then moves the probability of "
    "every turn-start state forward one turn at a time, recording who wins on which turn, how many turns "
    "scored, and the expected number of visits to each state (either player to move), until less than 1e-12 "
    "of the probability is still playing. "
    "The first player's win probability matches the solver's V(0, 0) to rounding."
)


# -- Markdown ---------------------------------------------------------------------------------------
def _md_table(header: list[str], rows: list[list[str]] | list[tuple[str, str]]) -> list[str]:
    """Return the lines of a Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


_MD_METHOD = ["", "## Method", "", _METHOD, ""]


def _markdown(report: _Report) -> str:
    """Return the report as Markdown."""
    lines = [f"# {report.title}", "", report.intro, "", "## Summary", ""]
    lines += _md_table(["measure", "value"], report.summary)
    lines += ["", report.design, "", "## Per player (expected per game)", ""]
    lines += _md_table(PER_PLAYER_HEADER, report.players)
    for heading, caption, image, interactive in report.sections():
        lines += ["", f"## {heading}", "", caption, "", f"![{heading}]({image})"]
        if interactive:
            lines += ["", f"Interactive 3D version: [{interactive}]({interactive})"]
    if not report.figures:
        lines += ["", "(Figures are written with `--out FILE`.)"]
    return "\n".join(lines + _MD_METHOD)


# -- HTML -------------------------------------------------------------------------------------------
_e = html.escape


def _html_head(title: str, style: str) -> list[str]:
    """Return the lines of an HTML page up to the opened body."""
    return [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(title)}</title>",
        f"<style>{style}</style>",
        "</head><body>",
    ]


def _html_rows(rows: list[list[str]] | list[tuple[str, str]]) -> list[str]:
    """Return one ``<tr>`` line of ``<td>`` cells per row."""
    return ["<tr>" + "".join(f"<td>{_e(cell)}</td>" for cell in row) + "</tr>" for row in rows]


def _html_table_body(header: list[str], rows: list[list[str]]) -> list[str]:
    """Return a table's header cells, one a line, the closing of the header row and the rows."""
    return [*(f"<th>{_e(h)}</th>" for h in header), "</tr>", *_html_rows(rows)]


_REPORT_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 10px;text-align:left}"
    "th{background:#f3f3f3}img{max-width:100%;border:1px solid #eee}figure{margin:2em 0}"
    "figcaption{color:#555}"
)
_COMPARISON_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 10px}"
)


def _html(report: _Report) -> str:
    """Return the report as an HTML page."""
    parts = _html_head(report.title, _REPORT_STYLE)
    parts += [
        f"<h1>{_e(report.title)}</h1>",
        f"<p>{_e(report.intro)}</p>",
        "<h2>Summary</h2><table><tr><th>measure</th><th>value</th></tr>",
        *_html_rows(report.summary),
        "</table>",
        f"<p>{_e(report.design)}</p>",
        "<h2>Per player (expected per game)</h2><table><tr>",
        *_html_table_body(PER_PLAYER_HEADER, report.players),
        "</table>",
    ]
    for heading, caption, image, interactive in report.sections():
        parts.append(f"<h2>{_e(heading)}</h2><figure>")
        parts.append(f'<img src="{_e(image)}" alt="{_e(heading)}">')
        parts.append(f"<figcaption>{_e(caption)}</figcaption></figure>")
        if interactive:
            link = _e(interactive)
            parts.append(f'<p>Interactive 3D version: <a href="{link}">{link}</a></p>')
    if not report.figures:
        parts.append("<p>(Figures are written with <code>--out FILE</code>.)</p>")
    parts += ["<h2>Method</h2>", f"<p>{_e(_METHOD)}</p>", "</body></html>"]
    return "\n".join(parts)


def report_folder(path: Path) -> Path:
    """Return the folder a report at ``path`` goes to (its figures beside it); raise if it does not exist."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.exists():
        raise BadParameterError(f"folder {str(folder)!r} does not exist")
    return folder


def write_report(
    analysis: Analysis,
    path: Path,
    fmt: str,
    progress: Callable[[float, str], None] | None = None,
) -> list[Path]:
    """Write the report and its figures (next to it); return every file written, the report first."""
    folder = report_folder(path)
    if progress is not None:
        progress(0.0, "figures")
    figures = make_figures(analysis, folder, path.stem, interactive=fmt == "html")
    if progress is not None:
        progress(1.0, "figures")
    path.write_text(report_text(analysis, fmt, figures), encoding="utf-8")
    return [path, *figures.values()]


COMPARISON_HEADER = [
    "variant",
    "goal",
    "P(first wins)",
    "first-player advantage",
    "mean length (turns)",
    "median",
    "scoring turns per player",
    "winner's scoring turns",
    "opening",
    "turn score at 0-0",
]


def comparison_rows(analyses: list[Analysis]) -> list[list[str]]:
    """Return one row per analysed variant for a side-by-side comparison."""
    rows = []
    for analysis in analyses:
        seating = analysis.seatings[0]
        a, b = analysis.scoring_turns
        rows.append(
            [
                analysis.variant.name,
                str(analysis.variant.goal),
                f"{seating.p_first_wins:.4f}",
                f"{analysis.first_player_advantage:+.4f}",
                f"{analysis.mean_length:.2f}",
                str(seating.length_quantile(0.5)),
                f"{(a + b) / 2:.2f}",
                f"{analysis.winner_scoring_turns:.2f}",
                _opening(analysis),
                f"{analysis.turns[0].banked[0, 0]:.2f}",
            ]
        )
    return rows


def comparison_text(analyses: list[Analysis], fmt: str) -> str:
    """Return a Markdown or HTML comparison of several variants (Pigtail's question: which make good games)."""
    who = _who(analyses[0])
    title = "Exact comparison of variants"
    intro = (
        f"{who}, first to reach the goal wins. Neller & Presser (Pigtail, 2005): variants where optimal play "
        "takes four or five successful turns to win are much more popular than those that take two."
    )
    rows = comparison_rows(analyses)
    if fmt == "html":
        parts = _html_head(title, _COMPARISON_STYLE)
        parts += [
            f"<h1>{_e(title)}</h1><p>{_e(intro)}</p><table><tr>",
            *_html_table_body(COMPARISON_HEADER, rows),
            f"</table><h2>Method</h2><p>{_e(_METHOD)}</p></body></html>",
        ]
        return "\n".join(parts)
    lines = [f"# {title}", "", intro, "", *_md_table(COMPARISON_HEADER, rows)]
    return "\n".join(lines + _MD_METHOD)
