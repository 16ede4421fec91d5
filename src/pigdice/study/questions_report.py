"""The open-questions report: seed 003's questions and their exact answers, as Markdown or HTML with figures.

The rows here are shared by the command line's tables and the report, so both say the same.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from pigdice.rules.variant import Endgame
from pigdice.study.analysis.approximation import Approximation
from pigdice.study.analysis.questions import ENDINGS, SEED_ENDING, PlayersAnswer, Questions
from pigdice.study.report import _REPORT_STYLE, _e, _html_head, _html_table_body, _md_table, report_folder

ENDING_HEADER = ["ending", "P(first player wins)", "first-player advantage", "note"]
MARGIN_HEADER = ["ending", "largest margin", "stops at the goal while the other has", "mean margin"]
LAST_TURN_HEADER = ["ending", "the last player", "chance against a lead of 1 / 10 / 20 / 30"]
APPROXIMATION_HEADER = ["seat", "exact policy", "approximation", "loss", "relative loss", "every seat's chance"]
LEADS = (1, 10, 20, 30)

QUESTIONS = (
    "These endgame variations presumably encourage players to exceed the goal score by a margin in close "
    "games, but by how much? What fraction of the time does the first optimal player win against an optimal "
    "opponent?",
    "One might approximate optimal n-player play policy by abstracting all of a player's opponents as a single "
    "opponent with their maximum score, and applying optimal 2-player play policy. How good an approximation "
    "is this?",
)


def _p(value: float) -> str:
    return f"{value:.6f}"


def _note(reason: str | None, own: bool) -> str:
    parts = ["the variant's own ending"] if own else []
    if reason is not None:
        parts.append(f"not solved exactly: {reason}")
    return "; ".join(parts)


def ending_rows(questions: Questions) -> list[list[str]]:
    """Return the first player's chance under each ending (2 players): ending, chance, advantage, note."""
    rows = []
    for found in questions.endings:
        if found.seats is None:
            rows.append([found.ending.label, "-", "-", _note(found.reason, found.own)])
        else:
            first = found.seats[0]
            rows.append([found.ending.label, _p(first), f"{first - 0.5:+.6f}", _note(None, found.own)])
    return rows


def margin_rows(questions: Questions) -> list[list[str]]:
    """Return by how much the player who can reach the goal goes past it, per ending."""
    goal = questions.variant.goal
    rows = []
    for found in questions.margins:
        summary = found.summary(goal)
        if found.stop is None:
            rows.append([found.ending.label, "-", "-", str(found.reason)])
            continue
        at = summary["largest_at"]
        below = summary["stops_at_goal_while_other_below"]
        rows.append(
            [
                found.ending.label,
                f"+{summary['largest_margin']} (at {at['score']} against {at['other']})",
                f"less than {below}" if below < goal else "any score",
                f"+{summary['mean_margin']:.2f}",
            ]
        )
    return rows


def last_turn_rows(questions: Questions) -> list[list[str]]:
    """Return the last player's rule (read from the policy) and chance against a few leads, per ending."""
    rows = []
    for turn in questions.last_turns:
        chances = " / ".join(f"{turn.chance[d]:.4f}" if d < len(turn.chance) else "-" for d in LEADS)
        rows.append([turn.ending.label, turn.rule, chances])
    return rows


def seat_header(players: int) -> list[str]:
    """Return the header of a seats table: the ending, then seat 1 .. n."""
    return ["ending", *(f"seat {n}" for n in range(1, players + 1))]


def players_rows(answer: PlayersAnswer) -> list[list[str]]:
    """Return each seat's chance per ending with n players (a reason where not solved exactly)."""
    rows = []
    for found in answer.chances:
        if found.seats is None:
            rows.append([found.ending.label, f"not solved exactly: {found.reason}", *([""] * (answer.players - 1))])
        else:
            rows.append([found.ending.label, *(_p(v) for v in found.seats)])
    return rows


def approximation_rows(study: Approximation) -> list[list[str]]:
    """Return each seat's exact loss when it plays seed 003's approximation against exact players."""
    return [
        [
            str(s.seat + 1),
            _p(s.optimal),
            _p(s.approximate),
            f"{s.loss:.6f}",
            f"{100 * s.loss / s.optimal:.2f}%" if s.optimal > 0 else "-",
            ", ".join(f"{v:.4f}" for v in s.chances),
        ]
        for s in study.seats
    ]


def approximation_note(study: Approximation) -> str:
    """Return one paragraph on how the approximation was measured and how sure the numbers are."""
    n = study.players
    check = (
        f"Evaluating the exact policy in every seat the same way reproduces the solver's seat chances to "
        f"{study.check:.1e}. "
        if study.check is not None
        else ""
    )
    regret = (
        f"The exact {n}-player policy keeps least-regret pure choices in cycles without consistent ones "
        f"(regret {study.regret:.1e}). "
        if study.regret > 0
        else f"In the {study.mixed} score cycles where no deterministic choices are consistent, the exact "
        f"{n}-player policy mixes (a player who is indifferent at one turn total rolls with the chance that "
        "keeps everyone's choices best replies). "
        if study.mixed
        else ""
    )
    return (
        f"{n} players, {study.goal_note}. One seat plays the optimal 2-player policy against the highest "
        f"opponent score, the other {n - 1} the exact {n}-player policy; every figure is exact (forward "
        f"propagation of the game's Markov chain, no simulation). {check}{regret}"
        f"Evaluation {study.timings.get('evaluation', 0.0):.1f} s after a {study.solve_seconds:.1f} s solve."
    )


Entries = list[tuple[str, np.ndarray]]


def figure_entries(questions: Questions) -> tuple[Entries, Entries]:
    """Return the margin maps and last-turn chances the figures draw (seed 003's tie rule: first to reach)."""
    wanted = [SEED_ENDING, *(e for e in ENDINGS if e.endgame is Endgame.EQUAL_TURNS and e.ties == SEED_ENDING.ties)]
    maps: Entries = []
    for ending in wanted:
        found = questions.margins_for(ending)
        if found is not None and found.stop is not None:
            maps.append((ending.label, found.stop))
    # equal turns' last turn is the final round's (the same table): one line per final turn
    turns = [
        (t.ending.label, t.chance)
        for t in questions.last_turns
        if t.ending.ties == SEED_ENDING.ties and t.ending.endgame is Endgame.FINAL_ROUND
    ]
    return maps, turns


def make_question_figures(questions: Questions, folder: Path, stem: str) -> dict[str, Path]:
    """Write the report's figures (PNG) in ``folder``; return them by name."""
    from pigdice.study import plots

    figures: dict[str, Path] = {}
    maps, turns = figure_entries(questions)
    if maps:
        path = folder / f"{stem}-margin.png"
        plots.save_figure(plots.margin_figure(questions.variant, maps), path)
        figures["margin"] = path
    if turns:
        path = folder / f"{stem}-last-turn.png"
        plots.save_figure(plots.last_turn_figure(questions.variant, turns), path)
        figures["last-turn"] = path
    return figures


_CAPTIONS = {
    "margin": (
        "By how much",
        "How far past the goal the player who can reach it goes before holding, for every pair of scores "
        "(exact 2-player play; under equal turns the first player, since the second player's goal ends the game).",
    ),
    "last-turn": (
        "The last turn",
        "The last player's chance to pass a leader who has reached the goal, against the lead.",
    ),
}


def _sections(questions: Questions) -> list[tuple[str, list[str], list[list[str]], str]]:
    """Return the report's tables in page order: heading, header, rows, the paragraph under them."""
    first_line = "Exact 2-player play under every ending; endings not solved exactly are marked."
    seed = next((f for f in questions.endings if f.ending == SEED_ENDING), None)
    plain = questions.endings[0]
    if seed is not None and seed.seats is not None and plain.seats is not None:
        first_line = (
            f"First to the goal (as Neller & Presser solve it) the first player wins {plain.seats[0]:.4f}; with "
            f"Pigtail's ending (a last round of turns, ties to the first to reach the score) {seed.seats[0]:.4f}."
        )
    sections = [
        ("What fraction of the time does the first player win?", ENDING_HEADER, ending_rows(questions), first_line),
        (
            "By how much?",
            MARGIN_HEADER,
            margin_rows(questions),
            "The total the player who can reach the goal stops at, read from the exact policy for every pair of "
            "scores: the margin is how far past the goal.",
        ),
        (
            "The last player's target",
            LAST_TURN_HEADER,
            last_turn_rows(questions),
            "Read from the exact policy at every lead, not assumed.",
        ),
    ]
    for answer in questions.players:
        n = answer.players
        sections.append(
            (
                f"{n} players: each seat's chance",
                seat_header(n),
                players_rows(answer),
                f"Goal: {answer.goal_note}.",
            )
        )
        if answer.approximation is not None:
            sections.append(
                (
                    f"{n} players: how good is the approximation?",
                    APPROXIMATION_HEADER,
                    approximation_rows(answer.approximation),
                    approximation_note(answer.approximation),
                )
            )
        elif answer.reason:
            sections.append((f"{n} players: how good is the approximation?", [], [], f"Not measured: {answer.reason}"))
    return sections


def questions_text(questions: Questions, fmt: str, figures: dict[str, Path] | None = None) -> str:
    """Return the open-questions report as Markdown or HTML, linking the figures by file name."""
    v = questions.variant
    title = f"Pigtail's open questions: {v.title}, goal {v.goal}"
    intro = (
        "Neller & Presser's Pigtail: A Pig Addendum (2005) solves every variant with the first player to reach "
        "the goal winning and leaves two questions open. Here they are answered with exact figures wherever an "
        f"exact solver exists (everything else is marked); {questions.seconds:.1f} s."
    )
    figures = figures or {}
    sections = _sections(questions)
    if fmt == "html":
        parts = _html_head(title, _REPORT_STYLE)
        parts += [f"<h1>{_e(title)}</h1>", f"<p>{_e(intro)}</p>"]
        parts += [f"<blockquote>{_e(q)}</blockquote>" for q in QUESTIONS]
        for index, (heading, header, rows, text) in enumerate(sections):
            parts.append(f"<h2>{_e(heading)}</h2>")
            if header:
                parts += ["<table><tr>", *_html_table_body(header, rows), "</table>"]
            parts.append(f"<p>{_e(text)}</p>")
            parts += _html_figures(figures, FIGURE_AFTER.get(index))
        parts.append("</body></html>")
        return "\n".join(parts)
    lines = [f"# {title}", "", intro, ""]
    for quote in QUESTIONS:
        lines += [f"> {quote}", ""]
    for index, (heading, header, rows, text) in enumerate(sections):
        lines += [f"## {heading}", ""]
        if header:
            lines += [*_md_table(header, rows), ""]
        lines += [text, ""]
        lines += _md_figures(figures, FIGURE_AFTER.get(index))
    return "\n".join(lines)


FIGURE_AFTER = {1: "margin", 2: "last-turn"}  # the section (by index) each figure follows


def _md_figures(figures: dict[str, Path], name: str | None) -> list[str]:
    """Return the Markdown of figure ``name`` (nothing if it was not drawn)."""
    if name is None or name not in figures:
        return []
    heading, caption = _CAPTIONS[name]
    return [f"### {heading}", "", caption, "", f"![{heading}]({figures[name].name})", ""]


def _html_figures(figures: dict[str, Path], name: str | None) -> list[str]:
    """Return the HTML of figure ``name`` (nothing if it was not drawn)."""
    if name is None or name not in figures:
        return []
    heading, caption = _CAPTIONS[name]
    image = _e(figures[name].name)
    return [f'<figure><img src="{image}" alt="{_e(heading)}"><figcaption>{_e(caption)}</figcaption></figure>']


def write_questions_report(
    questions: Questions, path: Path, fmt: str, progress: Callable[[float, str], None] | None = None
) -> list[Path]:
    """Write the report and its figures (next to it); return every file written, the report first."""
    folder = report_folder(path)
    if progress is not None:
        progress(0.0, "figures")
    figures = make_question_figures(questions, folder, path.stem)
    if progress is not None:
        progress(1.0, "figures")
    path.write_text(questions_text(questions, fmt, figures), encoding="utf-8")
    return [path, *figures.values()]
