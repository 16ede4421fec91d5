"""Files pigdice reads and writes: plain (regular) files only, never a device, a pipe or a link; reads bounded.

Every file the project writes goes through ``replacing`` (or ``write_text``/``write_bytes`` on top of it): the
content goes to a new file next to the target, and only once it is complete does it take the target's place, and
only if the target is absent or a plain file. A symbolic link, a device (``/dev/full``), a pipe, a socket or a
folder at the target is refused before anything is written, and checked again just before the switch.

Every file the project reads goes through ``read_bytes`` (or ``read_text``, ``open_regular``): it is opened
without waiting (a pipe cannot hang the reader), must be a plain file, and may be at most a stated size. A
refusal is an ``UnsafeFileError`` with one line naming the file and what it is.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, BinaryIO, Literal, overload

from pigdice.errors import PigdiceError

O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
O_NOCTTY = getattr(os, "O_NOCTTY", 0)
O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
O_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation on the raw descriptor


class UnsafeFileError(PigdiceError):
    """A path that is not a plain file (a link, a device, a pipe, a folder) or a file too large to read."""


def kind_of(mode: int) -> str:
    """Return what a file of ``mode`` (``st_mode``) is, in words: 'a plain file', 'a device', 'a pipe (FIFO)' ..."""
    if stat.S_ISREG(mode):
        return "a plain file"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a plain file"


def _name(path: str | os.PathLike[str]) -> str:
    """Return a path for a message: its text, shortened when very long, with unprintable characters escaped."""
    text = os.fspath(path)
    if len(text) > 240:
        text = f"{text[:40]}...{text[-120:]}"
    return repr(text)[1:-1] if not text.isprintable() else text


def check_target(path: str | os.PathLike[str]) -> None:
    """Raise UnsafeFileError unless ``path`` is absent or a plain file (a link itself is looked at, not its target)."""
    try:
        found = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError:
        return  # the write that follows names the problem (permission, a name too long, ...)
    if not stat.S_ISREG(found.st_mode):
        what = kind_of(found.st_mode)
        hint = "; give the path of a plain file" if stat.S_ISLNK(found.st_mode) else ""
        raise UnsafeFileError(f"{_name(path)} is {what}, not a plain file: pigdice writes only plain files{hint}")


@overload
def replacing(path: str | os.PathLike[str], binary: Literal[True]) -> contextlib.AbstractContextManager[BinaryIO]: ...
@overload
def replacing(
    path: str | os.PathLike[str], binary: Literal[False] = ..., newline: str | None = ...
) -> contextlib.AbstractContextManager[IO[str]]: ...
def replacing(path: str | os.PathLike[str], binary: bool = False, newline: str | None = None) -> Any:
    """Return a context manager writing a new file that replaces ``path`` once the block ends without an error.

    The target must be absent or a plain file (checked before and again just before the switch); the new file
    is made in the same folder (created with the usual permissions) and removed if the block fails.
    """
    return _replacing(Path(path), binary, newline)


@contextlib.contextmanager
def _replacing(path: Path, binary: bool, newline: str | None) -> Iterator[IO[Any]]:
    check_target(path)
    temporary = path.with_name(f".{path.name[:200]}.{secrets.token_hex(4)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_BINARY
    handle = os.open(temporary, flags, 0o666)
    try:
        stream: IO[Any]
        if binary:
            stream = os.fdopen(handle, "wb")
        else:
            stream = os.fdopen(handle, "w", encoding="utf-8", newline=newline)
        with stream:
            yield stream
        check_target(path)  # nothing was swapped in meanwhile
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_text(path: str | os.PathLike[str], text: str, newline: str | None = None) -> None:
    """Write ``text`` (UTF-8) to ``path`` as a plain file, atomically (see ``replacing``)."""
    with replacing(path, newline=newline) as stream:
        stream.write(text)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` as a plain file, atomically (see ``replacing``)."""
    with replacing(path, binary=True) as stream:
        stream.write(data)


def write_with(path: str | os.PathLike[str], writer: Callable[[BinaryIO], object]) -> None:
    """Let ``writer`` fill a new file that then replaces ``path`` (numpy's savez, a figure's savefig, ...)."""
    with replacing(path, binary=True) as stream:
        writer(stream)


def open_regular(path: str | os.PathLike[str], limit: int, what: str = "the file") -> BinaryIO:
    """Return ``path`` opened for reading if it is a plain file of at most ``limit`` bytes; else raise.

    The file is opened without waiting (a pipe with no writer cannot hang the reader) and checked on the open
    descriptor, so what is checked is what is read. OSError (missing, no permission) passes through.
    """
    handle = os.open(path, os.O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_BINARY)
    try:
        found = os.fstat(handle)
        if not stat.S_ISREG(found.st_mode):
            kind = kind_of(found.st_mode)
            raise UnsafeFileError(f"{_name(path)} is {kind}, not a plain file: {what} must be one")
        if found.st_size > limit:
            raise UnsafeFileError(f"{_name(path)} is {found.st_size:,} bytes; at most {limit:,} are read for {what}")
        if O_NONBLOCK:
            os.set_blocking(handle, True)
        return os.fdopen(handle, "rb")
    except BaseException:
        os.close(handle)
        raise


def read_bytes(path: str | os.PathLike[str], limit: int, what: str = "the file") -> bytes:
    """Return the content of the plain file ``path`` if it is at most ``limit`` bytes (see ``open_regular``)."""
    with open_regular(path, limit, what) as stream:
        data = stream.read(limit + 1)
    if len(data) > limit:  # it grew while it was read
        raise UnsafeFileError(f"{_name(path)} is larger than {limit:,} bytes; at most {limit:,} are read for {what}")
    return data


def read_text(path: str | os.PathLike[str], limit: int, what: str = "the file") -> str:
    """Return the UTF-8 text of the plain file ``path`` of at most ``limit`` bytes (UnicodeDecodeError if not text)."""
    return read_bytes(path, limit, what).decode("utf-8")
