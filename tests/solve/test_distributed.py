"""The n-player solve on Dask: the same values, overrides and stats as the in-process solve."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pigdice.errors import BadParameterError, ResourceLimitError
from pigdice.rules.registry import find_variant
from pigdice.rules.variant import Endgame
from pigdice.solve import memory
from pigdice.solve.n import distributed
from pigdice.solve.n.distributed import check_address, check_store, dask_client, plan_stages, solve_distributed
from pigdice.solve.n.nplayer import solve_players

pytest.importorskip("distributed")

# the slow tier: each test starts work on a 2-worker cluster whose processes load (cold: compile) the kernels
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """One 2-worker LocalCluster for the module (starting one takes seconds)."""
    with dask_client(workers=2) as running:
        yield running


def _same(got: Any, want: Any) -> None:
    """Assert two PlayersPolicy agree at every state, in their stats and their overrides."""
    assert got.values.shape == want.values.shape
    assert float(np.max(np.abs(np.asarray(got.values) - want.values))) <= 1e-12
    assert got.stats == want.stats
    assert got.decisions == want.decisions
    assert got.iterations == want.iterations


def test_five_player_pig_equals_the_in_process_solve(client: Any, tmp_path: Path) -> None:
    variant = find_variant("pig").with_goal(9)
    want = solve_players(variant, 5)
    # tasks of at most 500 tuples: the larger sums are split by first score into several tasks
    got = solve_distributed(variant, 5, client, store=tmp_path, task_states=500)
    _same(got, want)
    assert (tmp_path / "values.npy").exists()  # a given folder keeps the values


def test_three_players_with_resets_equal_the_in_process_solve(client: Any) -> None:
    variant = find_variant("two-dice-pig").with_goal(12)  # snake eyes resets the score: passes repeat
    want = solve_players(variant, 3)
    assert want.iterations > 1
    got = solve_distributed(variant, 3, client, task_states=100, flush=True)  # as on machines sharing a folder
    _same(got, want)


def test_mixed_choices_found_in_several_tasks_are_carried_as_in_process(client: Any) -> None:
    # 3-player Pig to 70 is the smallest Pig found with cycles whose equilibrium mixes (6 of them, 12 decision
    # points; none to 60, nor 4 players to 20, 5 to 14): their overrides come back from the tasks that met them
    variant = find_variant("pig").with_goal(70)
    want = solve_players(variant, 3)
    assert want.stats is not None and want.stats.mixed == 6 and len(want.decisions) == 12
    got = solve_distributed(variant, 3, client, task_states=1_000)  # the largest sums cut into 4 tasks
    _same(got, want)


def test_a_folder_solved_in_again_gives_the_new_games_values(client: Any, tmp_path: Path) -> None:
    # the workers drop their maps and tables at the end of a solve: the next one in the folder starts afresh
    for name in ("pig", "piggy"):
        variant = find_variant(name).with_goal(10)
        got = solve_distributed(variant, 3, client, store=tmp_path, task_states=100)
        _same(got, solve_players(variant, 3))
    assert not any(client.run(distributed.release, str(tmp_path)).values())  # nothing left open


def test_a_worker_keeps_one_solves_store_open_between_its_tasks(tmp_path: Path) -> None:
    variant = distributed.check_distributable(find_variant("pig").with_goal(6), 3)
    stage = plan_stages(6, 3, task_states=10)[0]
    first = distributed._create_store(tmp_path, variant, 3, resets=False, flush=False)
    distributed.run_task(first, stage[0], True, False)
    held = distributed._OPENED[str(tmp_path)]
    distributed.run_task(first, stage[-1], True, False)
    assert distributed._OPENED[str(tmp_path)] is held  # the same maps and tables for the solve's next task
    again = distributed._create_store(tmp_path, variant, 3, resets=False, flush=False)  # a new solve, same folder
    distributed.run_task(again, stage[0], True, False)
    assert distributed._OPENED[str(tmp_path)] is not held
    shared = distributed._create_store(tmp_path, variant, 3, resets=False, flush=True)  # a folder machines share
    distributed.run_task(shared, stage[0], True, False)
    mapped = distributed._OPENED[str(tmp_path)].maps
    distributed.run_task(shared, stage[-1], True, False)
    assert distributed._OPENED[str(tmp_path)].maps is not mapped  # opened afresh: other machines' writes seen
    assert distributed.release(str(tmp_path)) and not distributed.release(str(tmp_path))


def test_values_kept_in_memory_are_checked_against_the_memory_before_solving(monkeypatch: Any) -> None:
    monkeypatch.setattr(memory, "available_bytes", lambda: 1 << 30)  # 1 GiB: the 3.8 GiB of values do not fit
    variant = find_variant("pig").with_goal(40)
    # refused before the client is used: a solve of minutes would otherwise fail at its end
    with pytest.raises(ResourceLimitError, match="keeping the values of pig for 5 players in memory"):
        solve_distributed(variant, 5, client=object())


def test_stages_cover_every_score_tuple_once() -> None:
    goal, players = 11, 4
    stages = plan_stages(goal, players, task_states=200)
    sums = [s for stage in stages for task in stage for s in range(task.s_low, task.s_high + 1)]
    assert sorted(set(sums), reverse=True) == list(range(players * (goal - 1), -1, -1))
    assert any(len(stage) > 1 for stage in stages)
    for stage in stages:  # the blocks of one sum's first scores tile 0 .. goal
        edges = [(task.first_lo, task.first_hi) for task in stage]
        assert edges[0][0] == 0 and edges[-1][1] == goal
        assert all(a[1] == b[0] for a, b in itertools.pairwise(edges))


def test_endings_and_bad_addresses_are_refused(client: Any) -> None:
    variant = find_variant("pig").with_goal(8).with_endgame(Endgame.FINAL_ROUND)
    with pytest.raises(BadParameterError, match="first to the goal only"):
        solve_distributed(variant, 3, client)
    with pytest.raises(BadParameterError, match="address like tcp://host:8786"):
        check_address("  ")
    with pytest.raises(BadParameterError, match="cannot reach the Dask scheduler"), dask_client("tcp://127.0.0.1:9"):
        pass
    with pytest.raises(BadParameterError, match="task takes at least one"):
        plan_stages(8, 3, task_states=0)


def test_a_store_that_cannot_hold_the_values_is_refused_before_solving(tmp_path: Path) -> None:
    afile = tmp_path / "values.txt"
    afile.write_text("not a folder")
    with pytest.raises(BadParameterError, match="it is a file, not a folder"):
        check_store(afile)
    with pytest.raises(BadParameterError, match="Not a directory"):
        check_store(afile / "inside")
    assert check_store(tmp_path / "new" / "store").is_dir()  # a folder that does not exist yet is made


def test_the_cli_solves_on_dask_and_estimates_it() -> None:
    from typer.testing import CliRunner

    from pigdice.cli.app import app

    runner = CliRunner()
    result = runner.invoke(app, ["solve", "pig", "--players", "3", "--goal", "10", "--dask", "--json"])
    assert result.exit_code == 0, result.output
    want = solve_players(find_variant("pig").with_goal(10), 3)
    got = json.loads(result.stdout)["win_probability_by_seat"]
    assert np.allclose(got, want.win_probability_by_seat(), atol=1e-12, rtol=0)
    refused = runner.invoke(app, ["solve", "pig", "--players", "3", "--goal", "10", "--scheduler", " "])
    assert refused.exit_code != 0 and "tcp://host:8786" in refused.output
    ending = runner.invoke(
        app, ["solve", "pig", "--players", "5", "--goal", "10", "--endgame", "final-round", "--dask"]
    )
    assert ending.exit_code != 0 and "first to the goal only" in ending.output
    dry = runner.invoke(app, ["solve", "pig", "--players", "5", "--goal", "40", "--dry-run", "--json"])
    told = json.loads(dry.stdout)["dask"]
    assert told["store_bytes"] == 8 * 5 * 40**5 and told["workers"] == 2 and told["tasks"] > 100
    assert 0 < told["wall_seconds_low"] < told["wall_seconds_high"]
