"""A pytest plugin that writes each test's CPU seconds (its own process and the subprocesses it waited for) to JSON.

Use: ``PYTHONPATH=src:tests CPUCOST_OUT=costs.json pytest -p cpucost``. Each test's setup, call and
teardown are counted (a module fixture's cost lands on the first test that uses it); the file holds
the total, every file's sum and every test, dearest first.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Iterator
from typing import Any

import pytest

_COSTS: dict[str, tuple[float, float, float]] = {}


def _children_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Measure the CPU seconds of one test's setup, call and teardown."""
    own, children, wall = time.process_time(), _children_seconds(), time.perf_counter()
    yield
    _COSTS[item.nodeid] = (time.process_time() - own, _children_seconds() - children, time.perf_counter() - wall)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write the costs, dearest first, to CPUCOST_OUT (default cpucost.json)."""
    tests: list[dict[str, Any]] = sorted(
        (
            {
                "test": node,
                "cpu": round(own + kids, 3),
                "own": round(own, 3),
                "children": round(kids, 3),
                "wall": round(wall, 3),
            }
            for node, (own, kids, wall) in _COSTS.items()
        ),
        key=lambda row: -row["cpu"],
    )
    files: dict[str, list[float]] = {}
    for row in tests:
        total = files.setdefault(row["test"].split("::")[0], [0.0, 0])
        total[0] += row["cpu"]
        total[1] += 1
    per_file = sorted(
        ({"file": f, "cpu": round(c, 2), "tests": int(n)} for f, (c, n) in files.items()), key=lambda r: -r["cpu"]
    )
    report = {
        "total_cpu": round(sum(row["cpu"] for row in tests), 1),
        "tests": len(tests),
        "per_file": per_file,
        "per_test": tests,
    }
    with open(os.environ.get("CPUCOST_OUT", "cpucost.json"), "w", encoding="utf-8") as out:
        json.dump(report, out, indent=1)
