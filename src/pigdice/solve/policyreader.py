"""Reading a policy file against its schema: one open, one set of checks, one clear error (no numba here).

Every kind of policy file (``Policy``'s V, ``EndgamePolicy``, ``PlayersPolicy``) declares a ``PolicySchema``:
each array's dtype, shape (from the goal and players) and value range, and the metadata it must carry.
``read_policy_file`` opens the file once, as a plain file of bounded size, checks every array's header before
anything is decompressed (a few bytes may declare gigabytes), checks this machine's memory, reads the arrays
without pickles, and refuses with a ``BadParameterError`` naming the file and the problem: a damaged archive,
a missing entry or key, a wrong dtype, shape or value, metadata of another game, or values that differ from the
checksums saved with them (``storage.check_checksums``: in range is not enough).
"""

from __future__ import annotations

import json
import math
import zipfile
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from pigdice import files
from pigdice.errors import BadParameterError
from pigdice.solve.memory import MiB, check_memory
from pigdice.solve.storage import MAX_POLICY_FILE_BYTES, READ_LOCK, check_checksums

VALUE_SLACK = 1e-9  # rounding a solved win probability may leave it this far outside [0, 1]
MAX_META_BYTES = 1 * MiB  # a policy file's metadata (JSON text) is a few hundred bytes
READ_ERRORS = (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile, zlib.error)

Dimension = int | range  # an axis of exactly this length, or of any length in the range


@dataclass(frozen=True)
class ArraySpec:
    """What one array of a policy file must be: its dtype, its shape and the range of its values."""

    shape: tuple[Dimension, ...]
    dtype: str = "float64"
    low: float | None = 0.0  # every value finite and in [low, high] (within VALUE_SLACK); None: no bound
    high: float | None = 1.0

    def fits(self, shape: tuple[int, ...]) -> bool:
        """Return True if ``shape`` is one this array may have."""
        if len(shape) != len(self.shape):
            return False
        pairs = zip(shape, self.shape, strict=True)
        return all(size == want if isinstance(want, int) else size in want for size, want in pairs)

    def describe(self) -> str:
        """Return the expected shape and dtype as the refusal names them."""
        axes = [str(want) if isinstance(want, int) else f"{want.start}..{want.stop - 1}" for want in self.shape]
        return f"({', '.join(axes)}) {self.dtype}"


@dataclass(frozen=True)
class Expected:
    """A metadata key that must hold one value, and the refusal if it does not ("{found}" becomes what it holds)."""

    key: str
    value: object
    refusal: str


@dataclass(frozen=True)
class Number:
    """A metadata key holding a number, in [low, high] where given; a missing key takes ``default`` if any."""

    key: str
    low: float = -math.inf
    high: float = math.inf
    meaning: str = "a number"  # the refusal: "<key> <value> is not <meaning>"
    default: float | None = None


READ_SLACK = 8  # reading arrays takes their bytes and at most 1/READ_SLACK of them more in passing


@dataclass(frozen=True)
class PolicySchema:
    """One kind of policy file: its arrays, the metadata it must carry and the memory reading it takes."""

    what: str  # e.g. "the policy of pig": named where memory is short
    goal: int
    arrays: Mapping[str, ArraySpec]
    expected: tuple[Expected, ...] = ()
    numbers: tuple[Number, ...] = ()
    memory: Callable[[int], int] = field(default=lambda goal: 0)  # bytes at a goal of reading values (``read_bytes``)


@dataclass(frozen=True)
class PolicyFile:
    """A policy file's arrays (as the schema's dtypes) and its metadata, checked."""

    arrays: dict[str, np.ndarray]
    meta: dict[str, Any]
    numbers: dict[str, float]


def entry_header(archive: zipfile.ZipFile, name: str) -> tuple[tuple[int, ...], np.dtype]:
    """Return the shape and dtype an .npz entry declares, read from its header alone."""
    with READ_LOCK, archive.open(name) as member:
        major, _ = np.lib.format.read_magic(member)
        read = np.lib.format.read_array_header_1_0 if major == 1 else np.lib.format.read_array_header_2_0
        shape, _, dtype = read(member)
    return tuple(shape), np.dtype(dtype)


def read_policy_file(path: Path, schema: PolicySchema) -> PolicyFile:
    """Return the arrays and metadata of the policy file at ``path``, checked against ``schema``.

    Raises BadParameterError naming the file and the problem (see the module docstring), and
    ResourceLimitError before decompressing arrays that do not fit in this machine's memory.
    """
    try:
        stream = files.open_regular(path, MAX_POLICY_FILE_BYTES, "a policy file")
    except files.UnsafeFileError as exc:
        raise BadParameterError(f"{path}: not a regular file ({exc})") from None
    except OSError as exc:
        raise BadParameterError(f"{path}: cannot read the policy file ({exc.strerror or exc})") from None
    with stream:
        return _read(stream, path, schema)


def _damaged(path: Path, exc: BaseException) -> BadParameterError:
    return BadParameterError(f"{path}: damaged policy file ({type(exc).__name__}: {exc})")


def _read(stream: BinaryIO, path: Path, schema: PolicySchema) -> PolicyFile:
    """Return what ``read_policy_file`` returns, from the open policy file ``stream``."""
    try:  # the headers first: a small compressed file may declare a huge array
        with zipfile.ZipFile(stream) as archive:
            headers = {name: entry_header(archive, f"{name}.npy") for name in schema.arrays}
            meta_shape, meta_dtype = entry_header(archive, "meta.npy")
    except READ_ERRORS as exc:
        raise _damaged(path, exc) from exc
    for name, spec in schema.arrays.items():
        shape, dtype = headers[name]
        if not spec.fits(shape) or dtype != np.dtype(spec.dtype):
            raise BadParameterError(f"{path}: {name} have shape {shape} ({dtype}), expected {spec.describe()}")
    if meta_shape != () or meta_dtype.itemsize > MAX_META_BYTES:
        raise BadParameterError(f"{path}: damaged policy metadata")
    others = sum(math.prod(shape) * dtype.itemsize for name, (shape, dtype) in headers.items() if name != "values")
    check_memory(f"loading {schema.what}", schema.goal, lambda goal: schema.memory(goal) + read_bytes(others))
    try:
        stream.seek(0)
        with READ_LOCK, np.load(stream, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            arrays = {name: np.asarray(data[name], dtype=spec.dtype) for name, spec in schema.arrays.items()}
    except READ_ERRORS as exc:
        raise _damaged(path, exc) from exc
    if not isinstance(meta, dict):
        raise BadParameterError(f"{path}: damaged policy metadata")
    for expected in schema.expected:
        if meta.get(expected.key) != expected.value:
            raise BadParameterError(f"{path}: {expected.refusal.replace('{found}', repr(meta.get(expected.key)))}")
    numbers = {number.key: _number(path, meta, number) for number in schema.numbers}
    for name, spec in schema.arrays.items():
        _check_range(path, name, arrays[name], spec)
    check_checksums(path, meta, arrays)  # in range is not enough: they must be the values saved
    return PolicyFile(arrays, meta, numbers)


def _number(path: Path, meta: Mapping[str, Any], number: Number) -> float:
    """Return the metadata's number under ``number.key``, refused if missing, not a number or out of range."""
    raw = meta.get(number.key, number.default)
    if raw is None:
        raise BadParameterError(f"{path}: damaged policy metadata (no {number.key})")
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise BadParameterError(f"{path}: damaged policy metadata ({number.key} {raw!r} is not a number)") from None
    bounded = number.low > -math.inf or number.high < math.inf
    if bounded and not (math.isfinite(value) and number.low <= value <= number.high):
        raise BadParameterError(f"{path}: {number.key} {value} is not {number.meaning}")
    return value


def read_bytes(array_bytes: int) -> int:
    """Return the memory reading arrays of ``array_bytes`` takes: the arrays, read in chunks, and their checks."""
    return array_bytes + array_bytes // READ_SLACK


def _check_range(path: Path, name: str, array: np.ndarray, spec: ArraySpec) -> None:
    """Refuse ``array`` unless every value is finite and within the spec's range (give or take VALUE_SLACK).

    No copy and no mask of the array: its least and largest values are NaN if any value is, infinite if
    any is, so checking those two is checking all (a policy's arrays are gigabytes)."""
    if not array.size:
        return
    low = -math.inf if spec.low is None else spec.low - VALUE_SLACK
    high = math.inf if spec.high is None else spec.high + VALUE_SLACK
    least, largest = float(array.min()), float(array.max())
    if math.isfinite(least) and math.isfinite(largest) and least >= low and largest <= high:
        return
    if (spec.low, spec.high) == (0.0, 1.0):
        raise BadParameterError(f"{path}: {name} are not win probabilities in [0, 1]")
    raise BadParameterError(f"{path}: {name} are not all finite numbers in [{spec.low}, {spec.high}]")
