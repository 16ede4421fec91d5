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
