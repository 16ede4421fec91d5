"""Where numba keeps the compiled kernels: a folder named by the kernels' sources, so no stale code runs.

Numba's own cache checks only the file that defines a kernel, not the files of the helpers it
inlines (``solve.step.effect_step``, the bundles of ``solve/herd``): after an edit to a helper,
the kernels that inline it would load their old machine code. Keying the cache folder on the
size and modification time of every source file that numba compiles from (rules, solve, study,
envs) starts a fresh folder whenever one of them changes. ``NUMBA_CACHE_DIR``, when set, wins.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

KERNEL_PARTS = ("rules", "solve", "study", "envs")  # the parts whose code numba compiles (or inlines)
STALE_SECONDS = 30 * 24 * 3600  # folders of other sources unused this long are removed


def sources_key(package: Path) -> str:
    """Return a short hash of the path, size and modification time of every kernel source file."""
    stamps: list[str] = []
    folders = [str(package / part) for part in KERNEL_PARTS]
    while folders:
        folder = folders.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    folders.append(entry.path)
            elif entry.name.endswith(".py"):
                stat = entry.stat()
                stamps.append(f"{entry.path}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256(";".join(sorted(stamps)).encode()).hexdigest()[:16]


def _prune(root: Path, keep: Path) -> None:
    """Remove the kernel folders under ``root`` that have not been used for STALE_SECONDS (best effort)."""
    import shutil

    now = time.time()
    for folder in root.iterdir():
        try:
            if folder != keep and folder.is_dir() and now - folder.stat().st_mtime > STALE_SECONDS:
                shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            continue


def use_kernel_cache() -> None:
    """Point numba's cache at this installation's kernel folder unless ``NUMBA_CACHE_DIR`` is set."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    try:
        from platformdirs import user_cache_dir

        root = Path(user_cache_dir("pigdice")) / "kernels"
        folder = root / sources_key(Path(__file__).resolve().parent)
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)  # marks it used, so pruning keeps it
        _prune(root, folder)
    except OSError:
        return  # an unwritable cache: numba's own default (next to the sources) still works
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
