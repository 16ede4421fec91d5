"""Where numba keeps the compiled kernels: a folder named by the kernels' sources, so no stale code runs.

Numba's own cache checks only the file that defines a kernel, not the files of the helpers it
inlines (``solve.step.effect_step``, the bundles of ``solve/herd``): after an edit to a helper,
the kernels that inline it would load their old machine code. Keying the cache folder on the
size and modification time of every source file that numba compiles from (rules, solve, study,
envs) starts a fresh folder whenever one of them changes. ``NUMBA_CACHE_DIR``, when set, wins.
The folder is chosen when numba is first imported (``use_kernel_cache_with_numba``), not when
pigdice is: finding it imports platformdirs (0.02-0.03 s of CPU, its regular expressions), which a
command that never loads numba (``rules``, a hint from a cached policy) need not pay.

Loading the first kernel of a process also makes numba import ``numba.np.arraymath``, which probes
for BLAS by importing ``scipy.linalg``: 0.2 s of CPU (a warm Pig solve in one process, 2026-12-07,
busy machine: 1.13 s with it, 0.91 s without). The probe only picks how a jitted ``np.convolve``
or ``np.correlate`` multiplies (BLAS or a loop), and no pigdice kernel calls either.
``skip_blas_probe`` answers it "no BLAS" without the import: ``np.dot`` and ``np.linalg`` in a
kernel still import scipy themselves when they compile.

Loading a cached kernel, numba first readies its whole compiler (``Cache.load_overload`` calls
``target_context.refresh()``): it imports about 40 modules of implementations (``numba.np``,
``numba.cpython``, ``numba.typed``) and installs their typing and lowering registries, 0.15 s of
CPU, though rebuilding the kernel from its object code takes 3 ms and uses none of them (measured
2026-12-07: the first cached load of a one-line kernel 0.20 s, of which registries 0.13, typing
0.05, numba's runtime 0.03). ``lean_cached_loads`` loads pigdice's cached kernels with numba's
runtime only (its C helpers, which the object code links to); the first compile in the process
still readies everything (``compile_extra`` refreshes both contexts), and a kernel missing from
the cache takes numba's own path. numba's type of an array also imports ``numpy.ma`` to check for a
masked array (0.01-0.03 s); while ``numpy.ma`` is not loaded no array can be masked, so a plain
array is typed as numba types it without the import (a test compares the two).

A process that has compiled (or loaded) the kernels a piece of work uses says so with a mark in
the kernel folder (``mark_kernels_ready``): a caller that finds the mark (``kernels_ready``) knows
those kernels load from the cache in a moment, so a small solve can run in its own process rather
than in a worker started to keep a long compile interruptible (``pigdice.solve.exact``). The mark
names this Python and this numba too (numba's cache is per version): after an upgrade it is absent.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

KERNEL_PARTS = ("rules", "solve", "study", "envs")  # the parts whose code numba compiles (or inlines)
STALE_SECONDS = 30 * 24 * 3600  # folders of other sources unused this long are removed
PROBING_MODULE = "numba.np.arraymath"  # imports scipy.linalg at its import, to probe for BLAS
CACHING_MODULE = "numba.core.caching"  # numba's disk cache of compiled kernels (``FunctionCache``)
TYPEOF_MODULE = "numba.core.typing.typeof"  # numba's types of Python values (an array's checks for masked arrays)
KERNEL_PACKAGE = "pigdice."  # the kernels whose cached loads go lean
READY_FOLDER = "ready"  # in the kernel folder: one empty file per piece of work whose kernels are compiled


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


def _lean_load(original: Callable[..., Any]) -> Callable[..., Any]:
    """Return ``FunctionCache.load_overload`` loading pigdice's cached kernels without readying the compiler."""

    def load_overload(cache: Any, sig: Any, target_context: Any) -> Any:
        """Return the cached kernel of ``sig`` rebuilt with numba's runtime only, or numba's own load's answer."""
        if getattr(cache, "_py_func", None) is None or not cache._py_func.__module__.startswith(KERNEL_PACKAGE):
            return original(cache, sig, target_context)
        try:
            from numba.core.runtime import rtsys

            rtsys.initialize(target_context)  # the C helpers (reference counts, allocation) the object code calls
            loaded = cache._load_overload(sig, target_context)
        except Exception:  # a numba laid out otherwise, or a kernel that needs more: numba's own load decides
            loaded = None
        return loaded if loaded is not None else original(cache, sig, target_context)

    load_overload.__wrapped__ = original  # type: ignore[attr-defined]
    return load_overload


def _patch_caching(module: ModuleType) -> None:
    """Make ``module`` (numba's caching) load pigdice's cached kernels lean (once; a layout it lacks: unchanged)."""
    cache = getattr(module, "FunctionCache", None)
    original = getattr(cache, "load_overload", None)
    if cache is None or original is None or hasattr(original, "__wrapped__") or not hasattr(cache, "_load_overload"):
        return
    cache.load_overload = _lean_load(original)


def _patch_typeof(module: ModuleType) -> None:
    """Make ``module`` (numba's typeof) type a plain array without importing ``numpy.ma`` (once; else unchanged)."""
    names = ("typeof_impl", "_typeof_ndarray", "numpy_support", "types", "np")
    if not all(hasattr(module, name) for name in names):
        return
    impl, original, support, types, np = (getattr(module, name) for name in names)
    if hasattr(impl.dispatch(np.ndarray), "__wrapped__"):
        return

    def typeof_array(val: Any, c: Any) -> Any:
        """Return numba's type of an array, as numba's own typeof does (``numpy.ma`` unloaded: no masked array)."""
        if "numpy.ma" in sys.modules or type(val) is not np.ndarray:
            return original(val, c)
        try:
            dtype = support.from_dtype(val.dtype)
        except Exception:  # an unsupported dtype: numba's own typeof raises its error
            return original(val, c)
        return types.Array(dtype, val.ndim, support.map_layout(val), readonly=not val.flags.writeable)

    typeof_array.__wrapped__ = original  # type: ignore[attr-defined]
    impl.register(np.ndarray)(typeof_array)


LEAN_PATCHES: dict[str, Callable[[ModuleType], None]] = {CACHING_MODULE: _patch_caching, TYPEOF_MODULE: _patch_typeof}


def _spec_running(
    fullname: str, running: Callable[[Callable[[ModuleType], None], ModuleType], None]
) -> importlib.machinery.ModuleSpec | None:
    """Return ``fullname``'s own spec, its loader running the module as ``running(run, module)`` (``run``: the
    loader's own step); the spec as found where its loader has no such step to wrap."""
    spec = importlib.util.find_spec(fullname)
    loader = None if spec is None else spec.loader
    if loader is None or not hasattr(loader, "exec_module"):
        return spec
    run = loader.exec_module

    def exec_module(module: ModuleType) -> None:
        running(run, module)

    loader.exec_module = exec_module  # type: ignore[method-assign]
    return spec


class _LeanCachedLoads(importlib.abc.MetaPathFinder):
    """Patch numba's caching and typeof modules right after they first run (``lean_cached_loads``)."""

    def __init__(self) -> None:
        self.waiting = {name for name in LEAN_PATCHES if name not in sys.modules}

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        """Return the module's own spec with a loader that patches it (None for any module not patched)."""
        if fullname not in self.waiting:
            return None
        self.waiting.discard(fullname)
        if not self.waiting:
            sys.meta_path.remove(self)

        def run_and_patch(run: Callable[[ModuleType], None], module: ModuleType) -> None:
            run(module)
            LEAN_PATCHES[fullname](module)

        return _spec_running(fullname, run_and_patch)


def lean_cached_loads() -> None:
    """Load pigdice's cached kernels without numba's compiler set-up (the module docstring says why and how)."""
    for name, patch in LEAN_PATCHES.items():
        if name in sys.modules:
            patch(sys.modules[name])
    if any(name not in sys.modules for name in LEAN_PATCHES) and not any(
        isinstance(finder, _LeanCachedLoads) for finder in sys.meta_path
    ):
        sys.meta_path.insert(0, _LeanCachedLoads())


class _KernelCacheWithNumba(importlib.abc.MetaPathFinder):
    """Choose the kernel folder (``use_kernel_cache``) when numba is first imported, before its config reads it."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        """Choose the folder if numba is being imported; leave finding every module to the other finders."""
        if fullname == "numba":
            sys.meta_path.remove(self)
            use_kernel_cache()
        return None


def use_kernel_cache_with_numba() -> None:
    """Point numba's cache at this installation's kernel folder when numba is first imported (now if it is loaded)."""
    if "numba" in sys.modules:
        use_kernel_cache()
    elif not any(isinstance(finder, _KernelCacheWithNumba) for finder in sys.meta_path):
        sys.meta_path.insert(0, _KernelCacheWithNumba())


def ready_mark(work: str) -> Path | None:
    """Return the mark file of ``work``'s kernels in this installation's kernel folder, or None without a folder."""
    use_kernel_cache()  # the folder numba will use here, chosen now if numba has not been imported yet
    folder = os.environ.get("NUMBA_CACHE_DIR")
    spec = importlib.util.find_spec("numba")  # found, not imported: the caller may not need numba at all
    if not folder or spec is None or spec.origin is None:
        return None
    try:
        stat = os.stat(spec.origin)
    except OSError:
        return None
    stamp = f"{work};{sys.version};{spec.origin}:{stat.st_size}:{stat.st_mtime_ns}"
    return Path(folder) / READY_FOLDER / hashlib.sha256(stamp.encode()).hexdigest()[:24]


def kernels_ready(work: str) -> bool:
    """Return True if a process with this Python, numba and kernel folder marked ``work``'s kernels compiled."""
    mark = ready_mark(work)
    return mark is not None and mark.is_file()


def mark_kernels_ready(work: str) -> None:
    """Mark ``work``'s kernels compiled in this kernel folder (call once they have run; best effort)."""
    mark = ready_mark(work)
    if mark is None:
        return
    try:
        mark.parent.mkdir(parents=True, exist_ok=True)
        mark.touch()
    except OSError:
        return  # an unwritable folder: the next caller starts a worker, as before


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
        return _spec_running(fullname, _run_without_blas_probe)


def _run_without_blas_probe(run: Callable[[ModuleType], None], module: ModuleType) -> None:
    """Run the probing module (``run``: its loader's own step) with numba's BLAS probe answered "absent"."""
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


def skip_blas_probe() -> None:
    """Spare the first kernel load of this process numba's scipy import (the module docstring says why)."""
    if PROBING_MODULE in sys.modules or any(isinstance(finder, _SkipBlasProbe) for finder in sys.meta_path):
        return
    sys.meta_path.insert(0, _SkipBlasProbe())
