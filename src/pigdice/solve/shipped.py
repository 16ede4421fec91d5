"""Exact turn-start values shipped with the package: the perfect player of every registered variant at once.

Every registered variant at its own goal and ending, with 2 players, is solved once when the
package is built and its turn-start values (plus the last-turn table under a final round or equal
turns) are kept in ``data/shipped.npz``; the perfect player then answers from them in plain
Python (``pigdice.solve.quickpolicy``), with nothing to compile or solve on a fresh install.
A game is found by what changes its optimal play (``game_key``: the rules' fingerprint, the
ending, the tie rule, the final turn), so a variant whose rules change is solved as before
until the file is written again:

    python -m pigdice.solve.shipped --write

The file is a zip archive: ``index.json`` lists each game (name, goal, key, the arrays' shapes,
what its solve took) and each float64 array is stored as its 8 byte planes (the high bytes of
nearby win probabilities repeat, so the planes compress well), an .npy file packed with xz.
"""

from __future__ import annotations

import argparse
import io
import json
import lzma
import os
import tempfile
import threading
import zipfile
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from pigdice.rules.variant import Endgame, Variant
from pigdice.solve.quickpolicy import QuickPolicy, quick_policy

DATA_NAME = "shipped.npz"
INDEX = "index.json"
FORMAT = 1
VALUE_SLACK = 1e-9  # rounding may leave a solved win probability this far outside [0, 1]
FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # every member's timestamp: the same solve writes the same bytes

_LOADED: dict[str, QuickPolicy] = {}
_LOCK = threading.Lock()


def data_path() -> Path:
    """Return where the shipped values live in the installed package."""
    return Path(str(resources.files("pigdice.solve").joinpath("data", DATA_NAME)))


def game_key(variant: Variant) -> str:
    """Return what identifies a 2-player exact solve: the rules' fingerprint and, where they matter, the ending's
    rules (first to the goal ignores the tie rule and the final turn; Swine Herd adds its house rule)."""
    rules = variant.fingerprint()
    if variant.is_simultaneous:
        return f"herd-{rules}-{'sit' if variant.sits_at_goal else 'roll-on'}"
    if variant.endgame is Endgame.FIRST_TO_GOAL:
        return f"race-{rules}"
    return f"ending-{rules}-{variant.endgame}-{variant.ties}-{variant.final_turn}"


def _encode(array: np.ndarray) -> np.ndarray:
    """Return a float64 array as its 8 byte planes (8, n), little-endian."""
    flat = np.ascontiguousarray(array, dtype="<f8").reshape(-1)
    return np.ascontiguousarray(flat.view(np.uint8).reshape(-1, 8).T)


def _decode(planes: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Return the float64 array of ``shape`` stored as byte planes."""
    return np.ascontiguousarray(planes.T).view("<f8").reshape(shape).astype(np.float64)


def read_index(path: Path | None = None) -> list[dict[str, Any]]:
    """Return the list of shipped games (empty if the file is missing or damaged)."""
    try:
        with zipfile.ZipFile(path or data_path()) as archive:
            index = json.loads(archive.read(INDEX))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        return []
    if not isinstance(index, dict) or index.get("format") != FORMAT or not isinstance(index.get("games"), list):
        return []
    return [game for game in index["games"] if isinstance(game, dict)]


def _load_arrays(path: Path, game: dict[str, Any]) -> list[np.ndarray] | None:
    """Return the arrays of one shipped game, or None if they are missing or not win probabilities."""
    arrays = []
    try:
        with zipfile.ZipFile(path) as archive:
            for name, shape in game["arrays"]:
                packed = archive.read(f"{game['slug']}.{name}.npy.xz")
                planes = np.lib.format.read_array(io.BytesIO(lzma.decompress(packed)), allow_pickle=False)
                arrays.append(_decode(planes, tuple(shape)))
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile, EOFError, lzma.LZMAError):
        return None
    for array in arrays:
        if not (np.isfinite(array).all() and array.min() >= -VALUE_SLACK and array.max() <= 1 + VALUE_SLACK):
            return None
    return arrays


def shipped_policy(variant: Variant, players: int = 2) -> QuickPolicy | None:
    """Return the perfect player of ``variant`` from the shipped values (plain Python), or None if none ship.

    Only 2-player games whose rules, goal and ending match a shipped solve are found.
    """
    if players != 2:
        return None
    key = game_key(variant)
    with _LOCK:
        kept = _LOADED.get(key)
        if kept is not None:
            return kept
        path = data_path()
        game = next((g for g in read_index(path) if g.get("key") == key), None)
        if game is None:
            return None
        arrays = _load_arrays(path, game)
        if arrays is None or arrays[0].shape[-1] != variant.goal:
            return None
        figures = {name: float(game.get(name, 0.0)) for name in ("iterations", "residual", "truncation", "seconds")}
        policy = quick_policy(variant, arrays, figures)
        _LOADED[key] = policy
        return policy


def is_shipped(variant: Variant, players: int = 2) -> bool:
    """Return True if the perfect player of ``variant`` with ``players`` players ships with the package."""
    return players == 2 and any(game.get("key") == game_key(variant) for game in read_index())


def solved_arrays(variant: Variant) -> tuple[list[np.ndarray], dict[str, float]]:
    """Solve 2-player ``variant`` with the kernels; return the arrays a quick policy needs and the solve's figures."""
    from pigdice.solve.exact import exact_policy

    policy: Any = exact_policy(variant, 2, use_cache=False)
    figures = {"iterations": policy.iterations, "residual": policy.residual, "seconds": policy.seconds}
    figures["truncation"] = 0.0
    if variant.is_simultaneous:
        return [np.array(policy.solved.V)], figures
    if variant.endgame is Endgame.FIRST_TO_GOAL:
        return [np.array(policy.policy.values)], figures
    figures["truncation"] = float(policy.truncation)
    return [np.array(policy.values), np.array(policy.last)], figures


def write(path: Path, variants: list[Variant] | None = None) -> int:
    """Solve every registered variant (or ``variants``) at its goal and ending, write the file; return its bytes."""
    from pigdice.rules.registry import all_variants

    games = []
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name, suffix=".tmp", delete=False) as tmp:
        try:
            with zipfile.ZipFile(tmp, "w") as archive:
                for variant in variants or all_variants():
                    arrays, figures = solved_arrays(variant)
                    names = ["values", "last"][: len(arrays)]
                    for name, array in zip(names, arrays, strict=True):
                        buffer = io.BytesIO()
                        np.lib.format.write_array(buffer, _encode(array), allow_pickle=False)
                        packed = lzma.compress(buffer.getvalue(), preset=9 | lzma.PRESET_EXTREME)
                        archive.writestr(zipfile.ZipInfo(f"{variant.name}.{name}.npy.xz", FIXED_TIME), packed)
                    shapes = [[name, list(array.shape)] for name, array in zip(names, arrays, strict=True)]
                    entry = {"name": variant.name, "goal": variant.goal, "players": 2, "key": game_key(variant)}
                    games.append({**entry, "slug": variant.name, "arrays": shapes, **figures})
                index = json.dumps({"format": FORMAT, "games": games}, indent=1).encode()
                archive.writestr(zipfile.ZipInfo(INDEX, FIXED_TIME), index)
        except BaseException:
            Path(tmp.name).unlink(missing_ok=True)
            raise
    os.chmod(tmp.name, 0o644)
    os.replace(tmp.name, path)
    with _LOCK:
        _LOADED.clear()
    return path.stat().st_size


def main(argv: list[str] | None = None) -> None:
    """Write the shipped values (``--write``) or list them."""
    parser = argparse.ArgumentParser(prog="python -m pigdice.solve.shipped", description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="solve every registered variant and write the file")
    parser.add_argument("--out", type=Path, default=None, help="where to write (default: the package's data file)")
    args = parser.parse_args(argv)
    path = args.out or data_path()
    if args.write:
        size = write(path)
        print(f"wrote {path}: {size:,} bytes")
    for game in read_index(path):
        print(f"{game['name']:18s} goal {game['goal']:4d}  {game['key']}")


if __name__ == "__main__":
    main()
