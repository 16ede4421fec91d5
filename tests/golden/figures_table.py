"""Render the solved figures of tests/data/values.json as a Markdown page (docs/solve/solved-figures.md).

Run from the project folder: python tests/golden/figures_table.py [--out docs/solve/solved-figures.md]
The page is generated: change the golden values (tests/golden/make.py --write), then run this again.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import golden
from pigdice.rules import Decision, Endgame, FinalTurn, TieRule, all_variants

OUT = Path("docs/solve/solved-figures.md")
TITLES = {variant.name: variant.title for variant in all_variants()}
DECISIONS = {variant.name: variant.decision for variant in all_variants()}


def ending_words(ending: str) -> str:
    """Return an ending of the data file ('final-round-shared-roll') in a player's words."""
    if ending == "first-to-goal":
        return Endgame.FIRST_TO_GOAL.label
    for endgame in (Endgame.FINAL_ROUND, Endgame.EQUAL_TURNS):
        if ending.startswith(endgame.value):
            words = [endgame.label]
            rest = ending[len(endgame.value) + 1 :]
            for ties in TieRule:
                if rest.startswith(ties.value):
                    words.append(ties.label)
                    rest = rest[len(ties.value) + 1 :]
            if rest:
                words.append(FinalTurn(rest).label)
            return "; ".join(words)
    raise ValueError(f"unknown ending {ending!r}")


def opening_words(case: dict[str, Any]) -> str:
    """Return what the first player does at the start, in a player's words."""
    opening = case["opening"]
    if opening is None:
        return "—"
    decision = DECISIONS[case["variant"]]
    if decision is Decision.DICE_PER_TURN:
        return f"throw {opening} dice"
    if decision is Decision.SIMULTANEOUS:  # the first total where the equilibrium sits more often than not
        return "stay standing to the goal" if opening >= case["goal"] else f"sit down at {opening}"
    return f"hold at {opening}"


def chance(value: float, digits: int = 4) -> str:
    """Return a win chance as the tables show it."""
    return f"{value:.{digits}f}"


def published_words(key: str) -> str:
    """Return what the papers publish of a case (their figures agree with ours), with the source, or a dash."""
    found = [p for p in golden.PUBLISHED if p.key == key]
    if not found:
        return "—"
    facts = [
        f"first player wins {p.value:.4f}" if p.figure == "first player wins" else "the same first turn" for p in found
    ]
    sources = sorted({p.source for p in found})
    return f"{', '.join(facts)} ({'; '.join(sources)})"


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Return a Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def render(cases: list[dict[str, Any]]) -> str:
    """Return the figures page."""
    lines = [
        "# Solved figures",
        "",
        "Exact figures of perfect play, from pigdice's solvers: each player's chance to win from the start",
        "when everyone plays perfectly, and what the first player does on the first turn. They are the",
        "golden values every change to pigdice is tested against; this page is generated from them.",
        "",
        "## Two players, to each game's own goal",
        "",
    ]
    default = [c for c in cases if c["players"] == 2 and c["goal"] == 100 and c["variant"] != "swine-herd"]
    lines += table(
        ["Game", "How it ends", "First player wins", "Second player wins", "First turn", "Published"],
        [
            [
                TITLES[c["variant"]],
                ending_words(c["ending"]),
                chance(c["seats"][0], 6),
                chance(c["seats"][1], 6),
                opening_words(c),
                published_words(c["key"]),
            ]
            for c in default
        ],
    )
    lines += ["", "## Three players, to 100", ""]
    three = [c for c in cases if c["players"] == 3 and c["goal"] == 100]
    lines += table(
        ["Game", "How it ends", "First seat", "Second seat", "Third seat", "First turn"],
        [
            [TITLES[c["variant"]], ending_words(c["ending"]), *(chance(p, 6) for p in c["seats"]), opening_words(c)]
            for c in three
        ],
    )
    for players, goal in golden.SMALL_GOAL.items():
        lines += ["", f"## Every ending, {players} players, to {goal}: the first player's chance to win", ""]
        lines += ["Endings:", ""]
        names = [golden.ending_name_of(ending) for ending in golden.ENDINGS]
        lines += [f"{number}. {ending_words(name)}" for number, name in enumerate(names, start=1)]
        lines.append("")
        rows = []
        for variant in TITLES:
            if variant == "swine-herd":
                continue
            found = {
                c["ending"]: c for c in cases if (c["variant"], c["players"], c["goal"]) == (variant, players, goal)
            }
            rows.append([TITLES[variant], *(chance(found[name]["seats"][0]) for name in names)])
        lines += table(["Game", *(str(n) for n in range(1, len(names) + 1))], rows)
    herd = [c for c in cases if c["variant"] == "swine-herd"]
    lines += ["", "## Swine Herd (everyone decides on the same rolls)", ""]
    lines += table(
        ["Players", "Goal", "Each player's chance to win", "First turn"],
        [[str(c["players"]), str(c["goal"]), ", ".join(chance(p) for p in c["seats"]), opening_words(c)] for c in herd],
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the figures page."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the page")
    args = parser.parse_args(argv)
    cases = json.loads((golden.DATA / "values.json").read_text())["cases"]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(cases))
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
