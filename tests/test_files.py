"""Plain files only (``pigdice.files``) and outside text made safe to show (``pigdice.cleantext``).

Issue 32: ``play --save`` renamed its file over a device node or a symlink (as root it deleted ``/dev/full``),
and ``designed:/dev/zero`` read until memory ran out. Every write goes through ``files.replacing``, which
refuses anything but an absent path or a plain file; every read through ``files.read_bytes``, which refuses
a device, a pipe or a file past its bound before reading it.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from pigdice import files
from pigdice.cleantext import clean_text, has_surrogates, json_has_surrogates


def test_a_plain_file_is_written_and_replaced_atomically(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    files.write_text(target, "one")
    files.write_text(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]  # no temporary file left


def test_a_symlink_is_neither_followed_nor_replaced(tmp_path: Path) -> None:
    kept = tmp_path / "kept.txt"
    kept.write_text("precious")
    link = tmp_path / "link.txt"
    link.symlink_to(kept)
    with pytest.raises(files.UnsafeFileError, match="symbolic link"):
        files.write_text(link, "overwritten?")
    assert link.is_symlink() and kept.read_text() == "precious"
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(tmp_path / "nowhere.txt")
    with pytest.raises(files.UnsafeFileError, match="symbolic link"):
        files.write_bytes(dangling, b"x")
    assert not (tmp_path / "nowhere.txt").exists()


def test_a_device_or_a_pipe_is_never_replaced(tmp_path: Path) -> None:
    before = os.lstat("/dev/null")
    with pytest.raises(files.UnsafeFileError, match="a device"):
        files.write_text("/dev/null", "x")
    after = os.lstat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino  # still the same device node
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(files.UnsafeFileError, match="pipe"):
        files.write_with(pipe, lambda stream: stream.write(b"x"))
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    with pytest.raises(files.UnsafeFileError, match="folder"):
        files.write_text(tmp_path, "x")


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old")

    def fail(stream: object) -> None:
        raise RuntimeError("the writer failed half way")

    with pytest.raises(RuntimeError):
        files.write_with(target, fail)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_reads_refuse_devices_pipes_and_big_files_at_once(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)  # no writer: a plain open would wait for ever
    big = tmp_path / "big.json"
    with big.open("wb") as stream:
        stream.truncate(10 * 2**20)
    for path, words in (("/dev/zero", "a device"), (pipe, "pipe"), (big, "10,485,760 bytes"), (tmp_path, "folder")):
        started = time.perf_counter()
        with pytest.raises(files.UnsafeFileError, match=words):
            files.read_bytes(path, 2**16, "a rule file")
        assert time.perf_counter() - started < 1.0
    small = tmp_path / "small.json"
    small.write_bytes(b"{}")
    assert files.read_bytes(small, 2**16) == b"{}"
    assert files.read_text(small, 2) == "{}"
    with pytest.raises(files.UnsafeFileError, match="at most 1 "):
        files.read_bytes(small, 1)
    with pytest.raises(FileNotFoundError):
        files.read_bytes(tmp_path / "missing", 10)


def test_a_symlink_to_a_plain_file_may_be_read(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("[]")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert files.read_bytes(link, 100) == b"[]"  # what is read is checked on the open file: a plain one


def test_clean_text_removes_what_a_terminal_or_a_page_would_obey() -> None:
    hostile = "Ann\x1b[2J\x1b]0;title\x07\nerror: fake\r\x9b31m\u202eevil\u2028x\ud800"
    cleaned = clean_text(hostile)
    assert cleaned.isprintable() or "\ufffd" in cleaned
    assert not any(ch in cleaned for ch in "\x1b\x07\n\r\x9b\u202e\u2028\ud800")
    assert "\n" not in cleaned and cleaned.startswith("Ann")
    assert cleaned.endswith("\ufffd")  # a lone surrogate becomes the replacement character
    assert clean_text("  Ann   Lee  ") == "Ann Lee"
    assert clean_text("Émile 🐷") == "Émile 🐷"  # printable text is kept as it is
    assert clean_text("x" * 50, limit=10) == "x" * 10


def test_surrogates_are_found_however_deep() -> None:
    assert has_surrogates("a\udc80") and not has_surrogates("a😀")
    assert json_has_surrogates({"rules": [{"name": "\ud800"}]})
    assert json_has_surrogates({"\udfff": 1})
    assert not json_has_surrogates({"rules": [1, 2.5, None, True, "ok"]})
