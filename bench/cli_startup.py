"""Command-line start-up: how long each command takes in a new process, against a bare interpreter.

Run: python bench/cli_startup.py [--runs N]
Prints the best of N runs (default 7) of ``pigdice --help``, ``variants``, ``rules pig``, a game
to its first prompt (``play pig`` against a hold:20 robot, in a pseudo-terminal), a hint from the
values shipped with the package and one from a cached policy (goal 90), each in seconds and as a
ratio to a bare interpreter started the same way in the same run (``python -c pass``; for the
game, one that prints its prompt in a pseudo-terminal): the floor no command can go under.
Targets (issue 15): 0.25 s for the first four, 0.3 s for the hints.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pexpect


def best_of(runs: int, start: Callable[[], None]) -> float:
    """Return the fastest of ``runs`` wall times of ``start()``."""
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        start()
        times.append(time.perf_counter() - began)
    return min(times)


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    if not 1 <= args.runs <= 100:
        parser.error(f"--runs must be from 1 to 100, got {args.runs}")
    script = str(Path(sys.executable).parent / "pigdice")
    if not Path(script).exists():
        script = shutil.which("pigdice") or sys.exit("the pigdice script is not installed")
    cache = tempfile.mkdtemp(prefix="pigdice-cache-")
    env = {**os.environ, "PIGDICE_CACHE_DIR": cache, "PIGDICE_FAST": "1", "TERM": "dumb", "NO_COLOR": "1"}

    def run(*command: str) -> Callable[[], None]:
        return lambda: subprocess.run([script, *command], env=env, capture_output=True, check=True)

    def prompt(program: str, *command: str) -> Callable[[], None]:
        def start() -> None:
            child = pexpect.spawn(program, list(command), env=env, timeout=30)
            child.expect("roll")
            child.terminate(force=True)

        return start

    first_prompt = prompt(script, "play", "pig", "--players", "you,hold:20", "--seed", "1")

    hint = ("hint", "pig", "--score", "50", "--opponent", "80", "--turn-total", "12")
    cached = (*hint, "--goal", "90")  # not shipped: read from the policy cache
    subprocess.run([script, "solve", "pig", "--goal", "90"], env=env, capture_output=True, check=True)  # fill it
    bare = best_of(args.runs, lambda: subprocess.run([sys.executable, "-c", "pass"], check=True))
    bare_prompt = best_of(args.runs, prompt(sys.executable, "-c", "print('roll')"))
    print(f"bare interpreter: {bare:.3f} s (python -c pass), {bare_prompt:.3f} s to a prompt in a pseudo-terminal")
    for label, start, floor, target in (
        ("pigdice --help", run("--help"), bare, 0.25),
        ("pigdice variants", run("variants"), bare, 0.25),
        ("pigdice rules pig", run("rules", "pig"), bare, 0.25),
        ("play pig, to the first prompt", first_prompt, bare_prompt, 0.25),
        ("hint from the shipped values", run(*hint), bare, 0.3),
        ("hint from a cached policy", run(*cached), bare, 0.3),
    ):
        seconds = best_of(args.runs, start)
        print(f"  {label:32s} {seconds:.3f} s  {seconds / floor:5.1f} x bare  (target {target} s)")
    shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
