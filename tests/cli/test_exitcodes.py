"""The command line's exit codes: one module names them, and the terminal game returns the same numbers."""

from __future__ import annotations

from pigdice.cli import exitcodes
from pigdice.terminal import game


def test_the_exit_codes_are_distinct_and_as_shells_expect() -> None:
    codes = (exitcodes.EXIT_FAILED, exitcodes.EXIT_BAD_INPUT, exitcodes.EXIT_INTERRUPTED)
    assert codes == (1, 2, 130)  # 2 as argument parsers use; 130 is 128 + SIGINT, as shells report Ctrl-C


def test_the_terminal_game_returns_the_command_lines_codes() -> None:
    assert game.EXIT_INTERRUPTED == exitcodes.EXIT_INTERRUPTED
    assert game.EXIT_ENDLESS == exitcodes.EXIT_FAILED  # an endless robot game stopped: not the input's fault
