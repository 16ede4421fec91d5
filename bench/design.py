"""The game designer's big run: the example space's first N rule sets measured on a Dask LocalCluster.

Run: python bench/design.py [--budget 2000] [--workers 2] [--out DIR] [--in-process]
Prints the Dask dashboard's address when the cluster starts, the size of the space, the tasks
measured now and reused from DIR's Parquet results, the wall time, and the mean seconds per game
in the workers (the sum of the workers' times over the wall time is the parallel speed-up).
``pigdice design --space FILE --budget N --out DIR`` on the same folder then reuses every row and
writes the report.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from pigdice.study.design.results import read_results
from pigdice.study.design.search import plan, run_search
from pigdice.study.design.space import example_space


def main() -> None:
    """Run the big search and print its timing."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("design-run"))
    parser.add_argument("--in-process", action="store_true")
    args = parser.parse_args()
    points = example_space().points()
    before = {row["id"] for row in read_results(args.out)}
    tasks = plan(points, args.budget)
    print(f"space: {len(points)} distinct rule sets; tasks: {len(tasks)} (budget {args.budget} + named variants)")
    started = time.perf_counter()
    last = [0.0]

    def progress(fraction: float, label: str) -> None:
        now = time.perf_counter()
        if now - last[0] > 60:
            last[0] = now
            print(f"  {now - started:7.0f} s  {label}", flush=True)

    run = run_search(
        tasks, args.out, workers=args.workers, in_process=args.in_process, progress=progress, announce=print
    )
    wall = time.perf_counter() - started
    busy = sum(row["seconds"] for row in run.rows if row["id"] not in before)  # the games measured now
    print(f"where: {run.where}; measured now {run.measured}, reused {run.reused}")
    print(f"wall time {wall:.1f} s; worker seconds {busy:.1f} (mean {busy / max(1, run.measured):.2f} s per game)")
    print(f"speed-up over one worker: {busy / wall:.2f}x" if run.measured else "nothing new to measure")


if __name__ == "__main__":
    main()
