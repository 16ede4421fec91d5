"""Bench results as Markdown tables the docs include, each stamped with its date, machine and load.

A bench run with ``--write`` saves its figures to ``bench/results/<name>.md``; the Benchmarks page
(docs/benchmarks.md) includes those files, so its tables are always what a bench printed, never
numbers copied by hand. The stamp says when, on what and how busy: the load average matters on a
shared machine, where wall times move (the benches time CPU, which moves less).
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Sequence
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def _cpu_model() -> str:
    """Return the processor's model name (Linux: /proc/cpuinfo), else the platform's word for it."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def _memory_gib() -> float | None:
    """Return the machine's memory in GiB (Linux: /proc/meminfo), or None where it cannot be read."""
    meminfo = Path("/proc/meminfo")
    if not meminfo.exists():
        return None
    for line in meminfo.read_text(errors="replace").splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) / 2**20
    return None


def _load() -> str:
    """Return the load average over 1, 5 and 15 minutes ("unknown" where the system does not say)."""
    return " / ".join(f"{value:.1f}" for value in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"


def machine_stamp() -> str:
    """Return one line naming the date, the machine and its load average now (call it as the bench starts)."""
    memory = _memory_gib()
    load = _load()
    parts = [
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        f"{_cpu_model()}, {os.cpu_count()} cores" + (f", {memory:.0f} GiB" if memory else ""),
        f"Python {platform.python_version()}",
        f"load average {load} (1, 5, 15 minutes) at the start",
    ]
    return "; ".join(parts)


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Return a Markdown table of ``rows`` under ``header`` (every row as long as the header)."""
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"a row of {len(row)} cells under a header of {len(header)}: {row}")
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def write_results(name: str, command: str, stamp: str, sections: Sequence[tuple[str, str]]) -> Path:
    """Write ``bench/results/<name>.md``: the command and stamp, then each (heading, Markdown) section."""
    if not name.replace("_", "").isalnum():
        raise ValueError(f"a results name is letters, digits and underscores, got {name!r}")
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.md"
    text = [f"<!-- written by `{command}`: run it again to refresh, do not edit by hand -->", ""]
    text += [f"*Measured {stamp}, {_load()} at the end; `{command}`.*", ""]
    for heading, body in sections:
        if heading:
            text += [f"**{heading}**", ""]
        text += [body, ""]
    path.write_text("\n".join(text))
    return path
