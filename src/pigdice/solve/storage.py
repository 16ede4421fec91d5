"""What a solved policy keeps besides its values: rows derived on demand, and its file on disk.

Every policy stores only its turn-start values; in-turn rows follow from them by one sweep and
are kept in a ``RowCache`` bounded by bytes (a row is a few arrays of the goal's length), which
a pickled policy does not carry (it is sent back from a worker process). ``save_npz`` writes a
policy's arrays and metadata atomically, as a plain file, with a checksum of every array in the
metadata; ``check_checksums`` (and ``check_npz`` for a whole file) refuse values that changed since:
a damaged or edited cache file is solved again, even if every value is a win probability.
"""

from __future__ import annotations

import hashlib
import json
import threading
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

from pigdice import files
from pigdice.errors import BadParameterError
from pigdice.solve.memory import MiB

READ_LOCK = threading.RLock()
# Policy files are read one thread at a time: numpy parses every .npy header with ast.literal_eval, and
# CPython 3.11 keeps the AST constructor's recursion depth per interpreter, not per thread (gh-106905), so
# two threads parsing at once can fail with "SystemError: AST constructor recursion depth mismatch".

# Rows kept per policy for repeated hints; past this they are dropped and recomputed on demand.
ROW_CACHE_BYTES = 16 * MiB

Key = TypeVar("Key")
Row = TypeVar("Row")


class RowCache(Generic[Key, Row]):
    """Rows derived from a policy's values, dropped all at once past ``ROW_CACHE_BYTES``; pickles empty."""

    def __init__(self) -> None:
        self._rows: dict[Key, Row] = {}
        self.nbytes = 0

    def __len__(self) -> int:
        """Return the number of rows kept."""
        return len(self._rows)

    def get(self, key: Key) -> Row | None:
        """Return the row kept under ``key``, or None."""
        return self._rows.get(key)

    def keep(self, key: Key, row: Row, size: int) -> Row:
        """Keep ``row`` (``size`` bytes) under ``key`` and return it."""
        if self.nbytes + size > ROW_CACHE_BYTES:
            self._rows.clear()  # (threads racing here only miscount a few rows until the next clear)
            self.nbytes = 0
        self._rows[key] = row
        self.nbytes += size
        return row

    def __getstate__(self) -> dict[str, Any]:
        """Pickle nothing: the rows follow from the values."""
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Start empty."""
        self.__init__()  # type: ignore[misc]


CHECKSUMS = "checksums"  # the metadata's key: array name -> SHA-256 of its dtype, shape and bytes
# Arrays up to this many bytes are saved compressed; larger ones as they are: zlib wrote 4-player Pig's
# 7.3 GB of win chances at ~8 MB/s (15 minutes) and saved a tenth of the space.
COMPRESSED_BYTES = 64 * 2**20
MAX_POLICY_FILE_BYTES = 64 * 2**30  # a cached policy file larger than this is not read (the biggest are GBs)


def array_checksum(array: np.ndarray) -> str:
    """Return the SHA-256 (hex) of an array's dtype, shape and values: what a policy file's metadata keeps."""
    contiguous = np.ascontiguousarray(array)
    digest = hashlib.sha256(f"{contiguous.dtype.str}{contiguous.shape}".encode())
    if contiguous.size:
        digest.update(contiguous.reshape(-1).view(np.uint8).data)
    return digest.hexdigest()


def save_npz(path: Path, meta: dict[str, Any], **arrays: np.ndarray) -> None:
    """Write ``arrays`` and ``meta`` (as JSON, with the arrays' checksums) to ``path`` (.npz), atomically;
    compressed unless the arrays are larger than ``COMPRESSED_BYTES``.

    The file is written next to ``path`` under a name of its own (``*.tmp``) and then takes its place, so
    concurrent saves never write into each other's file and a failed save leaves nothing behind. A link, a
    device or a pipe at ``path`` is left alone: like a full disk, it raises OSError (a cache that cannot be
    written only costs a solve next time).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = {**meta, CHECKSUMS: {name: array_checksum(array) for name, array in arrays.items()}}
    contents: dict[str, Any] = {**arrays, "meta": np.array(json.dumps(kept))}
    small = sum(array.nbytes for array in arrays.values()) <= COMPRESSED_BYTES
    write = np.savez_compressed if small else np.savez
    try:
        files.write_with(path, lambda stream: write(stream, **contents))
    except files.UnsafeFileError as exc:
        raise OSError(str(exc)) from None


def check_checksums(path: Path, meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
    """Raise BadParameterError unless every array in ``arrays`` matches the checksum ``meta`` keeps for it."""
    sums = meta.get(CHECKSUMS)
    if not isinstance(sums, dict):
        raise BadParameterError(f"{path}: no checksum of the values (a file from an older pigdice)")
    for name, array in arrays.items():
        if sums.get(name) != array_checksum(array):
            raise BadParameterError(f"{path}: the values in {name} changed since they were saved (checksum differs)")


def check_npz(path: Path, limit: int = MAX_POLICY_FILE_BYTES) -> None:
    """Raise BadParameterError unless ``path`` is a plain .npz file of at most ``limit`` bytes whose every array
    matches the checksum in its metadata (read without pickles; a pipe or a device is refused at once)."""
    try:
        with (
            files.open_regular(path, limit, "a policy file") as stream,
            READ_LOCK,
            np.load(stream, allow_pickle=False) as data,
        ):
            meta = json.loads(str(data["meta"]))
            if not isinstance(meta, dict):
                raise BadParameterError(f"{path}: damaged policy metadata")
            check_checksums(path, meta, {name: data[name] for name in data.files if name != "meta"})
    except files.UnsafeFileError as exc:
        raise BadParameterError(str(exc)) from None
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        if isinstance(exc, BadParameterError):
            raise
        raise BadParameterError(f"{path}: damaged policy file ({type(exc).__name__}: {exc})") from exc
