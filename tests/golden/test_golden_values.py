"""The value tables in tests/data/values.json: solved again and compared, checked for consistency, and
held to the figures the papers publish.

Cases of the "fast" tier are solved in `pytest`, the "slow" ones in `pytest -m slow`; the "stored"
cases (3 players at goal 100: minutes each; two endings of 3-player Pig Dice whose code paths the slow
tier runs at the same cost) are only checked here for consistency, and
``python tests/golden/make.py --heavy --tier stored`` solves them again and compares.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import golden

STORED = {case["key"]: case for case in json.loads((golden.DATA / "values.json").read_text())["cases"]}
VALUE = 1e-9  # a stored value against today's solve (the solvers converge to 1e-12)


def tiered(tier: str) -> list[Any]:
    """Return the cases of ``tier`` as test parameters, the slow ones marked slow."""
    marks = [pytest.mark.slow] if tier == "slow" else []
    return [pytest.param(case, marks=marks, id=case.key) for case in golden.cases() if case.tier == tier]


def assert_same_figures(live: dict[str, Any], stored: dict[str, Any]) -> None:
    """Assert that today's figures of a case are the stored ones: exact where exact, else to ``VALUE``."""
    for field in ("key", "solver", "opening", "states"):
        assert live[field] == stored[field], field
    assert live["seats"] == pytest.approx(stored["seats"], abs=VALUE)
    assert live["samples"] == pytest.approx(stored["samples"], abs=VALUE)
    now, then = live["turn_starts"], stored["turn_starts"]
    assert (now["grid_step"], now["count"]) == (then["grid_step"], then["count"])
    assert now["sum"] == pytest.approx(then["sum"], abs=VALUE * then["count"])
    assert now["moment"] == pytest.approx(then["moment"], abs=VALUE * then["count"])
    assert now["digest"] == then["digest"], "a turn-start value moved by more than the digest's rounding"


def test_the_file_holds_every_case_once() -> None:
    keys = [case.key for case in golden.cases()]
    assert len(keys) == len(set(keys))
    assert sorted(STORED) == sorted(keys), "run python tests/golden/make.py --write"


@pytest.fixture(scope="module")
def compiled_herd_kernels() -> None:
    """Solve 3-player Swine Herd to 4, so a cold numba cache compiles its kernels here and not in a case."""
    from pigdice.rules import find_variant
    from pigdice.solve.herd.swineherd_n import solve_swine_herd_n

    solve_swine_herd_n(find_variant("swine-herd", goal=4), 3)


@pytest.mark.usefixtures("compiled_herd_kernels")
@pytest.mark.parametrize("case", tiered("fast"))
def test_fast_cases_solve_to_the_stored_figures(case: golden.Case) -> None:
    assert_same_figures(golden.value_figures(case), STORED[case.key])


@pytest.mark.parametrize("case", tiered("slow"))
def test_slow_cases_solve_to_the_stored_figures(case: golden.Case) -> None:
    assert_same_figures(golden.value_figures(case), STORED[case.key])


@pytest.mark.parametrize("key", sorted(STORED))
def test_stored_figures_are_consistent(key: str) -> None:
    case = STORED[key]
    players, goal = case["players"], case["goal"]
    assert len(case["seats"]) == players and math.isclose(sum(case["seats"]), 1.0, abs_tol=VALUE)
    assert all(0.0 <= p <= 1.0 for p in case["seats"]) and all(0.0 <= p <= 1.0 for p in case["samples"].values())
    grid = case["turn_starts"]
    seats = players if case["ending"].startswith("equal-turns") and case["variant"] != "swine-herd" else 1
    assert grid["grid_step"] == golden.grid_step(goal, players)
    assert grid["count"] == math.ceil(goal / grid["grid_step"]) ** players * seats
    assert 0.0 <= grid["sum"] <= grid["count"]
    assert case["samples"]["-".join(["0"] * players)] == pytest.approx(case["seats"][0], abs=VALUE)
    if case["variant"] == "swine-herd" and players == 2:
        assert case["seats"] == pytest.approx([0.5, 0.5], abs=1e-12)  # the same shared rolls for both


def test_the_heavy_cases_are_stored_with_their_solvers() -> None:
    # 3-player Pig to 100 (our own figures; bench/nplayer.py --players 3 --goal 100 --games 200000
    # --seed 2024 played them through the engine within a 99.9% interval of each seat)
    pig = STORED["pig/goal100/first-to-goal/p3"]
    assert pig["solver"] == golden.SOLVERS["players"] and pig["states"] == 50_500_000
    assert pig["seats"] == pytest.approx([0.365593549453, 0.331855526416, 0.302550924131], abs=1e-9)
    assert pig["opening"] == 23  # 0-0-0: roll until the turn total is 23
    # 3-player Piggy Six as played (equal turns, ties shared) to 100: our own figures; the last seat,
    # who plays knowing the others' totals, does best
    six = STORED["piggy-six/goal100/equal-turns-shared/p3"]
    assert six["solver"] == golden.SOLVERS["players"]
    assert six["seats"] == pytest.approx([0.309113, 0.332476, 0.358411], abs=2e-6)


@pytest.mark.parametrize("published", golden.PUBLISHED, ids=lambda p: f"{p.key}-{p.figure}")
def test_stored_figures_agree_with_the_papers(published: golden.Published) -> None:
    # each figure's source is named in golden.PUBLISHED (Neller & Presser 2004 and 2005)
    case = STORED[published.key]
    if published.figure == "opening":
        assert case["opening"] == published.value
    else:
        assert case["seats"][0] == pytest.approx(published.value, abs=5e-5)  # the papers give 4 digits


def test_the_figures_page_is_generated_from_the_stored_values() -> None:
    import figures_table

    page = Path(__file__).resolve().parents[2] / figures_table.OUT
    assert page.read_text() == figures_table.render(list(STORED.values())), "run python tests/golden/figures_table.py"
