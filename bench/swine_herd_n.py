"""3-player Swine Herd (seed 001) solved by pigdice.solve.herd.swineherd_n: time, memory, exploitability, values.

Run: python bench/swine_herd_n.py [--goal 10 20 50 100] [--threads 2]
Prints per goal: solve seconds (wall and CPU; each score sum's turn starts on the threads given, default every
core), table bytes and the process's peak memory, the value at the start by
seat, the exploitability (exact best-response gain at the start and the largest over every turn
start), the turn starts settled on the selected equilibria, by sticky profiles, by the forced-mix
search and by tracing their logit equilibria, those that did not settle, and the shares of mixed
stage games.
"""

from __future__ import annotations

import argparse
import resource
import time
from collections.abc import Callable

from pigdice.rules import find_variant
from pigdice.solve.herd.swineherd_n import exploitability_report, solve_swine_herd_n
from pigdice.solve.memory import format_bytes


def peak_bytes() -> int:
    """Return the peak resident memory of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def cpu_progress(every: float) -> Callable[[float, str], None]:
    """Return a progress callback printing the label, the share done and the CPU seconds, at most every ``every``."""
    last = [time.process_time()]

    def progress(fraction: float, label: str) -> None:
        now = time.process_time()
        if now - last[0] >= every:
            print(f"    {fraction:6.1%} {label}: {now:.0f} CPU-s", flush=True)
            last[0] = now

    return progress


def main() -> None:
    """Solve and report each goal given."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--goal", type=int, nargs="+", default=[10, 20, 50])
    parser.add_argument("--threads", type=int, default=None, help="threads per score sum (default: every core)")
    parser.add_argument("--every", type=float, default=10.0, help="print progress after this many CPU seconds")
    args = parser.parse_args()
    started = time.perf_counter()
    solve_swine_herd_n(find_variant("swine-herd").with_goal(4), 3)  # compile / load the kernels
    print(f"kernels ready in {time.perf_counter() - started:.1f} s", flush=True)
    for goal in args.goal:
        progress = cpu_progress(args.every)
        cpu = time.process_time()
        policy = solve_swine_herd_n(find_variant("swine-herd").with_goal(goal), 3, progress, args.threads)
        solve_cpu = time.process_time() - cpu
        report = exploitability_report(policy, progress)
        pass_cpu = time.process_time() - cpu - solve_cpu
        stats = policy.statistics
        start = ", ".join(f"{v:.9f}" for v in policy.value((0, 0, 0)))
        print(
            f"goal {goal}: solve {policy.seconds:.1f} s ({solve_cpu:.1f} CPU-s, {policy.threads} threads), "
            f"tables {format_bytes(policy.nbytes)}, "
            f"peak memory {format_bytes(peak_bytes())}, start ({start})"
        )
        print(
            f"  exploitability: start {report.start:.3e}, worst turn start {report.overall:.3e} "
            f"(best-response pass {report.seconds:.1f} s, {pass_cpu:.1f} CPU-s)"
        )
        selected = stats.turn_starts - stats.sticky - stats.forced - stats.traced - stats.unsettled
        print(
            f"  turn starts {stats.turn_starts}: selected {selected}, sticky {stats.sticky}, "
            f"forced mixes {stats.forced}, traced {stats.traced}, unsettled {stats.unsettled}; "
            f"unresolved stages {stats.unresolved}"
        )
        share3 = stats.mixed3 / stats.stages3 if stats.stages3 else 0.0
        share2 = stats.mixed2 / stats.stages2 if stats.stages2 else 0.0
        print(
            f"  mixed stages: three standing {stats.mixed3} of {stats.stages3} ({share3:.1%}), "
            f"two standing {stats.mixed2} of {stats.stages2} ({share2:.1%}), all {stats.mixed_share:.1%}"
        )


if __name__ == "__main__":
    main()
