"""Memory is estimated before allocating: too large a goal is refused up front, naming what fits."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from pigdice.errors import BadParameterError, ResourceLimitError
from pigdice.players.specs import parse_strategy
from pigdice.players.tables import action_table
from pigdice.rules import find_variant
from pigdice.solve import memory, solve, solve_uncached
from pigdice.solve.actions import HOLD, hold_thresholds
from pigdice.solve.memory import (
    GiB,
    MiB,
    action_table_bytes,
    available_bytes,
    budget_bytes,
    check_memory,
    format_bytes,
    head_to_head_bytes,
    largest_goal,
    solver_bytes,
)
from pigdice.solve.two.headtohead import head_to_head

pytestmark = pytest.mark.usefixtures("fresh_policies")  # a refusal is only seen by a solve not yet cached


def machine_with(monkeypatch, available: int) -> None:
    """Pretend ``available`` bytes are free."""
    monkeypatch.setattr(memory, "available_bytes", lambda: available)


def no_allocation(monkeypatch, *names: str) -> None:
    """Make numpy's goal-sized constructors fail: a refusal must come before them."""

    def boom(*args, **kwargs):
        raise AssertionError("allocated before checking memory")

    for name in names:
        monkeypatch.setattr(np, name, boom)


# --- what the machine has ------------------------------------------------------------------------


def test_available_memory_is_read_from_the_system():
    assert available_bytes() > 0
    assert budget_bytes(8 * GiB) == 4 * GiB  # half of what is available


def test_meminfo_is_parsed(tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24683656 kB\nMemFree:  1 kB\nMemAvailable:   2048 kB\n")
    assert memory._meminfo_available(meminfo) == 2048 * 1024
    assert memory._meminfo_available(tmp_path / "missing") is None
    meminfo.write_text("MemTotal: 5 kB\n")
    assert memory._meminfo_available(meminfo) is None


def test_a_cgroup_limit_is_read(monkeypatch, tmp_path):
    limit, usage = tmp_path / "memory.max", tmp_path / "memory.current"
    monkeypatch.setattr(memory, "_cgroup_files", lambda: (str(limit), str(usage)))
    limit.write_text(f"{3 * GiB}\n")
    usage.write_text(f"{GiB}\n")
    assert memory._cgroup_available() == 2 * GiB
    usage.write_text(f"{4 * GiB}\n")
    assert memory._cgroup_available() == 0  # over the limit: nothing left
    limit.write_text("max\n")
    assert memory._cgroup_available() is None  # no limit
    limit.write_text("lots\n")
    assert memory._cgroup_available() is None  # unreadable: no limit assumed
    usage.unlink()
    assert memory._cgroup_available() is None
    monkeypatch.setattr(memory, "_cgroup_files", lambda: None)
    assert memory._cgroup_available() is None


def test_without_proc_the_fallbacks_answer(monkeypatch):
    monkeypatch.setattr(memory, "_meminfo_available", lambda: None)
    monkeypatch.setattr(memory, "_cgroup_available", lambda: None)
    assert available_bytes() > 0  # os.sysconf
    monkeypatch.setattr(memory, "_sysconf_available", lambda: None)
    assert available_bytes() == memory.FALLBACK_AVAILABLE


def test_a_container_limit_counts(monkeypatch):
    monkeypatch.setattr(memory, "_meminfo_available", lambda: 20 * GiB)
    monkeypatch.setattr(memory, "_cgroup_available", lambda: 3 * GiB)
    assert available_bytes() == 3 * GiB


def test_a_recent_reading_serves_small_work_only(monkeypatch):
    reads = []

    def machine() -> int:
        reads.append(1)
        return 8 * GiB

    monkeypatch.setattr(memory, "available_bytes", machine)
    small = 4 * GiB // 64  # at most 1/64 of the 4 GiB budget: a recent reading serves it
    check_memory("solving", 1, lambda goal: small)
    check_memory("solving", 1, lambda goal: small)
    assert len(reads) == 1
    check_memory("solving", 1, lambda goal: small + 1)  # more: read afresh
    assert len(reads) == 2
    monkeypatch.setattr(memory, "RECENT_SECONDS", 0.0)  # too old: read afresh
    check_memory("solving", 1, lambda goal: small)
    assert len(reads) == 3
    monkeypatch.setattr(memory, "RECENT_SECONDS", 60.0)
    machine_with(monkeypatch, 10)  # another reader (a smaller machine) is read at once
    with pytest.raises(ResourceLimitError):
        check_memory("solving", 1, lambda goal: small)


# --- the estimates and the refusal --------------------------------------------------------------


def test_the_estimates_count_the_arrays():
    assert solver_bytes(1000) == 3 * 8 * 1000**2  # V, and the level kernel's C and D
    assert action_table_bytes(1000) == 1000**3  # int8
    assert head_to_head_bytes(100) == 6 * 8 * 100**2
    # the brief's example: goal 100_000's values alone are 74.5 GiB
    assert format_bytes(8 * 100_000**2) == "74.5 GiB"
    assert format_bytes(512 * MiB) == "512 MiB"


def test_largest_goal_is_the_last_that_fits():
    budget = solver_bytes(300)
    assert largest_goal(solver_bytes, budget) == 300
    assert largest_goal(solver_bytes, budget - 1) == 299
    assert largest_goal(solver_bytes, 0) == 0


def test_check_memory_says_what_it_needs_what_there_is_and_what_fits(monkeypatch):
    machine_with(monkeypatch, 2 * solver_bytes(50))
    assert check_memory("solving", 50, solver_bytes) == 0  # exactly the budget
    with pytest.raises(ResourceLimitError) as caught:
        check_memory("solving pig", 51, solver_bytes)
    error = caught.value
    assert isinstance(error, BadParameterError)
    assert error.needed == solver_bytes(51) and error.available == 2 * solver_bytes(50)
    assert error.budget == solver_bytes(50) and error.largest_goal == 50
    message = str(error)
    assert message.startswith("solving pig at goal 51 needs about ")
    assert "is available" in message and "at most 50%" in message
    assert message.endswith("the largest goal that fits is 50")


def test_the_memory_share_setting_widens_or_narrows_the_budget(monkeypatch):
    machine_with(monkeypatch, 2 * solver_bytes(50))
    monkeypatch.setenv(memory.SHARE_ENV, "0.9")
    assert budget_bytes(2 * solver_bytes(50)) == int(2 * solver_bytes(50) * 0.9)
    assert check_memory("solving", 51, solver_bytes) == budget_bytes(2 * solver_bytes(50)) - solver_bytes(51) > 0
    with pytest.raises(ResourceLimitError, match="at most 90%"):
        check_memory("solving pig", 80, solver_bytes)
    monkeypatch.setenv(memory.SHARE_ENV, " 0.25 ")
    with pytest.raises(ResourceLimitError, match="at most 25%"):
        check_memory("solving pig", 50, solver_bytes)


@pytest.mark.parametrize("setting", ["0.95", "0", "0.05", "abc", "nan", "inf", "-0.5", "50%"])
def test_a_memory_share_setting_that_cannot_be_one_is_refused_by_name(monkeypatch, setting):
    monkeypatch.setenv(memory.SHARE_ENV, setting)
    with pytest.raises(BadParameterError, match=r"PIGDICE_MEMORY_SHARE takes the share .* \(0.1 to 0.9\), not "):
        budget_bytes(GiB)


def test_when_nothing_fits_the_error_says_so(monkeypatch):
    machine_with(monkeypatch, 10)
    with pytest.raises(ResourceLimitError, match="no goal fits"):
        check_memory("solving", 2, solver_bytes)


def test_the_error_survives_pickling_from_a_worker():
    error = ResourceLimitError("too big", 10, 8, 4, 3)
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is ResourceLimitError and str(again) == "too big"
    assert (again.needed, again.available, again.budget, again.largest_goal) == (10, 8, 4, 3)


# --- every allocating place checks first --------------------------------------------------------


def test_solving_too_large_a_goal_is_refused_before_allocating(monkeypatch):
    machine_with(monkeypatch, 2 * solver_bytes(40))
    no_allocation(monkeypatch, "full", "zeros", "empty")
    for call in (solve, solve_uncached):
        with pytest.raises(ResourceLimitError, match=r"solving pig at goal 41 .* the largest goal that fits is 40"):
            call(find_variant("pig", goal=41))


def test_the_goal_named_as_fitting_does_fit(monkeypatch):
    machine_with(monkeypatch, 2 * solver_bytes(40))
    assert solve(find_variant("pig", goal=40)).values.shape == (40, 40)


def test_the_real_machine_refuses_goal_100000_at_once():
    # the brief: goal 100_000's values are 74.5 GiB; numpy used to fail half-way with its own error
    with pytest.raises(ResourceLimitError, match=r"solving pig at goal 100000 needs about 223\.5 GiB"):
        solve(find_variant("pig", goal=100_000))


def test_an_action_table_too_large_is_refused_before_allocating(monkeypatch):
    policy = solve(find_variant("pig", goal=60))
    machine_with(monkeypatch, 2 * action_table_bytes(59))
    no_allocation(monkeypatch, "zeros")
    with pytest.raises(ResourceLimitError, match=r"the action table of pig at goal 60 .* largest goal that fits is 59"):
        policy.action_table()


def test_head_to_head_too_large_is_refused_before_allocating(monkeypatch):
    variant = find_variant("pig", goal=30)
    table = action_table(parse_strategy("hold:10", variant), variant)
    machine_with(monkeypatch, 2 * head_to_head_bytes(29))
    no_allocation(monkeypatch, "full", "empty", "zeros")
    with pytest.raises(ResourceLimitError, match="exact head-to-head evaluation at goal 30"):
        head_to_head(variant, table, table)


def test_hold_thresholds_row_by_row_match_the_definition():
    rng = np.random.default_rng(5)
    goal = 25
    actions = rng.integers(0, 2, size=(goal, goal, goal)).astype(np.int8)
    actions[3, 4, 1:] = 1  # never holds
    k = np.arange(goal)[None, None, :]
    i = np.arange(goal)[:, None, None]
    holds = (actions == HOLD) & (k >= 1) & (k < goal - i)
    expected = np.where(~holds.any(axis=2), goal - np.arange(goal)[:, None], np.argmax(holds, axis=2))
    assert np.array_equal(hold_thresholds(actions), expected)
    assert hold_thresholds(actions)[3, 4] == goal - 3
