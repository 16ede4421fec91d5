"""Time the exact n-player solve in one process against the same solve on a 2-worker Dask LocalCluster.

Usage: python bench/distributed_solve.py [GOAL] [PLAYERS] [STORE_DIR]  (defaults 40, 5, a temporary directory).
Prints wall time, CPU seconds (the workers' summed for Dask), peak resident memory, the largest
difference between the two solves' values and whether their passes, stats and mixed choices agree.
"""

from __future__ import annotations

import json
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from pigdice.rules.registry import find_variant
from pigdice.solve.n.distributed import dask_client, solve_distributed
from pigdice.solve.n.nplayer import solve_players


def _usage() -> tuple[float, float]:
    """Return this process's CPU seconds and peak resident GiB."""
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime, use.ru_maxrss / 2**20


def _summary(policy: Any) -> dict[str, Any]:
    """Return what besides the values two solves must agree on: passes, stats and the mixed choices kept."""
    return {"iterations": policy.iterations, "stats": list(policy.stats), "decisions": len(policy.decisions)}


def main() -> None:
    """Run both solves and print their figures."""
    goal = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    players = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    store = Path(sys.argv[3]) if len(sys.argv) > 3 else Path(tempfile.mkdtemp(prefix="pigdice-bench-"))
    variant = find_variant("pig").with_goal(goal)
    if not (store / "reference.npy").exists():  # else the in-process values of an earlier run are compared
        solve_players(variant.with_goal(6), players)  # compiled before timing
        cpu0, _ = _usage()
        started = time.perf_counter()
        reference = solve_players(variant, players)
        cpu1, peak = _usage()
        print(f"in-process: {time.perf_counter() - started:.1f} s wall, {cpu1 - cpu0:.1f} s CPU, peak {peak:.2f} GiB")
        print(f"  start vector {reference.W[0, 0].tolist()}")
        np.save(store / "reference.npy", reference.values)
        (store / "reference.json").write_text(json.dumps(_summary(reference)))
        del reference
    with dask_client() as client:
        solve_distributed(variant.with_goal(6), players, client)  # the workers compile or load the kernels
        before = client.run(_usage)
        started = time.perf_counter()
        policy = solve_distributed(variant, players, client, store=store / "dask")
        wall = time.perf_counter() - started
        after = client.run(_usage)
    cpu = sum(after[w][0] - before[w][0] for w in after)
    peaks = ", ".join(f"{after[w][1]:.2f}" for w in after)
    driver = _usage()[1]
    print(
        f"dask (2 workers): {wall:.1f} s wall, {cpu:.1f} s worker CPU, "
        f"worker peaks {peaks} GiB, driver {driver:.2f} GiB"
    )
    reference_values = np.load(store / "reference.npy", mmap_mode="r")
    diff = max(float(np.max(np.abs(policy.values[i] - reference_values[i]))) for i in range(goal))
    print(f"  start vector {policy.W[0, 0].tolist()}; largest difference {diff:.3g}")
    print(f"  stats {policy.stats}")
    if (store / "reference.json").exists():
        same = json.loads((store / "reference.json").read_text()) == json.loads(json.dumps(_summary(policy)))
        print(f"  passes, stats and mixed choices equal to the in-process solve's: {same}")


if __name__ == "__main__":
    main()
