"""The suite's own settings: hypothesis profiles chosen by the environment, and the two tiers of pyproject."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import settings

from conftest import hypothesis_profile


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
