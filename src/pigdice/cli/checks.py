"""Strict parsing and checks of command-line values, shared by every command.

Numbers: every count or score option reads ASCII digits only (no sign, spaces, underscores,
decimal points or other scripts' digits, which ``int`` would quietly accept) within a range its
``--help`` states; the typer parsers here refuse a bad value with an ``OptionValueError`` that the
app prints as one ``error:`` line (exit 2) naming the option, the range and the value.

Files: ``output_path`` checks a file to write before any work (a name, not blank, not a folder,
absent or a plain file (never a link, a device or a pipe), in a folder that exists and takes a
new file, a name the file system can hold), and ``writing`` turns an ``OSError`` at write time
(disk full, read-only file system, ...) into one ``error:`` line naming the file and what went
wrong. The files themselves are written through ``pigdice.files``.
"""

from __future__ import annotations

import errno
import os
import stat
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer

from pigdice import files
from pigdice.cleantext import clean_text
from pigdice.errors import BadParameterError, PigdiceError

MAX_SHOWN = 40  # characters of a bad value repeated in an error message
MAX_SHOWN_PATH = 240  # characters of a path repeated in an error message (its end is kept)
NAME_MAX = 255  # bytes in one file name on common file systems (when the system does not say)
PATH_MAX = 4096  # bytes in a whole path on Linux


class OutputError(PigdiceError):
    """A file that cannot be written where the command line asks."""


class OptionValueError(typer.BadParameter):
    """An option value refused by one of the parsers here (the app prints it as one ``error:`` line)."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option

    def line(self) -> str:
        """Return the refusal as it reads after ``error:``, e.g. '--games takes a whole number ...'."""
        return f"{self.option} {self.message}"


def shown(text: object) -> str:
    """Return ``text`` quoted for an error message, shortened when it is long."""
    value = str(text)
    if len(value) <= MAX_SHOWN:
        return repr(value)
    return f"{value[:20]!r}... ({len(value)} characters)"


def shown_path(path: object) -> str:
    """Return a path quoted for an error message; a very long one keeps its start and its file name."""
    value = os.fsdecode(path) if isinstance(path, bytes | os.PathLike) else str(path)
    if not value.isprintable():
        value = clean_text(value)  # escape sequences and newlines never reach the terminal
    if len(value) <= MAX_SHOWN_PATH:
        return repr(value)
    return f"{value[:40]!r}...{value[-120:]!r} ({len(value)} characters)"


def range_text(low: int, high: int) -> str:
    """Return a range as the help and the errors say it, e.g. '1 to 100000'."""
    return f"{low} to {high}"


def has_foreign_digits(text: str) -> bool:
    """Return True if ``text`` holds a digit or number sign other than ASCII 0-9 (², ٢, ５, ...)."""
    return any(not ch.isascii() and unicodedata.numeric(ch, None) is not None for ch in text)


def whole_number(value: object, what: str, low: int, high: int) -> int:
    """Return ``value`` as a whole number from ``low`` to ``high``; raise BadParameterError otherwise.

    A string must be ASCII digits only; an int (a default value) is range-checked.
    """
    expected = f"{what} takes a whole number from {range_text(low, high)}"
    if isinstance(value, bool):
        raise BadParameterError(f"{expected}, got {value!r}")
    if isinstance(value, int):
        number = value
    else:
        text = str(value)
        if not text:
            raise BadParameterError(f"{expected}, got nothing")
        if not (text.isascii() and text.isdigit()):
            hint = " (digits 0-9 only)" if has_foreign_digits(text) or text.strip() != text else ""
            raise BadParameterError(f"{expected}{hint}, got {shown(text)}")
        digits = len(text.lstrip("0"))
        if digits > len(str(high)) and len(text) > MAX_SHOWN:  # too long to read or to repeat
            raise BadParameterError(f"{expected}, got a number with {digits} digits")
        number = int(text)
    if not low <= number <= high:
        raise BadParameterError(f"{expected}, got {number}")
    return number


def decimal_number(value: object, what: str, low: float, high: float) -> float:
    """Return ``value`` as a decimal number (ASCII digits, one optional point) from ``low`` to ``high``."""
    expected = f"{what} takes a number from {low:g} to {high:g}"
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    else:
        text = str(value)
        whole, _, fraction = text.partition(".")
        digits = whole + fraction
        if not digits or not (digits.isascii() and digits.isdigit()) or len(digits) > 20:
            raise BadParameterError(f"{expected} (digits 0-9 and one '.'), got {shown(text)}")
        number = float(text)
    if not low <= number <= high:
        raise BadParameterError(f"{expected}, got {number:g}")
    return number


class WholeNumber:
    """A typer parser: the option's value as a whole number in a range (an OptionValueError otherwise)."""

    def __init__(self, option: str, low: int, high: int) -> None:
        self.option = option
        self.low = low
        self.high = high

    def __call__(self, value: object) -> int:
        """Return the checked number."""
        try:
            return whole_number(value, "it", self.low, self.high)
        except PigdiceError as exc:
            raise OptionValueError(self.option, str(exc).removeprefix("it ")) from None


class WholeNumbers:
    """A typer parser: 1 to ``most`` comma-separated whole numbers in a range (an OptionValueError otherwise).

    It returns them as a checked text ("80,45") that ``numbers`` reads.
    """

    def __init__(self, option: str, low: int, high: int, most: int) -> None:
        self.option = option
        self.low = low
        self.high = high
        self.most = most

    def __call__(self, value: object) -> str:
        """Return the checked numbers as text."""
        parts = str(value).split(",")
        if len(parts) > self.most:
            raise OptionValueError(self.option, f"takes at most {self.most} numbers with commas, got {len(parts)}")
        try:
            return ",".join(str(whole_number(part, "it", self.low, self.high)) for part in parts)
        except PigdiceError as exc:
            raise OptionValueError(self.option, str(exc).removeprefix("it ")) from None


def numbers(text: str) -> tuple[int, ...]:
    """Return the numbers of a text checked by ``WholeNumbers``."""
    return tuple(int(part) for part in text.split(","))


class DecimalNumber:
    """A typer parser: the option's value as a decimal number in a range (an OptionValueError otherwise)."""

    def __init__(self, option: str, low: float, high: float) -> None:
        self.option = option
        self.low = low
        self.high = high

    def __call__(self, value: object) -> float:
        """Return the checked number."""
        try:
            return decimal_number(value, "it", self.low, self.high)
        except PigdiceError as exc:
            raise OptionValueError(self.option, str(exc).removeprefix("it ")) from None


def with_range(help: str, span: str) -> str:
    """Return an option's help with its range after the first phrase: 'Goal, 1 to 100000 (default: ...).'."""
    head, paren, rest = help.rstrip(".").partition(" (")
    return f"{head}, {span}{paren}{rest}."


def number_option(*names: str, low: int, high: int, help: str, **kwargs: Any) -> Any:
    """Return a typer option for a whole number from ``low`` to ``high``, the range stated in its help."""
    return typer.Option(
        *names,
        parser=WholeNumber(names[0], low, high),
        metavar="N",
        help=with_range(help, range_text(low, high)),
        **kwargs,
    )


def numbers_option(*names: str, low: int, high: int, most: int, help: str, **kwargs: Any) -> Any:
    """Return a typer option for 1 to ``most`` comma-separated whole numbers from ``low`` to ``high``."""
    return typer.Option(
        *names,
        parser=WholeNumbers(names[0], low, high, most),
        metavar="N[,N...]",
        help=with_range(help, f"each {range_text(low, high)}"),
        **kwargs,
    )


def decimal_option(*names: str, low: float, high: float, help: str, **kwargs: Any) -> Any:
    """Return a typer option for a decimal number from ``low`` to ``high``, the range stated in its help."""
    return typer.Option(
        *names,
        parser=DecimalNumber(names[0], low, high),
        metavar="X",
        help=with_range(help, f"{low:g} to {high:g}"),
        **kwargs,
    )


# -- files ------------------------------------------------------------------------------------
def _stat(path: Path) -> os.stat_result | None:
    """Return ``os.stat(path)``, or None if nothing is there (raising OutputError for other failures)."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise OutputError(f"cannot use {shown_path(path)}: {reason(exc)}") from None


def _name_max(folder: Path) -> int:
    """Return the longest file name (bytes) the file system of ``folder`` takes."""
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError):
        return NAME_MAX


def _missing_folder(folder: Path) -> str:
    """Return why ``folder`` is not a folder: the first part of it that is missing or is a file."""
    parts = [*reversed(folder.parents), folder] if folder.is_absolute() else [*reversed(folder.parents[:-1]), folder]
    for part in parts:
        found = _stat(part)
        if found is None:
            return f"the folder {shown_path(part)} does not exist"
        if not stat.S_ISDIR(found.st_mode):
            return f"{shown_path(part)} is a file, not a folder"
    return f"the folder {shown_path(folder)} does not exist"


def output_path(value: object, what: str = "--out") -> Path:
    """Return the file ``value`` names after checking that it can be written; raise OutputError if not.

    Refuses a blank name, a NUL character, a name or path too long for the file system, a folder,
    a missing parent folder (or a file used as one), and a folder or file that cannot be written.
    """
    text = os.fspath(value) if isinstance(value, os.PathLike) else str(value)
    if not text.strip():
        raise OutputError(f"{what} needs a file name, got {shown_path(text)}")
    if "\0" in text:
        raise OutputError(f"{what} {shown_path(text)} holds a NUL character")
    path = Path(text)
    try:
        encoded = os.fsencode(text)
    except UnicodeEncodeError:
        raise OutputError(f"{what} {shown_path(text)} holds characters no file name can hold") from None
    if len(encoded) >= PATH_MAX:
        raise OutputError(f"{what} path is too long ({len(encoded)} bytes; at most {PATH_MAX - 1})")
    folder = path.parent
    longest = max((len(os.fsencode(part)) for part in path.parts), default=0)
    if longest > NAME_MAX:
        raise OutputError(
            f"{what} {shown_path(text)}: a file or folder name is too long ({longest} bytes; at most 255)"
        )
    found = _stat(path)
    if found is not None and stat.S_ISDIR(found.st_mode):
        raise OutputError(f"{what} {shown_path(text)} is a folder; give a file name, e.g. {shown_path(path / 'out')}")
    try:
        files.check_target(path)  # a link, a device, a pipe: never written to or replaced
    except files.UnsafeFileError:
        kind = files.kind_of(os.lstat(path).st_mode)
        raise OutputError(
            f"{what} {shown_path(text)} is {kind}, not a plain file: pigdice writes only plain files"
        ) from None
    where = _stat(folder)
    if where is None or not stat.S_ISDIR(where.st_mode):
        raise OutputError(f"{what} {shown_path(text)}: {_missing_folder(folder)}")
    if len(os.fsencode(path.name)) > _name_max(folder):
        raise OutputError(f"{what} {shown_path(text)}: the file name is too long for this file system")
    if found is None and not os.access(folder, os.W_OK):
        raise OutputError(
            f"{what} {shown_path(text)}: the folder {shown_path(folder)} cannot be written (permission denied)"
        )
    if found is not None and stat.S_ISREG(found.st_mode) and not os.access(path, os.W_OK):
        raise OutputError(f"{what} {shown_path(text)}: the file cannot be written (permission denied)")
    _probe(folder, f"{what} {shown_path(text)}")
    return path


def _probe(folder: Path, naming: str) -> None:
    """Create and remove a file in ``folder``: a folder that looks writable but takes no new file (/sys, /proc,
    a read-only mount) is refused now, before any work, not after it."""
    probe = folder / f".pigdice-probe-{os.getpid()}-{os.urandom(4).hex()}"
    try:
        handle = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | files.O_NOFOLLOW, 0o600)
    except OSError as exc:
        raise OutputError(f"{naming}: the folder {shown_path(folder)} takes no new file ({reason(exc)})") from None
    os.close(handle)
    try:
        os.unlink(probe)
    except OSError:
        pass


class OutputPath:
    """A typer parser: a file to write, checked by ``output_path`` (an OptionValueError otherwise)."""

    def __init__(self, option: str) -> None:
        self.option = option

    def __call__(self, value: object) -> Path:
        """Return the checked path."""
        try:
            return output_path(value, "it")
        except PigdiceError as exc:
            raise OptionValueError(self.option, str(exc).removeprefix("it ")) from None


def output_option(*names: str, help: str, **kwargs: Any) -> Any:
    """Return a typer option for a file to write, checked before any work is done."""
    return typer.Option(*names, parser=OutputPath(names[0]), metavar="FILE", help=help, **kwargs)


def reason(exc: OSError) -> str:
    """Return what an OSError means, e.g. 'No space left on device (ENOSPC)'."""
    if exc.errno:
        code = errno.errorcode.get(exc.errno)
        return os.strerror(exc.errno) + (f" ({code})" if code else "")
    return str(exc) or type(exc).__name__


@contextmanager
def writing(path: Path | str) -> Iterator[None]:
    """Turn an OSError while writing ``path`` (or files next to it) into an OutputError naming the file."""
    try:
        yield
    except files.UnsafeFileError as exc:  # something other than a plain file appeared there meanwhile
        raise OutputError(str(exc)) from None
    except OSError as exc:
        target = exc.filename if isinstance(exc.filename, str | bytes | os.PathLike) else path
        raise OutputError(f"cannot write {shown_path(os.fsdecode(target))}: {reason(exc)}") from None
