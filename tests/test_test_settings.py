"""The suite's own settings: hypothesis profiles chosen by the environment, where bytecode goes, and the two tiers of
pyproject."""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import settings

from conftest import hypothesis_profile, keep_bytecode_outside_the_sources, one_thread_per_worker


@pytest.mark.parametrize(
    ("environ", "profile"),
    [
        ({}, "dev"),
        ({"CI": "true"}, "ci"),
        ({"CI": "1"}, "ci"),
        ({"CI": "false"}, "dev"),
        ({"CI": ""}, "dev"),
        ({"CI": "true", "HYPOTHESIS_PROFILE": "dev"}, "dev"),
    ],
)
def test_the_environment_chooses_the_hypothesis_profile(environ: dict[str, str], profile: str) -> None:
    assert hypothesis_profile(environ) == profile


def test_the_ci_profile_repeats_itself_and_never_times_out() -> None:
    ci = settings.get_profile("ci")
    assert ci.derandomize and ci.deadline is None and ci.database is None
    assert settings.get_profile("dev").deadline is not None


def test_plain_pytest_leaves_out_the_slow_tier() -> None:
    options = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())["tool"]["pytest"]
    assert "-m 'not slow'" in options["ini_options"]["addopts"]
    assert any(marker.startswith("slow:") for marker in options["ini_options"]["markers"])


def test_no_two_test_modules_share_a_name() -> None:
    # the tests folders are not packages: pytest imports each module by its bare name, so a second
    # tests/*/test_x.py stops collection of the whole suite ("import file mismatch")
    names = [path.name for path in (Path(__file__).parent).rglob("test_*.py")]
    assert sorted({name for name in names if names.count(name) > 1}) == []


def test_bytecode_is_kept_in_the_users_cache_only_where_the_environment_refuses_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "pycache_prefix", None)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    untouched = {"CI": "true"}
    assert keep_bytecode_outside_the_sources(untouched) is None and untouched == {"CI": "true"}
    assert sys.pycache_prefix is None and sys.dont_write_bytecode
    environ = {"PYTHONDONTWRITEBYTECODE": "1"}
    folder = keep_bytecode_outside_the_sources(environ)
    assert folder is not None and Path(folder).name == "bytecode" and "pigdice" in Path(folder).parts
    assert environ == {"PYTHONPYCACHEPREFIX": folder}  # the subprocesses write theirs there too
    assert sys.pycache_prefix == folder and not sys.dont_write_bytecode
    assert not Path(folder).is_relative_to(Path(__file__).parent.parent)  # never beside the sources


def test_each_worker_gets_one_openmp_thread_unless_the_environment_chose() -> None:
    empty: dict[str, str] = {}
    assert one_thread_per_worker(empty) == ["OMP_NUM_THREADS"] and empty == {"OMP_NUM_THREADS": "1"}
    chosen = {"OMP_NUM_THREADS": "4"}
    assert one_thread_per_worker(chosen) == [] and chosen == {"OMP_NUM_THREADS": "4"}


def test_the_suites_torch_runs_on_one_thread() -> None:
    if os.environ["OMP_NUM_THREADS"] != "1":
        pytest.skip("the environment chose its own number of threads")
    torch = pytest.importorskip("torch")
    assert torch.get_num_threads() == 1
