"""Fuzzing the command line: hostile argument lists for every command, run in-process, never a traceback.

Each example is one command of the real app (read from the app itself) with real option names
and hostile values: numbers far out of range, digits of other scripts, signs, blanks, long
strings, odd paths in a temporary folder (a folder, a missing folder, a file used as a folder,
names too long), unknown options. Nothing may escape the app but ``SystemExit``, no output may
show a traceback, and no error may be the app's "internal error" line (a bug it caught).
Values that would be valid are kept small (goals up to 20, a few games) so the suite stays quick;
``serve`` runs with ``uvicorn.run`` replaced, so no port is bound.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pigdice.cli.app import app
from pigdice.cli.preparing import PARTS

runner = CliRunner()


def catalog() -> dict[str, tuple[list[tuple[str, bool]], list[tuple[list[str], bool]]]]:
    """Return each command's (arguments, options) as the app declares them: names, required, flags."""
    import typer.main

    group: Any = typer.main.get_command(app)
    found = {}
    for name, command in group.commands.items():
        arguments, options = [], []
        for param in command.params:
            if param.param_type_name == "argument":
                arguments.append((param.name, bool(param.required)))
            elif "--help" not in param.opts:
                options.append((list(param.opts), bool(param.is_flag)))
        found[name] = (arguments, options)
    return found


COMMANDS = catalog()
GOAL_COMMANDS = {name for name, (_, options) in COMMANDS.items() if any("--goal" in opts for opts, _ in options)}

SMALL = st.integers(1, 20).map(str)
OUT_OF_RANGE = st.one_of(
    st.integers(-(10**12), 0).map(str),
    st.integers(10**12, 10**80).map(str),
    st.just("9" * 5000),
)
OTHER_DIGITS = st.text(st.characters(categories=["Nd", "No"]), min_size=1, max_size=6).filter(
    lambda text: not (text.isascii() and text.isdigit())
)
ODD_NUMBERS = st.sampled_from(["5.0", "1e3", "0x10", "1_0", "+5", " 5", "5 ", "", " ", "nan", "inf", "ten", "-0"])
NUMBERS = st.one_of(SMALL, OUT_OF_RANGE, OTHER_DIGITS, ODD_NUMBERS, st.text(max_size=12))
GOALS = st.one_of(st.sampled_from(["2", "3", "5", "10", "20"]), NUMBERS)
TEXT = st.text(max_size=30) | st.integers(200, 3000).map(lambda n: "x" * n)
VALID_VARIANTS = ["pig", "hog", "two-dice-pig", "big-pig", "swine-herd", "piggy-six", "pass-the-pigs", "pig-dice"]
VARIANTS = st.sampled_from([*VALID_VARIANTS, "hog-reroll", "pig,hog", "PIG", "nope", "pig,", "pïg", "٢"]) | st.text(
    max_size=20
)
VALID_STRATEGIES = ["hold:20", "hold:5", "optimal", "keep-pace", "max-score", "rolls:3", "random", "dice:5"]
BAD_STRATEGIES = ["hold:٢٠", "hold:²", "hold:-1", "hold:" + "9" * 5000, "you", "", ",", "py:/nonexistent.py:f"]
STRATEGIES = st.sampled_from([*VALID_STRATEGIES, "hold:20+dice:2", *BAD_STRATEGIES, "python:os:sep"]) | TEXT
SEATS = st.lists(STRATEGIES, min_size=0, max_size=4).map(",".join)
VALID_PARAMS = ["max_dice=3", "max_dice=10", "oinker=0.01", "snake_eyes=set-25", "bad=sevens", "double_ones=bust"]
BAD_PARAMS = ["x=²", "max_dice=٢", "max_dice=" + "9" * 5000, "=", "a", "goal=5", "max_dice=-3", "oinker=٠.٥"]
PARAMS = st.sampled_from([*VALID_PARAMS, *BAD_PARAMS, "oinker=1e-999"]) | st.text(max_size=20)
CHOICES = {
    "--endgame": ["first-to-goal", "final-round", "equal-turns"],
    "--ties": ["shared", "first-to-reach"],
    "--final-turn": ["turn", "roll"],
    "--format": ["md", "html"],
    "--engine": ["auto", "fast", "loop"],
    "--log-level": ["info", "debug"],
    "--host": ["127.0.0.1"],
    "--robot-delay": ["0", "0.5", "-1", "nan", "1e308", "٢"],
    "--port": ["8000", "0", "65536", "٨٠"],
    "--kind": ["boundary", "slice", "hog", "turn-score", "win"],
}
UNKNOWN = st.sampled_from(["--nope", "-z", "--json=yes", "--", "-", "--goal", "--players"])


def paths(folder: Path) -> st.SearchStrategy[str]:
    """Return a strategy for files to write: fine ones in ``folder`` and every kind of bad one."""
    named = [
        *(str(folder / f"out.{suffix}") for suffix in ("png", "html", "md", "csv", "txt")),
        "out.md",
        "out.png",
        "",
        " ",
        str(folder),
        str(folder / "missing" / "x.png"),
        str(folder / "a-file.txt" / "x.png"),
        str(folder / ("x" * 300 + ".png")),
        str(folder / ("y" * 245 + ".md")),
        "/" + "d/" * 2100 + "x.png",
        "/proc/pigdice.png",
        "/sys/pigdice.csv",
    ]
    return st.sampled_from(named) | st.text(max_size=20)


def urls(folder: Path) -> st.SearchStrategy[str]:
    """Return a strategy for database URLs, a few that open and many that do not."""
    return st.sampled_from(
        [
            f"sqlite:///{folder / 'ok.sqlite3'}",
            f"sqlite:///{folder / 'garbage.sqlite3'}",
            f"sqlite:///{folder}",
            f"sqlite:///{folder / 'missing' / 'db.sqlite3'}",
            "nonsense://x",
            "",
            " ",
            "sqlite://",
        ]
    ) | st.text(max_size=20)


def mostly(valid: list[str], hostile: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Return a strategy drawing from ``valid`` three times in four, else from ``hostile``."""
    return st.integers(0, 3).flatmap(lambda n: st.sampled_from(valid) if n else hostile)


def values(command: str, option: str, folder: Path) -> st.SearchStrategy[str]:
    """Return a strategy for the value of ``option`` of ``command`` (mostly valid, often hostile)."""
    valid = VALID.get(option)
    hostile = hostile_values(command, option, folder)
    return mostly(valid, hostile) if valid else hostile


VALID = {
    **CHOICES,
    "--goal": ["2", "5", "10", "20"],
    "--games": ["2", "5", "20"],
    "-n": ["2", "5", "20"],
    "--seed": ["0", "1", "12345"],
    "--score": ["0", "1", "3"],
    "--opponent": ["0", "1", "3"],
    "--turn-total": ["0", "1", "3"],
    "--step": ["1", "2", "5"],
    "--players": ["hold:20,hold:25", "hold:5,rolls:3", "optimal,keep-pace", "random,max-score", "you,hold:20"],
    "--strategies": ["hold:20", "hold:5,hold:9", "optimal,keep-pace", "hold:20,max-score,optimal"],
    "-s": ["hold:5,hold:9", "optimal,keep-pace", "hold:20,max-score,optimal", "rolls:3,random"],
    "--param": VALID_PARAMS,
    "-p": VALID_PARAMS,
    "--variant": VALID_VARIANTS,
    "-v": VALID_VARIANTS,
}


def hostile_values(command: str, option: str, folder: Path) -> st.SearchStrategy[str]:
    """Return a strategy for hostile values of ``option`` of ``command``."""
    if option in CHOICES:
        return st.sampled_from(CHOICES[option]) | TEXT
    if option == "--goal":
        return GOALS
    if option in ("--players", "-k") and command == "tournament":
        return NUMBERS
    if option in ("--games", "-n", "--seed", "--score", "--opponent", "--turn-total", "--step"):
        return NUMBERS
    if option == "--players":
        return SEATS
    if option in ("--strategies", "-s"):
        return SEATS
    if option in ("--param", "-p"):
        return PARAMS
    if option in ("--out", "--csv", "--export"):
        return paths(folder)
    if option == "--database-url":
        return urls(folder)
    if option in ("--variant", "-v"):
        return VARIANTS
    return TEXT | NUMBERS


def argument(name: str) -> st.SearchStrategy[str]:
    """Return a strategy for a positional argument (mostly valid, often hostile)."""
    if name == "kind":
        return mostly(CHOICES["--kind"], TEXT)
    if name in ("a", "b"):
        return mostly(VALID_STRATEGIES, STRATEGIES)
    return mostly(VALID_VARIANTS, VARIANTS)


@st.composite
def command_lines(draw: st.DrawFn, folder: Path) -> list[str]:
    """Draw one command line: a command, its arguments, a small goal, then options with hostile values."""
    command = draw(st.sampled_from(sorted(COMMANDS)))
    arguments, options = COMMANDS[command]
    args = [command]
    for name, required in arguments:
        if command == "prepare":  # a valid part compiles kernels: only names that are not parts
            args.append(draw(st.one_of(VARIANTS, TEXT).filter(lambda text: text.strip().lower() not in PARTS)))
        elif required or draw(st.booleans()):
            args.append(draw(argument(name)))
    if command in GOAL_COMMANDS:
        args += ["--goal", draw(st.sampled_from(["2", "5", "10", "20"]))]  # never the default 100: stay quick
    if command == "simulate":
        args += ["--games", "20"]  # a few games unless the options below say otherwise
    if command == "tournament":
        args += ["-s", draw(st.sampled_from(VALID["-s"]))]
    for _ in range(draw(st.integers(0, 4 if options else 0))):  # some commands have no options
        names, is_flag = draw(st.sampled_from(options))
        option = draw(st.sampled_from(names))
        args.append(option)
        if not is_flag:
            args.append(draw(values(command, option, folder)))
    if draw(st.integers(0, 9)) == 0:
        args.append(draw(UNKNOWN))
    return args


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Return a scratch folder, made the working folder (relative paths land there), with odd files in it."""
    where = tmp_path_factory.mktemp("cli-fuzz")
    (where / "a-file.txt").write_text("not a folder\n")
    (where / "garbage.sqlite3").write_text("this is not a database\n" * 20)
    before = Path.cwd()
    os.chdir(where)
    try:
        yield where
    finally:
        os.chdir(before)


@pytest.fixture(scope="module")
def no_server() -> Iterator[None]:
    """Replace ``uvicorn.run`` so a valid ``serve`` returns at once instead of binding a port."""
    try:
        import uvicorn
    except ImportError:
        yield
        return
    real = uvicorn.run
    uvicorn.run = lambda *args, **kwargs: None
    try:
        yield
    finally:
        uvicorn.run = real


FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.usefixtures("no_server", "monkeypatch_env")
@settings(FUZZ, max_examples=30)
@given(data=st.data())
def test_no_command_line_ends_in_a_traceback(data: st.DataObject, folder: Path) -> None:
    check_a_command_line(data, folder)


@pytest.mark.slow
@pytest.mark.usefixtures("no_server", "monkeypatch_env")
@settings(FUZZ, max_examples=200)
@given(data=st.data())
def test_no_command_line_ends_in_a_traceback_in_200_tries(data: st.DataObject, folder: Path) -> None:
    check_a_command_line(data, folder)


def check_a_command_line(data: st.DataObject, folder: Path) -> None:
    """Run one drawn command line: it ends in a message or a result, never in a traceback."""
    args = data.draw(command_lines(folder), label="args")
    result = runner.invoke(app, args, input="q\n")
    event(f"{args[0]}: exit {result.exit_code}")  # shown by --hypothesis-show-statistics
    escaped = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not escaped, f"pigdice {args!r} raised {result.exception!r}"
    assert "Traceback" not in result.output, args
    assert "internal error" not in result.output, (args, result.output[-500:])
    if result.exit_code != 0:
        assert result.exit_code in (1, 2), (args, result.exit_code)


@pytest.fixture(scope="module")
def monkeypatch_env() -> Iterator[None]:
    """Keep robots fast and the web's database setting out of the way for the whole module."""
    saved = {key: os.environ.get(key) for key in ("PIGDICE_FAST", "PIGDICE_DATABASE_URL", "PIGDICE_DEBUG")}
    os.environ["PIGDICE_FAST"] = "1"
    os.environ.pop("PIGDICE_DATABASE_URL", None)
    os.environ.pop("PIGDICE_DEBUG", None)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
