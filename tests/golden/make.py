"""Write (or check) the golden data files in tests/data from today's code.

Run from the project folder:

    python tests/golden/make.py                  # compare today's figures with the files; write nothing
    python tests/golden/make.py --write          # rewrite the files (frozen records only where missing)
    python tests/golden/make.py --write --heavy  # ... and re-solve the heavy cases too (minutes)
    python tests/golden/make.py --only values --tier fast   # one kind of file, one tier of cases

Every value case names the solver that produced it. The frozen version-1 game records are written
once and never rewritten: they stand for games saved by an older pigdice, which must still load,
replay and verify. Delete one to save it again with today's code.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import golden
from pigdice.rules import all_variants

KINDS = ("values", "fingerprints", "perft", "playthroughs", "records")


def dump(data: Any) -> str:
    """Return ``data`` as the data files keep JSON: indented, keys in the order given, a final newline."""
    return json.dumps(data, indent=1) + "\n"


def compact_moves(text: str) -> str:
    """Put each move of a playthrough or record on one line, so a file reads (and diffs) a move at a time."""
    data = json.loads(text)
    moves = data.pop("moves")
    head = json.dumps(data, indent=1)[:-2]  # the object without its closing brace
    lines = ",\n  ".join(json.dumps(move) for move in moves)
    return f'{head},\n "moves": [\n  {lines}\n ]\n}}\n'


def read_values(path: Path) -> dict[str, dict[str, Any]]:
    """Return the stored value cases by key (empty if the file is missing)."""
    if not path.exists():
        return {}
    return {case["key"]: case for case in json.loads(path.read_text())["cases"]}


def value_files(tier: str | None, heavy: bool) -> dict[Path, str]:
    """Return values.json with every case of ``tier`` (all: None) solved now, the others as stored."""
    path = golden.DATA / "values.json"
    stored = read_values(path)
    cases = []
    for case in golden.cases():
        solve_now = (tier is None or case.tier == tier) and (case.tier != "stored" or heavy)
        if not solve_now and case.key in stored:
            cases.append(stored[case.key])
            continue
        if not solve_now:
            print(f"  {case.key}: not stored yet and not solved now (--heavy solves it)", file=sys.stderr)
            continue
        started = time.process_time()
        figures = golden.value_figures(case)
        seconds = time.process_time() - started
        print(f"  {case.key} ({case.tier}): {figures['solver']}, {seconds:.2f} s CPU", file=sys.stderr)
        cases.append(figures)
    about = (
        "Exact values per variant x ending x players (tests/golden/golden.py says how each is computed). "
        "seats: every seat's share of the win at the start, in turn order; opening: the turn total the "
        "first player holds at (or the dice it throws); turn_starts: the mover's share at every turn start "
        "of a score grid (every seat under equal turns): its sum, its position-weighted mean and a digest "
        f"of the shares rounded to {golden.DIGEST_DIGITS} digits; samples: the mover's share at a few turn starts."
    )
    return {path: dump({"about": about, "cases": cases})}


def fingerprint_files() -> dict[Path, str]:
    """Return fingerprints.json: every registered variant's parameters and hashes."""
    data = {variant.name: golden.fingerprint_figures(variant) for variant in all_variants()}
    return {golden.DATA / "fingerprints.json": dump(data)}


def perft_files() -> dict[Path, str]:
    """Return one perft file per registered variant."""
    return {golden.DATA / "perft" / f"{v.name}.txt": golden.perft_text(v) for v in all_variants()}


def playthrough_files() -> dict[Path, str]:
    """Return one seeded playthrough per registered variant."""
    return {
        golden.DATA / "playthroughs" / f"{v.name}.json": compact_moves(dump(golden.playthrough_figures(v)))
        for v in all_variants()
    }


def record_files() -> dict[Path, str]:
    """Return the frozen version-1 records as saved today (the writer only saves the missing ones)."""
    files = {}
    with tempfile.TemporaryDirectory() as folder:
        for game in golden.FROZEN_GAMES:
            saved = Path(folder) / game.file
            golden.frozen_record(game, saved)
            files[golden.DATA / "records" / game.file] = saved.read_text()
    return files


def main(argv: list[str] | None = None) -> int:
    """Write or check the golden files; return 1 if a check found a difference."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="rewrite the files instead of comparing")
    parser.add_argument("--only", choices=KINDS, action="append", help="only these kinds of file")
    parser.add_argument("--tier", choices=("fast", "slow", "stored"), help="only value cases of this tier")
    parser.add_argument("--heavy", action="store_true", help="solve the heavy (stored) value cases too")
    args = parser.parse_args(argv)
    kinds = args.only or list(KINDS)
    # every figure comes from a solve of today's code, never from a policy cached by an older one
    os.environ["PIGDICE_CACHE_DIR"] = tempfile.mkdtemp(prefix="pigdice-golden-")
    different = 0
    for kind in kinds:
        print(f"{kind}:", file=sys.stderr)
        if kind == "values":
            files = value_files(args.tier, args.heavy)
        else:
            files = {"fingerprints": fingerprint_files, "perft": perft_files, "playthroughs": playthrough_files}.get(
                kind, record_files
            )()
        for path, text in files.items():
            old = path.read_text() if path.exists() else None
            if old == text:
                continue
            if kind == "records" and old is not None:
                print(f"  {path.name}: differs from today's game (frozen: not rewritten)", file=sys.stderr)
                continue
            if args.write:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
                print(f"  wrote {path.relative_to(golden.DATA.parent.parent)}", file=sys.stderr)
            else:
                different += 1
                print(f"  {path.relative_to(golden.DATA.parent.parent)} differs", file=sys.stderr)
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
