"""Compile and load cost: CPU seconds each command spends on a fresh machine and with warm kernel caches.

Run: python bench/compile_cost.py [--runs N] [--functions] [--write]
Each command runs in its own process with NUMBA_CACHE_DIR and PIGDICE_CACHE_DIR in a fresh temporary
folder (fresh: nothing compiled), then N more times with that folder kept (warm: every kernel loaded
from numba's cache); the CPU time is the child's user + system time (its rusage). ``import numba``
alone is measured the same way, so "beyond numba" is what loading pigdice's cached kernels and running
the command costs on top of it; "Pig's solve in one process" is that without the command line's worker
process (its own Python, imports and pickling). ``--functions`` lists the kernels a fresh ``solve pig``
compiles (its worker's solve and the hint rows it warms), with the CPU seconds each one's compile took
(numba's own event timings; numba's set-up at its first compile apart). Targets (issue 31): a fresh Pig solve
compiles in <= 2 s of CPU; a warm one loads its kernels in <= 0.1 s beyond ``import numba``. The one-line
kernel rows are numba's own floor: its set-up at the first compile (fresh) or the first cached load (warm),
alone and as pigdice loads its kernels (``pigdice.kernelcache``). The children keep Python's compiled
modules (``PYTHONDONTWRITEBYTECODE`` unset), as an installed package does.
``--write`` saves the table to bench/results/compile.md (dated, with the machine and its load) for
the docs' Benchmarks page.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from report import machine_stamp, markdown_table, write_results

# Pig's solve without the command line's worker process: importing the solver, loading its kernels, solving
SOLVE_HERE = "from pigdice.rules.registry import find_variant\nfrom pigdice.solve.solver import solve_uncached\n" + (
    "solve_uncached(find_variant('pig'))"
)
# numba's own floor: a one-line kernel, compiled (fresh) or loaded from numba's cache (warm); its file sits beside
# the kernel cache, written once so numba's cache stays valid. With pigdice, it loads as pigdice's kernels do.
ONE_SOURCE = "from numba import njit\n\n\n@njit(cache=True)\ndef one(x):\n    return x + 1\n"
ONE_KERNEL = (
    "import os, sys\nfolder = os.path.dirname(os.environ['NUMBA_CACHE_DIR'])\n"
    "path = os.path.join(folder, 'onekernel.py')\nif not os.path.exists(path):\n"
    f"    with open(path, 'w') as f:\n        f.write({ONE_SOURCE!r})\n"
    "sys.path.insert(0, folder)\n"
)
ONE_KERNEL_PIGDICE = "import pigdice.kernelcache\npigdice.kernelcache.KERNEL_PACKAGE = 'onekernel'\n"
COMMANDS: dict[str, list[str]] = {
    "import numba": ["-c", "import numba"],
    "a one-line kernel, numba alone": ["-c", ONE_KERNEL + "from onekernel import one\none(1)"],
    "a one-line kernel, loaded as pigdice's": [
        "-c",
        ONE_KERNEL + ONE_KERNEL_PIGDICE + "from onekernel import one\none(1)",
    ],
    "import numpy": ["-c", "import numpy"],
    "import pigdice.solve.solver": ["-c", "import pigdice.solve.solver"],
    "Pig's solve in one process": ["-c", SOLVE_HERE],
    "solve pig --no-cache": ["-m", "pigdice", "solve", "pig", "--no-cache"],
    "hint pig --goal 90": ["-m", "pigdice", "hint", "pig", "--goal", "90", "--score", "50", "--opponent", "80"],
}

# Lists the dispatchers a fresh `solve pig` compiles in its worker process, with numba's compile time for each.
LIST_COMPILED = """
import time
from numba.core import event

compiled = {}


class Timer(event.Listener):
    def on_start(self, ev):
        self.began = getattr(self, "began", {})
        self.began[id(ev.data["dispatcher"])] = time.process_time()

    def on_end(self, ev):
        dispatcher = ev.data["dispatcher"]
        name = dispatcher.py_func.__module__ + "." + dispatcher.py_func.__qualname__
        compiled[name] = compiled.get(name, 0.0) + time.process_time() - self.began.pop(id(dispatcher), 0.0)


event.register("numba:compile", Timer())
from numba import njit

njit(lambda x: x + 1)(1)  # numba's own set-up at its first compile, counted apart
from pigdice.rules.registry import find_variant
from pigdice.solve.exact import solve_for_caller

compiled.clear()
began = time.process_time()
solve_for_caller(find_variant("pig"), 2, None, lambda fraction, label: None)
first = time.process_time() - began
for name, seconds in sorted(compiled.items(), key=lambda item: -item[1]):
    print(f"{name}\t{seconds}")
print(f"in all: the worker's solve and the hint rows it warms\t{first}")
"""
HEADERS = ["command", "fresh (empty kernel cache)", "warm", "warm, beyond `import numba`"]


def cpu_seconds(arguments: list[str], cache: str) -> float:
    """Return the CPU seconds (user + system) of running python ``arguments`` with its caches in ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": f"{cache}/numba", "PIGDICE_CACHE_DIR": f"{cache}/pigdice"}
    env.pop(
        "PYTHONDONTWRITEBYTECODE", None
    )  # as installed: Python's compiled modules kept (0.04 s of pigdice's imports)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, *arguments], env=env, capture_output=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--functions", action="store_true")
    parser.add_argument("--write", action="store_true", help="save the table to bench/results/compile.md")
    args = parser.parse_args()
    stamp = machine_stamp()
    rows = []
    if not 1 <= args.runs <= 50:
        parser.error(f"--runs must be from 1 to 50, got {args.runs}")
    print(f"load average: {Path('/proc/loadavg').read_text().split()[:3]}" if Path("/proc/loadavg").exists() else "")
    warm_numba = None
    print(f"{'command':40s} {'fresh CPU s':>12s} {'warm CPU s':>11s} {'warm beyond numba':>18s}")
    for label, arguments in COMMANDS.items():
        cache = tempfile.mkdtemp(prefix="pigdice-compile-")
        try:
            fresh = cpu_seconds(arguments, cache)
            warm = min(cpu_seconds(arguments, cache) for _ in range(args.runs))
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        if label == "import numba":
            warm_numba = warm
        beyond = "" if warm_numba is None else f"{warm - warm_numba:+18.3f}"
        print(f"{label:40s} {fresh:12.3f} {warm:11.3f} {beyond}")
        rows.append([f"`{label}`", f"{fresh:.2f} s", f"{warm:.2f} s", beyond.strip() and f"{beyond.strip()} s"])
    sections = [("CPU seconds, each command in a new process", markdown_table(HEADERS, rows))]
    if args.functions:
        print("kernels a fresh `solve pig` compiles (CPU s of each compile):")
        listed = compiled_kernels()
        for name, seconds in listed:
            print(f"  {seconds:6.2f} s  {name}")
        sections.append(("What a fresh `solve pig` compiles, CPU seconds of each compile", compiled_table(listed)))
    if args.write:
        flags = " --functions" if args.functions else ""
        command = f"python bench/compile_cost.py --write --runs {args.runs}{flags}"
        path = write_results("compile", command, stamp, sections)
        print(f"wrote {path}")


def compiled_kernels() -> list[tuple[str, float]]:
    """Return (function, CPU seconds of its compile) for what a fresh ``solve pig`` compiles, and the total."""
    cache = tempfile.mkdtemp(prefix="pigdice-compile-")
    env = {**os.environ, "NUMBA_CACHE_DIR": f"{cache}/numba", "PIGDICE_CACHE_DIR": f"{cache}/pigdice"}
    try:
        out = subprocess.run([sys.executable, "-c", LIST_COMPILED], env=env, check=True, capture_output=True, text=True)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    listed = []
    for line in out.stdout.splitlines():
        name, _, seconds = line.rpartition("\t")
        listed.append((name, float(seconds)))
    return listed


def compiled_table(listed: list[tuple[str, float]]) -> str:
    """Return the compiled functions as a Markdown table (the last row is the total)."""
    rows = [[f"`{name}`", f"{seconds:.2f} s"] for name, seconds in listed[:-1]]
    name, seconds = listed[-1]
    rows.append([name, f"{seconds:.2f} s"])
    return markdown_table(["function (a nested compile counts in its caller too)", "compile"], rows)


if __name__ == "__main__":
    main()
