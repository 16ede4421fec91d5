"""The numba kernel cache folder: a new one whenever a kernel source changes, the user's choice kept."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pigdice import kernelcache


def make_package(root: Path) -> Path:
    """Return a made-up package with one source file in every kernel part."""
    for part in kernelcache.KERNEL_PARTS:
        (root / part).mkdir(parents=True)
        (root / part / "kernel.py").write_text("x = 1\n")
    return root


def test_the_key_changes_when_any_kernel_source_changes(tmp_path: Path) -> None:
    package = make_package(tmp_path / "pkg")
    first = kernelcache.sources_key(package)
    assert kernelcache.sources_key(package) == first
    helper = package / "solve" / "kernel.py"
    helper.write_text("x = 22\n")  # an inlined helper edited: its kernels must compile again
    assert kernelcache.sources_key(package) != first
    (package / "web").mkdir()
    changed = kernelcache.sources_key(package)
    (package / "web" / "page.py").write_text("y = 1\n")  # not a kernel part: the compiled kernels stay
    assert kernelcache.sources_key(package) == changed


def test_the_users_numba_cache_dir_wins(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    code = "import os, pigdice; print(os.environ['NUMBA_CACHE_DIR'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(tmp_path)


def test_a_new_folder_is_used_and_old_unused_ones_are_pruned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr("platformdirs.user_cache_dir", lambda name: str(tmp_path / name))
    root = tmp_path / "pigdice" / "kernels"
    old, recent = root / "old", root / "recent"
    old.mkdir(parents=True)
    recent.mkdir()
    long_ago = time.time() - kernelcache.STALE_SECONDS - 60
    os.utime(old, (long_ago, long_ago))
    kernelcache.use_kernel_cache()
    chosen = Path(os.environ["NUMBA_CACHE_DIR"])
    assert chosen.parent == root and chosen.is_dir()
    assert not old.exists() and recent.exists()


def _run_fresh(code: str, tmp_path: Path) -> str:
    """Return what ``code`` prints in a new interpreter whose kernels compile into an empty folder."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "kernels")}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout


def test_loading_a_kernel_imports_no_scipy_and_numba_still_multiplies_with_blas(tmp_path: Path) -> None:
    # numba.np.arraymath's BLAS probe imported scipy.linalg at the first kernel load: 0.2 s of CPU
    code = (
        "import sys\nimport numpy as np\nimport pigdice\nfrom numba import njit\n"
        "square = njit(lambda x: x * x)\nprint(square(3.0), 'scipy.linalg' in sys.modules)\n"
        "dot = njit(lambda a, b: np.dot(a, b))\n"
        "print(dot(np.arange(3.0), np.arange(3.0)), 'scipy.linalg' in sys.modules)\n"
        "from numba.np import arraymath, linalg\nprint(arraymath.ensure_blas is linalg.ensure_blas)"
    )
    assert _run_fresh(code, tmp_path).split() == ["9.0", "False", "5.0", "True", "True"]


def test_the_blas_probe_is_skipped_once_and_never_after_numba_loaded_it() -> None:
    before = list(sys.meta_path)
    kernelcache.skip_blas_probe()  # pigdice's import already installed it (or numba already loaded the module)
    assert sys.meta_path == before
