"""Text from outside (names in records, rooms and rule files) made safe to show on a terminal or a page.

A name read from a file or typed by a stranger may hold escape sequences that clear a terminal or change its
title, newlines that fake lines of output, direction overrides that turn text around, or an unpaired surrogate
that no terminal can print. ``clean_text`` is the one place that removes them: every such text passes through it
before it is shown. ``has_surrogates`` lets a reader refuse a file that holds one.
"""

from __future__ import annotations

SURROGATES = range(0xD800, 0xE000)


def has_surrogates(text: str) -> bool:
    """Return True if ``text`` holds an unpaired surrogate (JSON's "\\ud800" escape reads as one)."""
    return any(ord(ch) in SURROGATES for ch in text)


def json_has_surrogates(value: object, depth: int = 0) -> bool:
    """Return True if any text in parsed JSON ``value`` (keys and values, however nested) holds a surrogate."""
    if isinstance(value, str):
        return has_surrogates(value)
    if depth > 100:  # deeper than any file pigdice reads: the reader refuses it on other grounds
        return False
    if isinstance(value, dict):
        return any(json_has_surrogates(k, depth + 1) or json_has_surrogates(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return any(json_has_surrogates(item, depth + 1) for item in value)
    return False


def clean_text(text: str, limit: int | None = None) -> str:
    """Return ``text`` as one printable line: control and format characters (escape, newline, direction
    overrides, ...) become spaces, surrogates the replacement character, spaces are collapsed; cut to ``limit``."""
    if text.isprintable():  # the common case: nothing to clean (str.isprintable counts no control character)
        cleaned = text
    else:
        cleaned = "".join("\ufffd" if ord(ch) in SURROGATES else ch if ch.isprintable() else " " for ch in text)
    line = " ".join(cleaned.split())
    return line if limit is None else line[:limit]
