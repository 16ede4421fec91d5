"""Issue 9, the command line: every hostile value is refused in one line, never a traceback.

One test (or one parametrized case) per class the issue reports: option values that ``int``
accepts but should not (other scripts' digits, signs, spaces, underscores, decimals), numbers far
out of range, ``--param`` values, files that cannot be written (blank, a folder, a missing folder,
a file as a folder, a name too long, no permission, a full disk, a read-only file system), a goal
too small to draw, states past the goal, strategies whose games never end, robots that would
play forever, a database that cannot be opened, and errors that are bugs.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pigdice.cli import checks
from pigdice.cli import solving as cli_solving
from pigdice.cli import study as cli_study
from pigdice.cli.app import app
from pigdice.errors import BadParameterError
from pigdice.study.limits import MAX_GAMES

runner = CliRunner()
HUGE = "1" + "0" * 40  # 10^40
ENORMOUS = "9" * 5000  # more digits than int() reads by default


def run(args: list[str], **kwargs: Any) -> Any:
    """Run the app in-process and check that nothing escaped and no traceback was printed."""
    result = runner.invoke(app, args, **kwargs)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result


def refused(args: list[str], *expected: str, code: int = 2, **kwargs: Any) -> str:
    """Assert ``args`` fail with ``code`` and one ``error:`` line on stderr holding every ``expected``; return it."""
    result = run(args, **kwargs)
    assert result.exit_code == code, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    line = lines[0]
    assert line.startswith("error: "), line
    for text in expected:
        assert text in line, line
    return line


# -- whole numbers ------------------------------------------------------------------------------
# (command line without the option, option, low, high)
NUMBER_OPTIONS = [
    (["simulate", "pig"], "--games", 1, MAX_GAMES),
    (["simulate", "pig", "--goal", "10"], "--seed", 0, 2**63 - 1),
    (["rules", "pig"], "--goal", 1, 100_000),
    (["solve", "pig"], "--goal", 1, 100_000),
    (["compare", "hold:20", "hold:25", "--goal", "20"], "--games", 2, MAX_GAMES),
    (["tournament", "-s", "hold:20,hold:25", "--goal", "20"], "--games", 1, MAX_GAMES),
    (["tournament", "-s", "hold:20,hold:25", "--goal", "20"], "--players", 2, 100),
    (["hint", "pig", "--goal", "20"], "--score", 0, 99_999),
    (["hint", "pig", "--goal", "20"], "--opponent", 0, 99_999),
    (["hint", "pig", "--goal", "20"], "--turn-total", 0, 1_000_000),  # totals run past the goal in endgames
    (["policy", "pig", "--goal", "20"], "--step", 1, 100_000),
    (["plot", "win", "pig", "--out", "x.png", "--goal", "20"], "--opponent", 0, 99_999),
    (["play", "pig", "--players", "hold:20,hold:25"], "--seed", 0, 2**63 - 1),
    (["serve"], "--port", 1, 65535),
]
NOT_NUMBERS = {
    "superscript two": "²",
    "arabic-indic digits": "٢٠",
    "fullwidth digit": "５",
    "devanagari digits": "१०",
    "underscore": "1_0",
    "decimal point": "5.0",
    "exponent": "1e3",
    "hex": "0x10",
    "plus sign": "+5",
    "minus sign": "-5",
    "leading space": " 5",
    "blank": " ",
    "empty": "",
    "word": "ten",
    "10^40": HUGE,
    "5000 digits": ENORMOUS,
}


def _id(case: tuple[list[str], str, int, int]) -> str:
    return f"{case[0][0]} {case[1]}"


@pytest.mark.parametrize("case", NUMBER_OPTIONS, ids=[_id(c) for c in NUMBER_OPTIONS])
@pytest.mark.parametrize("value", list(NOT_NUMBERS.values()), ids=list(NOT_NUMBERS))
def test_number_options_take_ascii_digits_in_their_stated_range(
    case: tuple[list[str], str, int, int], value: str
) -> None:
    args, option, low, high = case
    line = refused([*args, option, value], option, f"from {low} to {high}")
    assert len(line) < 300  # a 5000-digit value is not echoed back


@pytest.mark.parametrize("case", NUMBER_OPTIONS, ids=[_id(c) for c in NUMBER_OPTIONS])
def test_number_options_refuse_one_past_either_end_of_the_range(case: tuple[list[str], str, int, int]) -> None:
    args, option, low, high = case
    refused([*args, option, str(high + 1)], option, f"from {low} to {high}", f"got {high + 1}")
    if low > 0:
        refused([*args, option, str(low - 1)], option, f"got {low - 1}")


@pytest.mark.parametrize("case", NUMBER_OPTIONS, ids=[_id(c) for c in NUMBER_OPTIONS])
def test_number_options_state_their_range_in_help(case: tuple[list[str], str, int, int]) -> None:
    args, option, low, high = case
    result = run([args[0], "--help"], env={"COLUMNS": "300"})
    assert result.exit_code == 0
    lines = [line for line in result.stdout.splitlines() if f" {option} " in line and line.startswith("│")]
    assert lines and f"{low} to {high}" in lines[0], lines


def test_games_of_ten_to_the_forty_is_refused_not_run() -> None:
    refused(["simulate", "pig", "--games", HUGE], "--games", f"from 1 to {MAX_GAMES}", "41 digits")
    refused(["simulate", "pig", "--games", ENORMOUS], "--games", f"from 1 to {MAX_GAMES}", "5000 digits")
    refused(["compare", "hold:20", "hold:25", "-n", HUGE], "--games")


def test_a_number_in_range_still_works_and_leading_zeros_are_digits() -> None:
    result = run(["simulate", "pig", "--goal", "010", "--games", "0003", "--seed", "7", "--json"])
    assert result.exit_code == 0, result.output
    assert '"games": 3' in result.stdout


def test_robot_delay_takes_a_plain_decimal_in_range() -> None:
    for value in ("nan", "inf", "-1", "1e308", "٢", "11", ""):
        refused(["serve", "--robot-delay", value], "--robot-delay", "from 0 to 10")


def test_whole_number_reads_defaults_and_refuses_booleans() -> None:
    assert checks.whole_number(5, "--x", 1, 9) == 5
    assert checks.whole_number("09", "--x", 1, 9) == 9
    with pytest.raises(BadParameterError):
        checks.whole_number(True, "--x", 0, 9)
    with pytest.raises(BadParameterError, match="from 1 to 9"):
        checks.whole_number(10, "--x", 1, 9)


# -- --param ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("param", "expected"),
    [
        ("x=²", "digits 0-9"),
        ("max_dice=٢", "digits 0-9"),
        ("max_dice=５", "digits 0-9"),
        ("max_dice=" + ENORMOUS, "too large"),
        ("max_dice=" + HUGE, "too large"),
        ("oinker=٠.٥", "digits 0-9"),
    ],
)
def test_param_values_in_other_digits_or_too_long_are_refused(param: str, expected: str) -> None:
    variant = "pass-the-pigs" if param.startswith("oinker") else "hog"
    for command in (["rules", variant], ["simulate", variant, "--games", "2"], ["solve", variant]):
        line = refused([*command, "--param", param], "--param", expected)
        assert len(line) < 300


def test_param_whole_numbers_still_read() -> None:
    result = run(["rules", "hog", "--param", "max_dice=12", "--json"])
    assert result.exit_code == 0 and '"max_dice": 12' in result.stdout


# -- files to write --------------------------------------------------------------------------
@pytest.fixture
def places(tmp_path: Path) -> dict[str, str]:
    """Return paths that cannot be written, by what is wrong with them."""
    (tmp_path / "a-file.txt").write_text("not a folder\n")
    (tmp_path / "a-folder").mkdir()
    return {
        "blank": " ",
        "empty": "",
        "tab": "\t",
        "a folder": str(tmp_path / "a-folder"),
        "missing folder": str(tmp_path / "missing" / "out.png"),
        "file as folder": str(tmp_path / "a-file.txt" / "out.png"),
        "name too long": str(tmp_path / ("x" * 300 + ".png")),
        "path too long": "/" + "d/" * 2100 + "out.png",
        "NUL character": str(tmp_path / "a\0b.png"),
    }


WHY = {
    "blank": "needs a file name",
    "empty": "needs a file name",
    "tab": "needs a file name",
    "a folder": "is a folder",
    "missing folder": "does not exist",
    "file as folder": "is a file, not a folder",
    "name too long": "too long",
    "path too long": "too long",
    "NUL character": "NUL",
}
FILE_COMMANDS = {
    "analyze --out": (["analyze", "pig", "--goal", "10", "--out"], "--out"),
    "plot --out": (["plot", "win", "pig", "--goal", "10", "--out"], "--out"),
    "tournament --csv": (["tournament", "-s", "hold:5,hold:8", "--goal", "10", "--csv"], "--csv"),
    "policy --export": (["policy", "pig", "--goal", "10", "--export"], "--export"),
}


@pytest.mark.parametrize("command", list(FILE_COMMANDS), ids=list(FILE_COMMANDS))
@pytest.mark.parametrize("what", list(WHY), ids=list(WHY))
def test_files_that_cannot_be_written_are_refused_before_any_work(
    places: dict[str, str], command: str, what: str
) -> None:
    args, option = FILE_COMMANDS[command]
    line = refused([*args, places[what]], option)
    assert WHY[what] in line or (command == "plot --out" and ".png or .html" in line), line
    assert len(line) < 400


def test_a_folder_that_cannot_be_written_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checks.os, "access", lambda path, mode: False)  # as if not root, in a read-only folder
    refused(["analyze", "pig", "--goal", "10", "--out", str(tmp_path / "r.md")], "--out", "cannot be written")
    (tmp_path / "old.csv").write_text("")
    refused(["policy", "pig", "--goal", "10", "--export", str(tmp_path / "old.csv")], "--export", "cannot be written")


@pytest.mark.parametrize(
    ("code", "meaning"),
    [
        (errno.EROFS, "Read-only file system (EROFS)"),
        (errno.ENOSPC, "No space left on device (ENOSPC)"),
        (errno.EISDIR, "Is a directory (EISDIR)"),
        (errno.ENOTDIR, "Not a directory (ENOTDIR)"),
        (errno.ENAMETOOLONG, "File name too long (ENAMETOOLONG)"),
        (errno.ENOENT, "No such file or directory (ENOENT)"),
        (errno.EACCES, "Permission denied (EACCES)"),
    ],
)
def test_write_errors_name_the_file_and_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, meaning: str
) -> None:
    import pigdice.study.plots as plots
    import pigdice.study.report as report

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise OSError(code, os.strerror(code), str(tmp_path / "r-boundary.png"))

    monkeypatch.setattr(report, "write_report", fail)
    out = str(tmp_path / "r.md")
    refused(["analyze", "pig", "--goal", "10", "--out", out], "cannot write", "r-boundary.png", meaning)
    monkeypatch.setattr(plots, "plot", fail)
    refused(["plot", "win", "pig", "--goal", "10", "--out", str(tmp_path / "w.png")], "cannot write", meaning)
    monkeypatch.setattr(cli_study.csv, "DictWriter", fail)
    refused(["tournament", "-s", "hold:5,hold:8", "--goal", "10", "--csv", str(tmp_path / "t.csv")], meaning)
    monkeypatch.setattr(cli_solving, "export_csv", fail)
    refused(["policy", "pig", "--goal", "10", "--export", str(tmp_path / "p.csv")], meaning)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_an_output_linked_to_a_device_is_refused_as_a_link(tmp_path: Path) -> None:
    # a full disk at write time is ENOSPC in test_write_errors_name_the_file_and_the_reason; a link to
    # /dev/full (once this test's way to fill a disk) is now refused before any work: only plain files
    for suffix in ("md", "csv", "png"):
        (tmp_path / f"full.{suffix}").symlink_to("/dev/full")
    link = "is a symbolic link, not a plain file"
    refused(["analyze", "pig", "--goal", "10", "--out", str(tmp_path / "full.md")], link)
    refused(["tournament", "-s", "hold:5,hold:8", "--goal", "10", "--csv", str(tmp_path / "full.csv")], link)
    refused(["policy", "pig", "--goal", "10", "--export", str(tmp_path / "full.csv")], link)
    refused(["plot", "win", "pig", "--goal", "10", "--out", str(tmp_path / "full.png")], link)


def test_a_report_name_too_long_for_its_figures_is_refused(tmp_path: Path) -> None:
    name = "y" * 245 + ".md"  # fits, but its figures (NAME-turn-score.png) would not
    refused(["analyze", "pig", "--goal", "10", "--out", str(tmp_path / name)], "--out", "too long for the figures")


@pytest.mark.slow
def test_analyze_and_plot_still_write_where_they_can(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run(["analyze", "pig", "--goal", "10", "--out", "report.md"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "report.md").is_file()
    result = run(["plot", "win", "pig", "--goal", "10", "--out", "win.png", "--json"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "win.png").stat().st_size > 0


# -- goals too small to draw -------------------------------------------------------------------
def test_goal_1_analysis_works_but_its_figures_are_refused(tmp_path: Path) -> None:
    result = run(["analyze", "pig", "--goal", "1", "--json"])
    assert result.exit_code == 0, result.output
    refused(["analyze", "pig", "--goal", "1", "--out", str(tmp_path / "r.md")], "goal of at least 2")
    refused(["analyze", "hog-reroll", "--goal", "1", "--out", str(tmp_path / "r.md")], "goal of at least 2")
    for kind in ("boundary", "slice", "hog", "turn-score", "win"):
        variant = "hog" if kind == "hog" else "pig"
        refused(["plot", kind, variant, "--goal", "1", "--out", str(tmp_path / "p.png")], "goal of at least 2")


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["boundary", "slice", "hog", "turn-score", "win"])
def test_goal_2_figures_draw(tmp_path: Path, kind: str) -> None:
    variant = "hog" if kind == "hog" else "pig"
    result = run(["plot", kind, variant, "--goal", "2", "--out", str(tmp_path / "p.png")])
    assert result.exit_code == 0, result.output


# -- states past the goal --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--turn-total", "1000", "--goal", "10"], "already reaches the goal 10"),
        (["--turn-total", "10", "--goal", "10"], "give a turn total from 0 to 9"),
        (["--score", "4", "--turn-total", "6", "--goal", "10"], "from 0 to 5"),
        (["--score", "10", "--goal", "10"], "--score 10 has already reached the goal 10"),
        (["--opponent", "12", "--goal", "10"], "the game is over"),
    ],
)
def test_hint_refuses_states_past_the_goal(args: list[str], expected: str) -> None:
    refused(["hint", "pig", *args], expected)


def test_hint_answers_the_last_state_before_the_goal() -> None:
    result = run(["hint", "pig", "--score", "4", "--turn-total", "5", "--goal", "10", "--json"])
    assert result.exit_code == 0, result.output


# -- strategies in other digits --------------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "pig", "--players", "hold:٢٠,hold:20", "--goal", "20"],
        ["play", "pig", "--players", "you,hold:٢٠"],
        ["compare", "hold:٢٠", "hold:20", "--goal", "20"],
        ["tournament", "-s", "hold:²,hold:20", "--goal", "20"],
        ["analyze", "pig", "--strategies", "hold:٢٠", "--goal", "20"],
        ["simulate", "hog", "--players", "dice:５,dice:3", "--goal", "20"],
    ],
    ids=["simulate", "play", "compare", "tournament", "analyze", "hog dice"],
)
def test_strategy_numbers_in_other_digits_are_refused_on_every_command(args: list[str]) -> None:
    refused(args, "whole number")


# -- games that never end -------------------------------------------------------------------
@pytest.fixture
def lazy(tmp_path: Path) -> Path:
    """Return a plug-in file with strategies that never score, never hold, and one that plays."""
    path = tmp_path / "lazy.py"
    path.write_text(
        "def never_rolls(score, opponent, turn_total, variant):\n"
        "    return 'hold'\n"
        "def never_rolls_either(score, opponent, turn_total, variant):\n"
        "    return False\n"
        "def always_rolls(score, opponent, turn_total, variant):\n"
        "    return 'roll'\n"
        "def holds_at_5(score, opponent, turn_total, variant):\n"
        "    return 'hold' if turn_total >= 5 else 'roll'\n"
    )
    return path


def test_exact_compare_of_two_strategies_that_never_score_is_an_error_not_one_half(lazy: Path) -> None:
    never, either = f"py:{lazy}:never_rolls", f"py:{lazy}:never_rolls_either"
    line = refused(["compare", never, never, "--goal", "10"], "ever ends")
    assert "0.5" not in line
    refused(["compare", never, either, "--goal", "10", "--json"], "ever ends")


def test_compare_where_one_side_scores_still_answers(lazy: Path) -> None:
    result = run(["compare", f"py:{lazy}:never_rolls", f"py:{lazy}:holds_at_5", "--goal", "10", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["exact"]["average"] == pytest.approx(0.0, abs=1e-9)


def test_compare_of_a_fair_pair_is_not_mistaken_for_a_game_that_never_ends() -> None:
    result = run(["compare", "hold:5", "hold:5", "--goal", "10", "--json"])
    assert result.exit_code == 0, result.output


def test_tournament_and_analyze_refuse_games_that_never_end(lazy: Path) -> None:
    never, either = f"py:{lazy}:never_rolls", f"py:{lazy}:never_rolls_either"
    refused(["tournament", "-s", f"{never},{either},hold:5", "--goal", "10"], "ever ends")
    refused(["analyze", "pig", "--strategies", never, "--goal", "10"], "ever ends")


@pytest.mark.slow
def test_simulations_of_robots_that_never_end_stop_with_a_message(lazy: Path) -> None:
    never, always = f"py:{lazy}:never_rolls", f"py:{lazy}:always_rolls"
    refused(["simulate", "pig", "--players", f"{never},{never}", "--goal", "10", "--games", "2"], "hold or score")
    refused(["compare", never, never, "--goal", "10", "--games", "2"], "never end")
    loop = ["--engine", "loop", "--games", "1"]  # the engine loop: a robot that never holds never banks
    refused(["simulate", "pig", "--players", f"{always},{always}", "--goal", "10", *loop], "hold or score")


def test_play_stops_robots_that_would_play_forever(lazy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pigdice.terminal import game

    monkeypatch.setattr(game, "ROBOT_MOVES_LIMIT", 300)
    always = f"py:{lazy}:always_rolls"
    result = run(["play", "pig", "--players", f"{always},{always}", "--goal", "10", "--seed", "3"])
    assert result.exit_code == game.EXIT_ENDLESS
    said = " ".join(result.stdout.split("without anyone banking")[1].split("seed")[0].split())
    assert "this game may never end" in said and "Game stopped" in said
    assert "--" not in said and "limit" not in said.lower()  # a player's words: no flags or parameter names


def test_play_counts_only_moves_without_score_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    from pigdice.terminal import game

    monkeypatch.setattr(game, "ROBOT_MOVES_LIMIT", 30)
    result = run(["play", "pig", "--players", "hold:5,hold:6", "--goal", "100", "--seed", "3"])
    assert result.exit_code == 0, result.stdout[-500:]
    assert "wins" in result.stdout


def test_play_reads_odd_keys_as_unreadable_not_as_a_crash() -> None:
    keys = "\n".join(["r²", "r" + ENORMOUS, "roll:٢", "9" * 30, "q"]) + "\n"
    result = run(["play", "hog", "--players", "you,dice:3", "--goal", "20", "--seed", "1"], input=keys)
    assert result.exit_code == 0
    assert result.stdout.count("can't read") + result.stdout.count("not allowed") >= 3
    assert "Game abandoned" in result.stdout


# -- serve ----------------------------------------------------------------------------------
@pytest.fixture
def no_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make sure no test starts a real server."""
    uvicorn = pytest.importorskip("uvicorn")
    pytest.importorskip("sqlalchemy")

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the server must not start with a bad database")

    monkeypatch.setattr(uvicorn, "run", refuse)
    monkeypatch.delenv("PIGDICE_DATABASE_URL", raising=False)


@pytest.mark.usefixtures("no_server")
@pytest.mark.parametrize("case", ["text file", "folder", "missing folder", "file as folder", "bad url"])
def test_serve_with_a_database_it_cannot_open_says_so_in_one_line(tmp_path: Path, case: str) -> None:
    garbage = tmp_path / "games.sqlite3"
    garbage.write_text("this is not a database\n" * 50)
    target = {
        "text file": str(garbage),
        "folder": str(tmp_path),
        "missing folder": str(tmp_path / "missing" / "games.sqlite3"),
        "file as folder": str(garbage / "games.sqlite3"),
        "bad url": "",
    }[case]
    url = "nonsense:://" if case == "bad url" else f"sqlite:///{target}"
    result = run(["serve", "--database-url", url])
    assert result.exit_code != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert "database" in lines[0]
    assert (target and target in lines[0]) or url in lines[0], lines[0]


@pytest.mark.usefixtures("no_server")
def test_serve_refuses_blank_urls_hosts_and_log_levels() -> None:
    refused(["serve", "--database-url", " "], "--database-url is blank")
    refused(["serve", "--host", " "], "--host")
    refused(["serve", "--log-level", "loud"], "--log-level", "debug")


# -- errors that are not the input's fault ---------------------------------------------------
def test_a_bug_is_one_line_with_exit_1_and_debug_shows_the_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    from pigdice.cli import catalog

    def broken() -> list[Any]:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(catalog, "all_variants", broken)
    line = refused(["variants"], "internal error", "RuntimeError: kaboom", "PIGDICE_DEBUG", code=1)
    assert "Traceback" not in line
    monkeypatch.setenv("PIGDICE_DEBUG", "1")
    result = runner.invoke(app, ["variants"])
    assert isinstance(result.exception, RuntimeError)


def test_running_out_of_memory_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from pigdice.cli import catalog

    def hungry() -> list[Any]:
        raise MemoryError()

    monkeypatch.setattr(catalog, "all_variants", hungry)
    refused(["variants"], "out of memory", code=1)


def test_undecodable_command_line_bytes_are_printed_escaped() -> None:
    line = refused(["rules", "pig\udcff"], "unknown variant")
    line.encode("utf-8")  # printable on any terminal
