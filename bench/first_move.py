"""The perfect player on a fresh install: a hint and its first move in a game, against ``pigdice rules pig``.

Run: python bench/first_move.py [--runs N] [--variants pig,hog,...] [--before SRC]
For every registered variant at its own goal (2 players, its own ending) it times, in new
processes started from an empty numba cache (``NUMBA_CACHE_DIR``) and an empty policy cache
(``PIGDICE_CACHE_DIR``):

- ``pigdice hint VARIANT --score 50 --opponent 80 --turn-total 12`` (Hog: no turn total);
- ``pigdice play VARIANT --players you,optimal`` in a pseudo-terminal, to the perfect player's
  first move (the person holds at once, or throws one die in Hog, or sits down in Swine Herd);

and prints each as a ratio to ``pigdice rules pig`` timed in the same run (the best of N runs
each). The target (issue 25) is under 3x for both. ``--before SRC`` times the same commands with
another source tree first on the path (e.g. the main checkout's src, before the shipped values),
once each (a fresh install compiles only once), for a before/after in the same run.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pexpect

from pigdice.rules.registry import all_variants, find_variant

TARGET = 3.0
PROMPT = re.compile(r"\[q\]uit > ")
TIMEOUT = 600  # seconds: a first move that compiles the kernels on a busy machine takes minutes


def best_of(runs: int, start: Callable[[], None]) -> float:
    """Return the fastest of ``runs`` wall times of ``start()``."""
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        start()
        times.append(time.perf_counter() - began)
    return min(times)


def fresh_env(base: dict[str, str], source: str | None) -> dict[str, str]:
    """Return an environment with empty numba and policy caches (new folders each call)."""
    env = {**base, "NUMBA_CACHE_DIR": tempfile.mkdtemp(prefix="numba-"), "PIGDICE_CACHE_DIR": tempfile.mkdtemp()}
    if source is not None:
        env["PYTHONPATH"] = source
    return env


def first_move_keys(name: str) -> list[str]:
    """Return what the person types at the first prompt so that the perfect player moves next."""
    variant = find_variant(name)
    if variant.is_simultaneous:
        return ["s"]  # the robot chooses at the same moment
    if not variant.can_hold:
        return ["1\r"]  # Hog: throw one die
    return ["h", "y"]  # hold with nothing to bank, and confirm


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--variants", default="", help="comma-separated names (default: every registered variant)")
    parser.add_argument("--before", default=None, help="a source tree to time first (e.g. /work/main/src)")
    args = parser.parse_args()
    if not 1 <= args.runs <= 20:
        parser.error(f"--runs must be from 1 to 20, got {args.runs}")
    try:
        names = [find_variant(n).name for n in args.variants.split(",") if n] or [v.name for v in all_variants()]
    except ValueError as exc:
        parser.error(str(exc))
    if args.before is not None and not (Path(args.before) / "pigdice").is_dir():
        parser.error(f"--before {args.before}: no pigdice package there")
    script = str(Path(sys.executable).parent / "pigdice")
    if not Path(script).exists():
        script = shutil.which("pigdice") or sys.exit("the pigdice script is not installed")
    base = {**os.environ, "PIGDICE_FAST": "1", "TERM": "dumb", "NO_COLOR": "1", "PIGDICE_GAMES_DIR": tempfile.mkdtemp()}

    def run(source: str | None, *command: str) -> Callable[[], None]:
        return lambda: subprocess.run([script, *command], env=fresh_env(base, source), capture_output=True, check=True)

    def first_move(source: str | None, name: str) -> Callable[[], None]:
        def start() -> None:
            child = pexpect.spawn(
                script, ["play", name, "--players", "you,optimal", "--seed", "1"], env=fresh_env(base, source),
                timeout=TIMEOUT, encoding="utf-8",
            )  # fmt: skip
            child.expect(PROMPT)
            for key in first_move_keys(name):
                child.send(key)
            child.expect(r"Wilbur (rolls|throws|holds|sits|stays|banks)|swineherd rolls")
            child.terminate(force=True)

        return start

    def hint(name: str) -> list[str]:
        turn = [] if not find_variant(name).can_hold else ["--turn-total", "12"]
        return ["hint", name, "--score", "50", "--opponent", "80", *turn]

    trees = [("before", args.before, 1)] if args.before else []
    trees.append(("now", None, args.runs))
    for label, source, runs in trees:
        rules = best_of(runs, run(source, "rules", "pig"))
        print(f"{label}: pigdice rules pig {rules:.3f} s (best of {runs}); ratios to it, target < {TARGET:g}")
        print(f"  {'variant':18s} {'hint':>14s} {'first move':>16s}")
        worst = 0.0
        for name in names:
            hinted = best_of(runs, run(source, *hint(name)))
            moved = best_of(runs, first_move(source, name))
            worst = max(worst, hinted / rules, moved / rules)
            print(f"  {name:18s} {hinted:6.2f} s {hinted / rules:5.1f}x {moved:7.2f} s {moved / rules:5.1f}x")
        print(f"  worst ratio {worst:.1f}x ({'within' if worst < TARGET else 'over'} the target)")


if __name__ == "__main__":
    main()
