"""What a solved policy keeps besides its values: rows derived on demand, and its file on disk.

Every policy stores only its turn-start values; in-turn rows follow from them by one sweep and
are kept in a ``RowCache`` bounded by bytes (a row is a few arrays of the goal's length), which
a pickled policy does not carry (it is sent back from a worker process). ``save_npz`` writes a
policy's arrays and metadata atomically.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

from pigdice.solve.memory import MiB

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


def save_npz(path: Path, meta: dict[str, Any], **arrays: np.ndarray) -> None:
    """Write ``arrays`` and ``meta`` (as JSON) to ``path`` (.npz) through a temporary file of its own.

    Concurrent saves never write into each other's file, and a failed save leaves nothing behind.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name, suffix=".tmp", delete=False) as tmp:
        try:
            contents: dict[str, Any] = {**arrays, "meta": np.array(json.dumps(meta))}
            np.savez_compressed(tmp, **contents)
        except BaseException:
            Path(tmp.name).unlink(missing_ok=True)
            raise
    try:
        os.replace(tmp.name, path)
    except OSError:
        Path(tmp.name).unlink(missing_ok=True)
        raise
