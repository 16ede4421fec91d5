"""Single keys on a terminal: a decision is one key press, numbers of dice end when they cannot grow.

``read_command`` is tested with a fake key source whose keys come after given pauses (a clock
that only moves while the reader waits); ``single_keys`` and ``TerminalKeys`` on a real
pseudo-terminal.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import termios
from collections.abc import Iterator

import pytest

from pigdice.terminal import game
from pigdice.terminal.keys import NUMBER_PAUSE, TerminalKeys, read_command, single_keys

PERSON = 3.0  # seconds between a person's presses of separate keys: longer than any wait of the reader


class FakeKeys:
    """Keys that arrive after given pauses; the clock moves only while the reader waits for a key."""

    def __init__(self, keys: list[tuple[float, str]]) -> None:
        self.keys = list(keys)
        self.waits: list[float] = []

    def key(self) -> str:
        """Return the next key at once (the reader blocks until it comes), or '' at the end."""
        return self.keys.pop(0)[1] if self.keys else ""

    def ready(self, timeout: float) -> bool:
        """Return True if the next key comes within ``timeout``; else let that much time pass."""
        self.waits.append(timeout)
        if not self.keys:
            return False
        gap, key = self.keys[0]
        if gap <= timeout:
            return True
        self.keys[0] = (gap - timeout, key)
        return False


def pressed(*keys: str, gap: float = PERSON) -> list[tuple[float, str]]:
    """Return keys pressed one by one, ``gap`` seconds apart."""
    return [(gap, key) for key in keys]


def sent(text: str) -> list[tuple[float, str]]:
    """Return a line sent all at once (a paste, or pexpect's sendline): its keys with no gap."""
    return [(PERSON, text[0]), *((0.0, key) for key in text[1:])]


def read(keys: list[tuple[float, str]], largest: int = 0) -> tuple[str, str, FakeKeys]:
    """Return the command read from ``keys``, what was echoed, and the key source (with what is left)."""
    source = FakeKeys(keys)
    echoed: list[str] = []
    command = read_command(source, echoed.append, largest)
    return command, "".join(echoed), source


def left(source: FakeKeys) -> list[str]:
    """Return the keys not read yet."""
    return [key for _, key in source.keys]


def test_a_letter_counts_at_once_without_enter() -> None:
    command, echoed, source = read(pressed("r", "h"))
    assert command == "r" and echoed == "r\n"
    assert left(source) == ["h"]  # the next key is left for the next question
    assert max(source.waits) < 0.1  # no waiting for Enter


def test_a_key_sent_with_enter_is_one_command() -> None:
    command, _, source = read(sent("h\n") + pressed("r"))
    assert command == "h"
    assert left(source) == ["r"]  # Enter was taken with the key: not a second, empty command


def test_enter_and_spaces_on_their_own_are_skipped() -> None:
    assert read(pressed("\n", " ", "\r", "\t", "q"))[0] == "q"


def test_a_line_that_arrives_at_once_is_read_as_a_line() -> None:
    assert read(sent("banana\n"))[0] == "banana"
    assert read(sent("roll:3\n"))[0] == "roll:3"
    assert read(sent("30\n"), largest=26)[0] == "30"
    assert read(sent("hold"))[0] == "hold"  # a paste without Enter ends with the keys
    command, echoed, _ = read(sent("rx\x7fo\n"))
    assert command == "ro" and echoed == "rx\b \bo\n"


@pytest.mark.parametrize(
    ("keys", "largest", "expected"),
    [
        (pressed("3", "1"), 26, "3"),  # 30 is too many: 3 counts at once
        (pressed("2", "6", gap=0.3), 26, "26"),
        (pressed("1", "2", gap=0.3), 26, "12"),
        (pressed("2", "7", gap=0.3), 26, "27"),  # too many, but what was typed: the game says so
        (pressed("1", "\n", gap=0.3), 26, "1"),  # Enter ends a number
        (pressed("2", "2", "2", gap=0.3), 26, "22"),  # two digits at most
        (pressed("1", "0", "0", gap=0.3), 100, "100"),
        (pressed("1", "0", gap=0.3), 100, "10"),
        (pressed("3"), 3, "3"),  # every count one digit: no waiting
        (pressed("1"), 3, "1"),
        (pressed("5"), 0, "5"),  # no dice to choose: a digit is just a key
    ],
)
def test_a_number_of_dice_ends_when_it_cannot_grow_or_on_enter(keys, largest, expected) -> None:
    assert read(keys, largest)[0] == expected


def test_a_pause_ends_a_number_that_could_grow() -> None:
    command, echoed, source = read(pressed("2", "5", gap=NUMBER_PAUSE + 0.5), largest=26)
    assert command == "2" and echoed == "2\n"
    assert left(source) == ["5"]


def test_a_number_can_be_erased() -> None:
    command, echoed, _ = read(pressed("1", "\x7f", "5", gap=0.3), largest=26)
    assert command == "5" and echoed == "1\b \b5\n"
    assert read(pressed("1", "\b", "\x7f", "h", gap=0.3), largest=26)[0] == "h"


def test_another_key_ends_a_number() -> None:
    command, _, source = read(pressed("1", "h", "r", gap=0.3), largest=26)
    assert command == "1" and left(source) == ["r"]


def test_arrow_keys_are_ignored() -> None:
    keys = [(PERSON, "\x1b"), (0.0, "["), (0.0, "A"), *pressed("r")]
    assert read(keys)[0] == "r"


@pytest.mark.parametrize("keys", [[], pressed("\x04"), pressed("\n", "\x04")])
def test_end_of_input_and_ctrl_d_end_the_game(keys) -> None:
    with pytest.raises(EOFError):
        read(keys)


def test_ctrl_c_interrupts() -> None:
    with pytest.raises(KeyboardInterrupt):
        read(pressed("\x03"))
    with pytest.raises(KeyboardInterrupt):
        read(pressed("1", "\x03", gap=0.3), largest=26)


# -- a real pseudo-terminal ------------------------------------------------------------------------
@contextlib.contextmanager
def pseudo_terminal() -> Iterator[tuple[int, io.TextIOWrapper]]:
    """Yield the writing end of a pty and its terminal end as a text stream (like sys.stdin)."""
    main, side = os.openpty()
    try:
        with open(side, encoding="utf-8") as stream:
            yield main, stream
    finally:
        os.close(main)


def modes(stream: io.TextIOWrapper) -> int:
    return termios.tcgetattr(stream.fileno())[3]


def test_single_keys_sets_cbreak_mode_and_restores_the_terminal_even_on_ctrl_c() -> None:
    with pseudo_terminal() as (_, stream):
        before = termios.tcgetattr(stream.fileno())
        assert modes(stream) & termios.ICANON and modes(stream) & termios.ECHO
        with pytest.raises(KeyboardInterrupt), single_keys(stream) as keys:
            assert keys is not None
            assert not modes(stream) & (termios.ICANON | termios.ECHO)  # one key at a time, not echoed
            assert modes(stream) & termios.ISIG  # Ctrl-C still interrupts
            raise KeyboardInterrupt
        assert termios.tcgetattr(stream.fileno()) == before


def test_single_keys_does_nothing_without_a_terminal() -> None:
    with single_keys(io.StringIO("r\n")) as keys:
        assert keys is None


def test_terminal_keys_read_a_key_sent_with_enter_as_one_command() -> None:
    with pseudo_terminal() as (main, stream), single_keys(stream) as keys:
        assert keys is not None
        os.write(main, b"h\nq")
        assert read_command(keys, lambda _: None) == "h"
        assert read_command(keys, lambda _: None) == "q"
        os.write(main, "é".encode())  # two bytes, one key
        assert keys.key() == "é"
        os.write(main, b"\x04")
        with pytest.raises(EOFError):
            read_command(keys, lambda _: None)


def test_keys_typed_while_robots_play_are_dropped_in_cbreak_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    with pseudo_terminal() as (main, stream), single_keys(stream) as keys:
        assert isinstance(keys, TerminalKeys)
        monkeypatch.setattr(sys, "stdin", stream)
        os.write(main, b"rrh")  # pressed during the robots' moves
        assert keys.ready(1.0)
        game.drop_typeahead()
        assert not keys.ready(0.05)
        os.write(main, b"h")  # pressed at the prompt
        assert read_command(keys, lambda _: None) == "h"
