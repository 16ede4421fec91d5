"""Write the golden answers of the 3-player endings reference games to tests/data/endings/.

Source: the plain-Python reference game of tests/solve/reference_games.py (``reference_game``: value
iteration over a dict of whole game states, sharing nothing with the numba solvers but ``Position``),
built with ``cap_last_turn=False, refuse_endless=True`` for each case of ``REFERENCE_CASES`` in
tests/solve/test_nplayer_endings.py. Each file (``<variant>-<goal>-<ending>-<ties>-<final turn>-cap<cap>.npz``)
holds the reference's answers at every decision point it solves, in a canonical order (sorted by seat,
last-turn code, scores, turn total; ``reference_games.stored_answers`` says the arrays), with the case's
parameters (``case``) and this source (``source``).

tests/solve/test_nplayer_endings.py solves each case and compares every stored position; it also builds
the smallest case's reference live and compares the whole file, and checks every file at a seeded sample
of positions by one step of the reference's rules (a damaged or stale file fails loudly).

Run from the repository root: ``PYTHONPATH=src python tests/data/make_endings_reference.py [--check]``
(``--check`` recomputes every file and reports those that differ, writing nothing). About 3 minutes:
the largest reference (Two-Dice Pig to 4, 218,826 positions) takes about a minute to build.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.solve.reference_games import stored_answers
from tests.solve.test_nplayer_endings import (
    ENDINGS_DATA,
    REFERENCE_CASES,
    SOURCE,
    case_file,
    case_reference,
)


def main() -> None:
    """Build every case's reference and write (or check) its file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored files, write nothing")
    args = parser.parse_args()
    ENDINGS_DATA.mkdir(exist_ok=True)
    stale = []
    for case in REFERENCE_CASES:
        path = case_file(case)
        data = stored_answers(case_reference(case))
        if args.check:
            with np.load(path) as stored:
                same = all(np.array_equal(stored[k], v, equal_nan=v.dtype.kind == "f") for k, v in data.items())
            print(f"{path.name}: {'same' if same else 'DIFFERS'}")
            stale += [] if same else [path.name]
        else:
            np.savez_compressed(path, case=np.array([str(v) for v in case]), source=np.array(SOURCE), **data)
            print(f"{path.name}: {len(data['positions'])} positions, {path.stat().st_size / 1e6:.2f} MB")
    if stale:
        raise SystemExit(f"stale: {', '.join(stale)}")


if __name__ == "__main__":
    main()
