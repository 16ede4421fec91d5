"""Where the time of one 3-player endings reference test goes: the reference build, the solve, the comparison.

Run: python bench/reference_endings_cost.py [--variant two-dice-pig] [--goal 4] [--endgame final-round]
     [--ties shared] [--final-turn turn] [--cap 20]
Times each step of tests/solve/test_nplayer_endings.py's every-position check for one case in one process:
building the plain-Python reference game (tests/solve/reference_games.py), solve_players (its first call pays
the 3-player kernels' numba compile when the cache is cold: set NUMBA_CACHE_DIR to an empty folder to see it),
the solver's per-position answers, and the reference's per-position answers. The test no longer builds the
references (but the smallest): it reads their answers from tests/data/endings (tests/data/make_endings_reference.py
writes them) and asks the solver one seat at a time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from pigdice.rules import find_variant
from pigdice.solve.n.nplayer import solve_players

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.solve.reference_games import reference_game


def main() -> None:
    """Time the steps of one 3-player endings reference case and print them."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="two-dice-pig")
    parser.add_argument("--goal", type=int, default=4)
    parser.add_argument("--endgame", default="final-round")
    parser.add_argument("--ties", default="shared")
    parser.add_argument("--final-turn", default="turn")
    parser.add_argument("--cap", type=int, default=20)
    args = parser.parse_args()
    variant = find_variant(
        args.variant, goal=args.goal, endgame=args.endgame, ties=args.ties, final_turn=args.final_turn
    )
    start = time.perf_counter()
    game = reference_game(variant, 3, args.cap, cap_last_turn=False, refuse_endless=True)
    positions = list(game.positions())
    print(f"reference build  {time.perf_counter() - start:7.1f} s  ({len(positions)} positions)")
    start = time.perf_counter()
    policy = solve_players(variant, 3, cap=args.cap)
    print(f"solve_players    {time.perf_counter() - start:7.1f} s")
    start = time.perf_counter()
    for position in positions:
        policy.win_vector(position), policy.best(position), policy.action_values(position)
    print(f"solver answers   {time.perf_counter() - start:7.1f} s")
    start = time.perf_counter()
    for position in positions:
        game.values(position), game.best(position), game.action_values(position)
    print(f"reference answers{time.perf_counter() - start:7.1f} s")


if __name__ == "__main__":
    main()
