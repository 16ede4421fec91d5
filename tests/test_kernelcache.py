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


def test_the_folder_is_chosen_when_numba_loads_not_when_pigdice_does(tmp_path: Path) -> None:
    # choosing it imports platformdirs (0.02-0.03 s of CPU), which a command without numba need not pay
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"XDG_CACHE_HOME": str(tmp_path)}
    code = (
        "import os, sys\nimport pigdice\nprint('platformdirs' in sys.modules, 'NUMBA_CACHE_DIR' in os.environ)\n"
        "from numba.core import config\nprint(config.CACHE_DIR == os.environ['NUMBA_CACHE_DIR'])\n"
        "print(config.CACHE_DIR.startswith(os.path.join(os.environ['XDG_CACHE_HOME'], 'pigdice', 'kernels')))"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", "True", "True"]


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


LEAN_KERNEL = """
from numba import njit


def total(a):
    s = 0.0
    for x in a:
        s += x
    return s


total = njit(cache=True)(total)
"""
LEAN_RUN = (
    "import sys\nimport numpy as np\nimport pigdice.kernelcache\nsys.path.insert(0, sys.argv[1])\n"
    "pigdice.kernelcache.KERNEL_PACKAGE = 'leankernel'  # counted as one of pigdice's kernels\n"
    "from leankernel import total\n"
    "print(total(np.arange(4.0)), 'numba.np.arraymath' in sys.modules, 'numpy.ma' in sys.modules)\n"
    "from numba import njit\nprint(njit(lambda a, b: np.dot(a, b))(np.arange(3.0), np.arange(3.0)))"
)


def test_a_cached_kernel_loads_without_readying_numbas_compiler(tmp_path: Path) -> None:
    # numba readied its whole compiler (0.15 s of CPU, numba.np.arraymath among 40 modules) before loading any
    # cached kernel; pigdice's kernels load with numba's runtime only, and a compile after still readies it
    (tmp_path / "leankernel.py").write_text(LEAN_KERNEL)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "kernels")}
    run = [sys.executable, "-c", LEAN_RUN, str(tmp_path)]
    compiled = subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout.split()
    assert compiled == ["6.0", "True", "False", "5.0"]  # compiling readies everything (the BLAS probe skipped)
    loaded = subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout.split()
    assert loaded == ["6.0", "False", "False", "5.0"]


def test_an_arrays_type_is_numbas_own_without_its_masked_array_check() -> None:
    import numpy as np
    from numba.core.typing.typeof import Purpose, typeof, typeof_impl

    lean = typeof_impl.dispatch(np.ndarray)
    assert lean.__wrapped__ is not lean  # pigdice's import patched it
    readonly = np.zeros((2, 3))
    readonly.flags.writeable = False
    arrays = [np.zeros(3), np.zeros((2, 3), dtype=np.int8), np.zeros((3, 2)).T, np.zeros((4, 4))[::2], readonly]
    arrays += [
        np.zeros(0, dtype=np.bool_),
        np.zeros((2, 2, 2), dtype=np.complex128),
        np.asfortranarray(np.zeros((2, 3))),
    ]
    for array in arrays:
        assert lean(array, None) == lean.__wrapped__(array, None), array
        assert typeof(array, Purpose.argument) == lean.__wrapped__(array, None)
    for odd in (np.zeros(2, dtype=object), np.zeros(2, dtype="V3")):  # numba's own answer (or error) for these
        try:
            expected = lean.__wrapped__(odd, None)
        except Exception as error:
            with pytest.raises(type(error)):
                lean(odd, None)
        else:
            assert lean(odd, None) == expected
    masked = np.ma.masked_array([1.0, 2.0])
    with pytest.raises(Exception, match="MaskedArray"):
        lean(masked, None)


def test_a_mark_says_which_work_has_its_kernels_compiled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "kernels"))
    assert not kernelcache.kernels_ready("pig-goal4-p2")
    kernelcache.mark_kernels_ready("pig-goal4-p2")
    assert kernelcache.kernels_ready("pig-goal4-p2")
    assert not kernelcache.kernels_ready("pig-goal4-p3")  # other work: other kernels
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "other"))
    assert not kernelcache.kernels_ready("pig-goal4-p2")  # another kernel folder (other sources): not compiled there
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "file" / "kernels"))
    kernelcache.mark_kernels_ready("pig-goal4-p2")  # an unwritable folder: no mark, no error
    assert not kernelcache.kernels_ready("pig-goal4-p2")
