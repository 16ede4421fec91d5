"""A policy file without the solver: where policies are cached, and reading a policy's values (no numba).

Reading a cached policy is all a hint needs, and loading the solver's compiled kernels costs more
than the whole hint; so the cache's layout and the checks on a policy file live here, apart.
"""

from __future__ import annotations

import json
import os
import zipfile
import zlib
from pathlib import Path
from typing import BinaryIO

import numpy as np

from pigdice import files
from pigdice.errors import BadParameterError
from pigdice.rules.variant import Variant
from pigdice.solve.memory import MiB, check_memory, values_bytes
from pigdice.solve.storage import MAX_POLICY_FILE_BYTES, READ_LOCK, check_checksums

FORMAT_VERSION = 1
VALUE_SLACK = 1e-9  # rounding a solved win probability may leave it this far outside [0, 1]
MAX_META_BYTES = 1 * MiB  # a policy file's metadata (JSON text) is a few hundred bytes


def solvable(variant: Variant) -> Variant:
    """Return the 2-player first-to-goal form of ``variant`` that the solver computes.

    Seed 003 solves every variant with the first player to reach the goal winning ("for
    symmetry in analysis"); the final-round and equal-turns endings need more state and are
    left open there, so the solver uses first-to-goal and says so.
    """
    return variant.require_turns("the solver").first_to_goal()


def cache_dir() -> Path:
    """Return the policy cache folder (``PIGDICE_CACHE_DIR`` or the user cache dir)."""
    override = os.environ.get("PIGDICE_CACHE_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("pigdice")) / "policies"


def remove_partial_files(since: float) -> None:
    """Remove the cache's unfinished saves (``storage.save_npz``'s temporary files) begun after ``since``.

    A worker process killed while it saved a policy leaves one behind; the finished files stay.
    """
    try:
        partial = [path for path in cache_dir().glob("*.tmp") if path.stat().st_mtime >= since - 1.0]
    except OSError:
        return
    for path in partial:
        path.unlink(missing_ok=True)


def cache_path(variant: Variant) -> Path:
    """Return where the policy of ``variant`` is cached (the name carries the fingerprint)."""
    variant = solvable(variant)
    return cache_dir() / f"{variant.name}-goal{variant.goal}-{variant.fingerprint()}-v{FORMAT_VERSION}.npz"


def entry_header(archive: zipfile.ZipFile, name: str) -> tuple[tuple[int, ...], np.dtype]:
    """Return the shape and dtype an .npz entry declares, read from its header alone."""
    with READ_LOCK, archive.open(name) as member:
        major, _ = np.lib.format.read_magic(member)
        read = np.lib.format.read_array_header_1_0 if major == 1 else np.lib.format.read_array_header_2_0
        shape, _, dtype = read(member)
    return tuple(shape), np.dtype(dtype)


def read_values(path: Path, variant: Variant) -> tuple[np.ndarray, int, float, float]:
    """Return (V, passes, residual, seconds) of the policy file at ``path`` saved for ``variant``.

    Raises BadParameterError if it is not a sound one: not a plain file (a FIFO would block), a
    damaged archive, a missing entry, values that are not finite win probabilities in [0, 1] or that
    differ from the checksum saved with them, or metadata of another variant or format.
    """
    try:
        stream = files.open_regular(path, MAX_POLICY_FILE_BYTES, "a policy file")
    except files.UnsafeFileError as exc:
        raise BadParameterError(str(exc)) from None
    except OSError as exc:
        raise BadParameterError(f"{path}: cannot read the policy file ({exc.strerror or exc})") from None
    with stream:
        return _read_values(stream, path, variant)


def _read_values(stream: BinaryIO, path: Path, variant: Variant) -> tuple[np.ndarray, int, float, float]:
    """Return what ``read_values`` returns, from the open policy file ``stream``."""
    try:  # the headers first: a small compressed file may declare a huge array
        with zipfile.ZipFile(stream) as archive:
            shape, dtype = entry_header(archive, "values.npy")
            meta_shape, meta_dtype = entry_header(archive, "meta.npy")
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        raise BadParameterError(f"{path}: damaged policy file ({type(exc).__name__}: {exc})") from exc
    if shape != (variant.goal, variant.goal) or dtype != np.float64:
        raise BadParameterError(f"{path}: values have shape {shape} ({dtype}), expected goal x goal float64")
    if meta_shape != () or meta_dtype.itemsize > MAX_META_BYTES:
        raise BadParameterError(f"{path}: damaged policy metadata")
    check_memory(f"loading the policy of {variant.name}", variant.goal, lambda g: 2 * values_bytes(g))
    try:
        stream.seek(0)
        with READ_LOCK, np.load(stream, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            values = np.array(data["values"], dtype=np.float64)
        iterations, residual, seconds = int(meta["iterations"]), float(meta["residual"]), float(meta["seconds"])
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        raise BadParameterError(f"{path}: damaged policy file ({type(exc).__name__}: {exc})") from exc
    if not isinstance(meta, dict):
        raise BadParameterError(f"{path}: damaged policy metadata")
    if meta.get("format") != FORMAT_VERSION:
        raise BadParameterError(f"{path}: policy format {meta.get('format')} is not {FORMAT_VERSION}")
    if meta.get("fingerprint") != variant.fingerprint():
        raise BadParameterError(f"{path}: solved for other parameters than {variant.name} goal {variant.goal}")
    if values.shape != (variant.goal, variant.goal):
        raise BadParameterError(f"{path}: values have shape {values.shape}, expected goal x goal")
    if not (np.isfinite(values).all() and values.min() >= -VALUE_SLACK and values.max() <= 1 + VALUE_SLACK):
        raise BadParameterError(f"{path}: values are not win probabilities in [0, 1]")
    check_checksums(path, meta, {"values": values})  # in range is not enough: they must be the values saved
    return values, iterations, residual, seconds
