"""Keys from a terminal: one key press a decision (cbreak mode), and commands read from single keys.

On a terminal a decision is one key press, without Enter: the terminal is put in cbreak mode for
the game (keys arrive one by one and are not echoed) and restored after it, also on Ctrl-C and at
the end of input. A number of dice is complete when another digit could not make it a legal
count; otherwise Enter, any other key or a short pause ends it. Keys that arrive together (a
paste, or a program that sends a whole line) are read as the line they are.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import select
import sys
from collections.abc import Callable, Iterator
from typing import Any, Protocol

BURST_GAP = 0.02  # seconds: keys closer than this came together (a paste, or a line sent by a program)
NUMBER_PAUSE = 1.5  # seconds: a pause this long ends a number of dice being typed
ENTER = ("\r", "\n")
ERASE = ("\x7f", "\b")
END_OF_INPUT = ("", "\x04")  # end of the stream, or Ctrl-D (a plain key in cbreak mode)
DIGITS = frozenset("0123456789")


def drop_typeahead() -> None:
    """Discard keys typed before the prompt appeared (on a terminal; elsewhere do nothing)."""
    if not is_tty(sys.stdin):
        return
    try:
        import termios
    except ImportError:  # not on this platform
        return
    with contextlib.suppress(termios.error, OSError, ValueError):
        termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)


class KeySource(Protocol):
    """Where single keys come from: a terminal in cbreak mode, or a fake one in tests."""

    def key(self) -> str:
        """Return the next key ('' at the end of input), waiting for it."""
        ...

    def ready(self, timeout: float) -> bool:
        """Return True if a key arrives within ``timeout`` seconds."""
        ...


class TerminalKeys:
    """The keys of a terminal in cbreak mode, read from its file descriptor one at a time."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def key(self) -> str:
        """Return the next key ('' at the end of input), waiting for it."""
        while True:
            data = os.read(self.fd, 1)
            if not data:
                return ""
            text = self.decoder.decode(data)
            if text:  # a whole character (several bytes for one outside ASCII)
                return text

    def ready(self, timeout: float) -> bool:
        """Return True if a key arrives within ``timeout`` seconds."""
        readable, _, _ = select.select([self.fd], [], [], timeout)
        return bool(readable)


@contextlib.contextmanager
def single_keys(stream: Any) -> Iterator[TerminalKeys | None]:
    """Put the terminal behind ``stream`` in cbreak mode for the block and restore it after, whatever happens.

    Yields the terminal's keys, or None where ``stream`` is no terminal (or the platform has no termios).
    """
    fd = _terminal_fd(stream)
    if fd is None:
        yield None
        return
    import termios
    import tty

    try:
        saved = termios.tcgetattr(fd)
        tty.setcbreak(fd, termios.TCSANOW)
    except (termios.error, OSError):
        yield None
        return
    try:
        yield TerminalKeys(fd)
    finally:
        with contextlib.suppress(termios.error, OSError):
            termios.tcsetattr(fd, termios.TCSAFLUSH, saved)  # keys typed for the game never reach the shell


def _terminal_fd(stream: Any) -> int | None:
    """Return the file descriptor of ``stream`` if it is a terminal whose modes can be set, else None."""
    if not is_tty(stream):
        return None
    try:
        import termios  # noqa: F401  (POSIX only)

        return int(stream.fileno())
    except (ImportError, AttributeError, OSError, ValueError):
        return None


def read_command(keys: KeySource, echo: Callable[[str], None], largest: int = 0) -> str:
    """Return one command typed as single keys, echoing it.

    A letter (r, h, s, ?, i, q, y, n...) counts at once. A number of dice counts once no further
    digit could keep it at most ``largest``; before that Enter, any other key or a pause of
    ``NUMBER_PAUSE`` seconds ends it. Keys that arrive together are read as one line, up to Enter.
    Enter, spaces and function keys on their own are skipped (so a key sent with Enter is one
    command); Ctrl-D or the end of input raises EOFError, Ctrl-C KeyboardInterrupt.
    """
    while True:
        key = _next_key(keys)
        if key == "\x1b":  # the start of an arrow or function key: drop the rest of it
            while keys.ready(BURST_GAP):
                _next_key(keys)
            continue
        if key.isspace() or not key.isprintable():
            continue
        echo(key)
        if keys.ready(BURST_GAP):  # more keys came with it: a pasted or sent line
            text = _rest_of_line(keys, key, echo)
        elif key in DIGITS:
            text = _rest_of_number(keys, key, echo, largest)
        else:
            text = key
        if text:
            echo("\n")
            return text


def _next_key(keys: KeySource) -> str:
    """Return the next key; raise EOFError at the end of input or on Ctrl-D, KeyboardInterrupt on Ctrl-C."""
    key = keys.key()
    if key in END_OF_INPUT:
        raise EOFError
    if key == "\x03":
        raise KeyboardInterrupt
    return key


def _rest_of_line(keys: KeySource, text: str, echo: Callable[[str], None]) -> str:
    """Return ``text`` and the keys that follow it closely, up to Enter (Backspace erases)."""
    while keys.ready(BURST_GAP):
        key = keys.key()
        if key in END_OF_INPUT or key in ENTER:
            break
        if key == "\x03":
            raise KeyboardInterrupt
        if key in ERASE:
            if text:
                text = text[:-1]
                echo("\b \b")
        elif key.isprintable():
            text += key
            echo(key)
    return text.strip()


def _rest_of_number(keys: KeySource, digits: str, echo: Callable[[str], None], largest: int) -> str:
    """Return the number of dice begun with ``digits`` (empty if erased): complete once it cannot grow."""
    while int(digits) * 10 <= largest and len(digits) < len(str(largest)):
        if not keys.ready(NUMBER_PAUSE):
            break
        key = _next_key(keys)
        if key in ERASE:
            digits = digits[:-1]
            echo("\b \b")
            if not digits:
                return ""
        elif key in DIGITS:
            digits += key
            echo(key)
        else:  # Enter, or another key: the number is complete (the key is dropped)
            break
    return digits


def is_tty(stream: Any) -> bool:
    """Return True if ``stream`` is a terminal (False for anything that cannot say)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
