"""Where numba keeps the compiled kernels: a folder named by the kernels' sources, so no stale code runs.

Numba's own cache checks only the file that defines a kernel, not the files of the helpers it
inlines (``solve.step.effect_step``, the bundles of ``solve/herd``): after an edit to a helper,
the kernels that inline it would load their old machine code. Keying the cache folder on the
size and modification time of every source file that numba compiles from (rules, solve, study,
envs) starts a fresh folder whenever one of them changes. ``NUMBA_CACHE_DIR``, when set, wins.

Loading the first kernel of a process also makes numba import ``numba.np.arraymath``, which probes
for BLAS by importing ``scipy.linalg``: 0.2 s of CPU (a warm Pig solve in one process, 2026-12-07,
busy machine: 1.13 s with it, 0.91 s without). The probe only picks how a jitted ``np.convolve``
or ``np.correlate`` multiplies (BLAS or a loop), and no pigdice kernel calls either.
``skip_blas_probe`` answers it "no BLAS" without the import: ``np.dot`` and ``np.linalg`` in a
kernel still import scipy themselves when they compile.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import time
from pathlib import Path
from types import ModuleType

KERNEL_PARTS = ("rules", "solve", "study", "envs")  # the parts whose code numba compiles (or inlines)
STALE_SECONDS = 30 * 24 * 3600  # folders of other sources unused this long are removed
PROBING_MODULE = "numba.np.arraymath"  # imports scipy.linalg at its import, to probe for BLAS


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


def _no_blas() -> None:
    """Stand in for numba's ``ensure_blas`` while ``numba.np.arraymath`` probes: BLAS counts as absent."""
    raise ImportError("BLAS not probed (pigdice.kernelcache.skip_blas_probe)")


class _SkipBlasProbe(importlib.abc.MetaPathFinder):
    """Find ``numba.np.arraymath`` once and run its import with the BLAS probe answered "absent"."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        """Return the probing module's own spec with a lean loader (None for any other module)."""
        if fullname != PROBING_MODULE:
            return None
        sys.meta_path.remove(self)  # once: from here on numba imports as it always does
        spec = importlib.util.find_spec(fullname)
        loader = None if spec is None else spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            try:
                from numba.np import linalg

                probe = linalg.ensure_blas
            except (ImportError, AttributeError):  # a numba laid out otherwise: its own probe runs
                run(module)
                return
            linalg.ensure_blas = _no_blas
            try:
                run(module)
            finally:
                linalg.ensure_blas = probe
            if getattr(module, "ensure_blas", None) is _no_blas:
                vars(module)["ensure_blas"] = probe  # its own later calls (none today) get the real one

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def skip_blas_probe() -> None:
    """Spare the first kernel load of this process numba's scipy import (the module docstring says why)."""
    if PROBING_MODULE in sys.modules or any(isinstance(finder, _SkipBlasProbe) for finder in sys.meta_path):
        return
    sys.meta_path.insert(0, _SkipBlasProbe())
