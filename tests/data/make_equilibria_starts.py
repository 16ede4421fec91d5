"""Write tests/data/equilibria_starts.json: 3-player Pig to 58's start under every combination of equilibria.

Source: ``pigdice.solve.n.equilibria``: the whole game solved once per combination of the equilibria of the
cycles that have several (``LevelSearch`` with a selection, in the order the cycles are met), walked depth
first as ``start_bounds`` walks them (its 32 solves give tests/data/equilibria.json's start bounds at 58).
Each row states the full selection (one choice per cycle), the equilibria found per cycle, and each seat's
start value. tests/solve/test_nplayer_equilibria.py solves every combination again (a quarter a test) and
checks the bounds and the walk against this file.

Run from the repository root: ``PYTHONPATH=src python tests/data/make_equilibria_starts.py`` (about a minute).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pigdice.rules import find_variant
from pigdice.solve.n.equilibria import LevelSearch
from pigdice.solve.n.nplayer import solve_players

GOAL = 58
PATH = Path(__file__).resolve().parent / "equilibria_starts.json"


def combinations(goal: int) -> list[dict[str, list[int] | list[float]]]:
    """Solve 3-player Pig to ``goal`` once per combination, in ``start_bounds``' depth-first order."""
    variant = find_variant("pig").with_goal(goal)
    selection: list[int] = []
    rows: list[dict[str, list[int] | list[float]]] = []
    while True:
        search = LevelSearch(variant, 3, selection)
        policy = solve_players(variant, 3, level_hook=search)
        found = search.found
        chosen = selection + [0] * (len(found) - len(selection))
        rows.append({"selection": chosen, "found": found, "start": policy.win_probability_by_seat()})
        place = len(found) - 1
        while place >= 0 and chosen[place] + 1 >= found[place]:
            place -= 1
        if place < 0:
            return rows
        selection = [*chosen[:place], chosen[place] + 1]


def main() -> None:
    """Solve every combination and write the file."""
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    about = (
        f"3-player Pig to {GOAL} (first to the goal): each seat's start value under every combination of the "
        "equilibria of the cycles with several, in the depth-first order of pigdice.solve.n.equilibria.start_bounds "
        "(selection: the equilibrium chosen at each such cycle, in the order met; found: how many each has). "
        "Written by tests/data/make_equilibria_starts.py from pigdice.solve.n.equilibria (LevelSearch + solve_players)."
    )
    rows = combinations(GOAL)
    PATH.write_text(json.dumps({"about": about, "variant": "pig", "goal": GOAL, "players": 3, "combinations": rows},
                               indent=1) + "\n")  # fmt: skip
    print(f"{PATH.name}: {len(rows)} combinations")


if __name__ == "__main__":
    main()
