"""Command-line fuzzer: random hostile command lines for every command, run in-process.

Run: python bench/fuzz_cli.py [--lines N] [--seed S] [--show K]
Generates N (default 1000) command lines with a seeded numpy Generator: every command of the
real app, its real option names (read from the app itself, so the script runs against any
version of the command line) with hostile values (huge numbers, unicode digits, negatives,
blanks, very long strings, odd paths in a temporary folder: a folder, a missing folder, a
file as a folder, names too long, a path on /dev/full, /sys and /proc), and unknown options.
Each line runs in-process with typer's CliRunner in a temporary working folder, with its own
policy cache and ``uvicorn.run`` replaced by a stub (``serve`` never binds a port). A line
"ends in a traceback" when an exception other than SystemExit escapes the app or the output
shows "Traceback"; lines still running after ``--timeout`` seconds are counted apart.
Prints tracebacks per 1000 command lines, the exception types and a few examples.
"""

from __future__ import annotations

import argparse
import collections
import os
import shlex
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

# each pool: (valid values, hostile values); a value is valid with probability VALID
VALID = 0.75
NUMBERS = (
    ["1", "2", "3", "5", "10", "20"],
    [
        "0", "-1", "-5", "-0", "007", "+5", " 5", "5 ", "5.0", "1e3", "0x10", "1_000", "²", "٢٠", "٣", "５",
        "𝟝", "१०", "", " ", "nan", "inf", "-inf", "999999999999", "1" + "0" * 40, "9" * 400, "9" * 5000,
        "4294967296", "18446744073709551616", "ten",
    ],
)  # fmt: skip
GOALS = (["1", "2", "3", "5", "10", "20"], NUMBERS[1] + ["100001", "1000000"])
STATES = (["0", "1", "3", "5", "9"], [*NUMBERS[1], "10", "15", "50", "99", "1000", "100000"])
VARIANTS = (
    ["pig", "pig", "hog", "two-dice-pig", "big-pig", "swine-herd", "piggy-six", "pass-the-pigs", "pig-dice",
     "hog-reroll", "freys-pig", "piggy-six-3dice", "big-pig-knizia", "PIG", "Two Dice Pig"],
    ["", " ", "nope", "x" * 300, "pig,", ",", "pïg", "٢", "pig\t", "pig,hog", "pig,two-dice-pig,hog"],
)  # fmt: skip
STRATEGIES = (
    ["hold:20", "hold:5", "optimal", "keep-pace", "max-score", "rolls:3", "random", "dice:5", "dice:2",
     "hold:20+dice:2", "hold:2"],
    ["hold:٢٠", "hold:²", "hold:99999999999", "hold:" + "9" * 5000, "hold:-1", "hold: 20", "HOLD:20", "",
     " ", ",", "you", "human:Al", "py:/nonexistent/x.py:f", "python:no_such_module_xyz:f", "python:os:sep",
     "hold:20,hold:25", "hold:5,hold:5,hold:5", "optimal,hold:20", "hold:20,", "x" * 300, "rolls:٣",
     "hold:100000", "rolls:100000"],
)  # fmt: skip
SEATS = (["hold:20,hold:25", "hold:5,hold:10", "optimal,hold:20", "rolls:3,random", "dice:5,dice:3",
          "hold:20,hold:20,hold:20", "keep-pace,max-score", "you,hold:20", "hold:100000,hold:100000"],
         STRATEGIES[1] + ["hold:20", "hold:20," * 200])  # fmt: skip
PARAMS = (
    ["max_dice=10", "max_dice=3", "oinker=0.01", "oinker=1/100", "snake_eyes=set-25", "bad=sevens",
     "double_ones=bust", "final_turn=roll"],
    ["x=²", "max_dice=٢", "max_dice=" + "9" * 5000, "max_dice=99999999999999999999", "oinker=٠.٥", "=", "a",
     "goal=5", "max_dice=-3", "max_dice= 3", "max-dice=4", "max_dice=", "max_dice=²", "max_dice=1_0"],
)  # fmt: skip
CHOICES = {
    "--endgame": (["first-to-goal", "final-round", "equal-turns"], ["", "nope", "FIRST-TO-GOAL"]),
    "--ties": (["shared", "first-to-reach"], ["", "x"]),
    "--final-turn": (["turn", "roll"], ["", "x"]),
    "--format": (["md", "html"], ["pdf", "", "MD"]),
    "--engine": (["auto", "fast", "loop"], ["", "x"]),
    "--log-level": (["info", "debug", "warning"], ["nope", ""]),
    "--host": (["127.0.0.1"], ["", " ", "no such host", "x" * 300]),
    "--robot-delay": (["0", "0.5"], ["-1", "nan", "inf", "1e308", "", "٢", "x"]),
    "--port": (["8000", "8765"], ["0", "65536", "-1", "٨٠", "", "9" * 5000, "80.5"]),
}
KINDS = (["boundary", "slice", "hog", "turn-score", "win"], ["", "nope", "WIN"])
UNKNOWN = ["--nope", "-z", "--json=yes", "--", "-", "--goal", "--help"]
DEFAULT_OPTIONS = ("--goal", "--games", "--out", "--strategies", "--players")  # given on most lines


def path_pool(tmp: Path) -> dict[str, tuple[list[str], list[str]]]:
    """Return valid and hostile paths in ``tmp`` for file options and database URLs."""
    (tmp / "afile.txt").write_text("not a folder\n")
    (tmp / "garbage.sqlite3").write_text("this is not a database\n" * 20)
    (tmp / "adir").mkdir(exist_ok=True)
    for suffix in ("png", "html", "md", "csv"):
        link = tmp / f"full.{suffix}"
        if not link.exists() and Path("/dev/full").exists():
            link.symlink_to("/dev/full")
    files = (
        [*(str(tmp / f"out.{s}") for s in ("png", "html", "md", "csv")), "out.png", "out.md", "rel.csv"],
        [
            *(str(tmp / f"full.{s}") for s in ("png", "html", "md", "csv")), str(tmp / "out.txt"),
            "", " ", "\t", str(tmp), str(tmp) + "/", str(tmp / "adir"), str(tmp / "missing" / "x.png"),
            str(tmp / "missing" / "x.md"), str(tmp / "afile.txt" / "x.png"), str(tmp / "afile.txt" / "x.md"),
            str(tmp / ("x" * 300 + ".png")), str(tmp / ("y" * 250 + ".md")), str(tmp / ("z" * 252 + ".html")),
            "/sys/pigdice.png", "/sys/pigdice.md", "/sys/pigdice.csv", "/proc/pigdice.png", "/proc/pigdice.csv",
            "/", ".", ".png", "-", "rel/x.png", "/" + "d" * 5000 + "/x.png",
        ],
    )  # fmt: skip
    urls = (
        [f"sqlite:///{tmp / 'ok.sqlite3'}", "sqlite:///:memory:"],
        [
            f"sqlite:///{tmp / 'garbage.sqlite3'}", f"sqlite:///{tmp}", f"sqlite:///{tmp / 'missing' / 'db.sqlite3'}",
            f"sqlite:///{tmp / 'afile.txt' / 'db.sqlite3'}", "nonsense://x", "", " ", "sqlite://",
            "mysql://u@localhost/x", "sqlite:////sys/x.sqlite3", "postgresql+psycopg://u:p@127.0.0.1:9/db",
            "x" * 300,
        ],
    )  # fmt: skip
    return {"files": files, "urls": urls}


def command_catalog(app: Any) -> dict[str, dict[str, Any]]:
    """Return each command's arguments and options (names, flags) read from the app."""
    import typer.main

    group = typer.main.get_command(app)
    catalog: dict[str, dict[str, Any]] = {}
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        arguments, options = [], []
        for param in command.params:
            if getattr(param, "param_type_name", "") == "argument":
                arguments.append((param.name, bool(getattr(param, "required", False))))
            else:
                options.append((list(param.opts), bool(getattr(param, "is_flag", False))))
        catalog[name] = {"arguments": arguments, "options": options}
    return catalog


def pick(rng: np.random.Generator, pool: tuple[list[str], list[str]] | list[str]) -> str:
    """Return one value of ``pool``: a valid one with probability VALID, else a hostile one."""
    if isinstance(pool, tuple):
        pool = pool[0] if rng.random() < VALID else pool[1]
    return pool[int(rng.integers(len(pool)))]


def argument_pool(name: str) -> tuple[list[str], list[str]]:
    """Return the value pool of a positional argument."""
    if name == "kind":
        return KINDS
    if name in ("a", "b"):
        return STRATEGIES
    return VARIANTS


def option_pool(command: str, option: str, paths: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Return the value pool of an option that takes a value, by its name (and command)."""
    if option in CHOICES:
        return CHOICES[option]
    if option == "--goal":
        return GOALS
    if option in ("--score", "--opponent", "--turn-total", "--step"):
        return STATES
    if option in ("--games", "-n", "--seed") or (option in ("--players", "-k") and command == "tournament"):
        return NUMBERS
    if option in ("--players",):
        return SEATS
    if option in ("--strategies", "-s"):
        return SEATS if command == "tournament" else STRATEGIES
    if option in ("--param", "-p"):
        return PARAMS
    if option in ("--out", "--csv", "--export"):
        return paths["files"]
    if option == "--database-url":
        return paths["urls"]
    if option in ("--variant", "-v"):
        return VARIANTS
    return (NUMBERS[0], [*NUMBERS[1], "x" * 300])


def command_line(rng: np.random.Generator, catalog: dict[str, dict[str, Any]], paths: dict[str, Any]) -> list[str]:
    """Return one random command line (without the program name): mostly valid, with hostile values."""
    command = pick(rng, sorted(catalog))
    spec = catalog[command]
    args = [command]
    for name, required in spec["arguments"]:
        if rng.random() < (0.97 if required else 0.7):
            args.append(pick(rng, argument_pool(name)))
    options = spec["options"]
    chosen = [o for o in options if o[0][0] in DEFAULT_OPTIONS and rng.random() < 0.85]
    chosen += [options[int(rng.integers(len(options)))] for _ in range(int(rng.integers(0, 4)))]
    for opts, is_flag in chosen:
        option = pick(rng, opts)
        if option == "--help":
            continue
        args.append(option)
        if not is_flag:
            args.append(pick(rng, option_pool(command, option, paths)))
    if rng.random() < 0.06:
        args.append(pick(rng, UNKNOWN))
    if rng.random() < 0.03:
        args.append(pick(rng, VARIANTS))
    return args


class Hung(BaseException):
    """A command line that ran past the time limit."""


def _alarm(signum: int, frame: Any) -> None:
    raise Hung()


def main() -> None:
    """Run the fuzzer and print tracebacks per 1000 command lines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1000, help="command lines to run")
    parser.add_argument("--seed", type=int, default=2024, help="seed of the generator")
    parser.add_argument("--show", type=int, default=8, help="examples to print")
    parser.add_argument("--timeout", type=int, default=60, help="seconds before a line counts as hung")
    options = parser.parse_args()

    sys.path[:] = [str(Path(p).resolve()) if p else p for p in sys.path]  # relative PYTHONPATH survives chdir
    tmp = Path(tempfile.mkdtemp(prefix="pigdice-fuzz-"))
    os.environ["PIGDICE_CACHE_DIR"] = str(tmp / "cache")
    os.environ["PIGDICE_FAST"] = "1"
    os.environ.pop("PIGDICE_DATABASE_URL", None)
    work = tmp / "work"
    work.mkdir()
    os.chdir(work)
    try:
        import uvicorn

        uvicorn.run = lambda *args, **kwargs: None  # serve must never bind a port here
    except ImportError:
        pass
    from typer.testing import CliRunner

    import pigdice
    from pigdice.cli.app import app

    print(f"pigdice from {Path(pigdice.__file__).parent}")
    catalog = command_catalog(app)
    paths = path_pool(tmp)
    rng = np.random.default_rng(options.seed)
    runner = CliRunner()
    failures: list[tuple[list[str], str]] = []
    hung: list[list[str]] = []
    internal: list[list[str]] = []  # one-line "internal error" reports: no traceback, but a bug all the same
    kinds: collections.Counter[str] = collections.Counter()
    per_command: collections.Counter[str] = collections.Counter()
    exit_codes: collections.Counter[int] = collections.Counter()
    signal.signal(signal.SIGALRM, _alarm)
    started = time.perf_counter()
    for _ in range(options.lines):
        args = command_line(rng, catalog, paths)
        signal.alarm(options.timeout)
        try:
            result = runner.invoke(app, args, input="q\n", catch_exceptions=True)
        except Hung:
            hung.append(args)
            continue
        finally:
            signal.alarm(0)
        exit_codes[result.exit_code] += 1
        escaped = result.exception is not None and not isinstance(result.exception, SystemExit)
        if isinstance(result.exception, Hung):
            hung.append(args)
            continue
        text = result.output
        if "internal error" in text:
            internal.append(args)
        if escaped or "Traceback" in text:
            kind = type(result.exception).__name__ if escaped else "Traceback in output"
            kinds[kind] += 1
            per_command[args[0]] += 1
            failures.append((args, f"{kind}: {str(result.exception)[:160] if escaped else ''}"))
    seconds = time.perf_counter() - started
    lines = options.lines
    print(f"{lines} command lines in {seconds:.0f} s (seed {options.seed}); exit codes {dict(exit_codes)}")
    print(f"hung (over {options.timeout} s): {len(hung)}")
    print(f"internal errors reported in one line: {len(internal)}")
    print(f"tracebacks: {len(failures)}")
    print(f"tracebacks per 1000 command lines: {1000 * len(failures) / lines:.1f}")
    if kinds:
        print("by exception: " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
        print("by command: " + ", ".join(f"{k} {n}" for k, n in per_command.most_common()))
    for args, what in failures[: options.show]:
        shown = shlex.join(a if len(a) <= 60 else a[:40] + f"...({len(a)} chars)" for a in args)
        print(f"  pigdice {shown}\n      {what}")
    for args in internal[: options.show]:
        print(f"  internal error: pigdice {shlex.join(a[:60] for a in args)}")
    for args in hung[: options.show]:
        print(f"  hung: pigdice {shlex.join(a[:60] for a in args)}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
