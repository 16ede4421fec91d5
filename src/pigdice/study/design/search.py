"""Running the search: every game of the space measured once, in process or on Dask, resumably.

``run_search`` measures the named variants (the reference rows, each at every goal of the rule
sets measured, so a goal-50 space is compared with goal-50 Pig) and the first ``budget`` rule
sets of a space, skipping every id already in the output folder's Parquet results. Each game is
one task (``measure_row``): a pure function of its id's rules, so the same game gives the same
row in process, on a ``LocalCluster`` and on any cluster (only ``seconds`` differs). Dask is
imported only here and only when it runs: ``--scheduler ADDRESS`` joins a running cluster,
otherwise a ``LocalCluster`` of ``workers`` single-threaded processes is started and stopped;
either way the cluster's dashboard address is announced as soon as it is known.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pigdice.errors import BadParameterError, PigdiceError, require_modules
from pigdice.rules.designed import RuleSet, rule_set
from pigdice.rules.registry import find_variant
from pigdice.solve.threads import usable_cores
from pigdice.study.design.measures import MEASURES, measure
from pigdice.study.design.results import COLUMNS, append_results, read_results

Progress = Callable[[float, str], None]
Announce = Callable[[str], None]  # told one line for people, e.g. where the Dask dashboard is
# the named variants measured as reference rows (every 2-player roll/hold game of the registry)
REFERENCE_VARIANTS = (
    "pig",
    "two-dice-pig",
    "big-pig",
    "big-pig-knizia",
    "big-pig-reset",
    "big-pig-sevens",
    "big-pig-score-25",
    "freys-pig",
    "pig-dice",
    "piggy",
    "piggy-sevens",
    "pass-the-pigs",
    "piggy-six",
)
FLUSH_ROWS = 50  # rows kept in memory before they are written as a part file ...
FLUSH_SECONDS = 30.0  # ... or after this long
MAX_WORKERS = 256
CONNECT_TIMEOUT = "10s"  # how long to try reaching a --scheduler address


@dataclass(frozen=True)
class Task:
    """One game to measure: a designed rule set (its canonical key) or a named variant at a goal."""

    id: str
    kind: str  # designed | named
    spec: str  # the rule set's key (sorted JSON), or the variant's name
    goal: int | None = None  # a named variant's goal (None: its own)

    @classmethod
    def designed(cls, rules: RuleSet) -> Task:
        """Return the task of a designed rule set."""
        return cls(rules.ident(), "designed", rules.key())

    @classmethod
    def named(cls, name: str, goal: int | None = None) -> Task:
        """Return the task of a named variant, at ``goal`` (None: the variant's own goal)."""
        return cls(f"v-{name}" if goal is None else f"v-{name}@{goal}", "named", name, goal)


def measure_row(task: Task) -> dict[str, Any]:
    """Return the result row of one task (runs in a worker); an input error is recorded, not raised."""
    row: dict[str, Any] = {"id": task.id, "kind": task.kind, "error": ""}
    try:
        if task.kind == "designed":
            rules = rule_set(json.loads(task.spec))
            row.update(rules.to_dict(), name=task.id)
            variant = rules.to_variant()
        else:
            variant = find_variant(task.spec, goal=task.goal, files=True)
            row["name"] = task.spec
            row.update(goal=variant.goal, endgame=str(variant.endgame), ties=str(variant.ties))
        row.update(measure(variant).row())
    except PigdiceError as exc:  # a game the solver refuses (memory) or that never ends between two robots
        row.update(dict.fromkeys(MEASURES, float("nan")), seconds=0.0, error=" ".join(str(exc).split())[:500])
    return row


@dataclass
class SearchRun:
    """What a run did: the rows (reference and designed), how many it measured now, and how long it took."""

    rows: list[dict[str, Any]]
    measured: int
    reused: int
    seconds: float
    where: str
    dashboard: str = ""  # the Dask dashboard's address ('' in process)

    def designed(self) -> list[dict[str, Any]]:
        """Return the rows of designed rule sets."""
        return [r for r in self.rows if r["kind"] == "designed"]

    def reference(self) -> list[dict[str, Any]]:
        """Return the rows of the named variants."""
        return [r for r in self.rows if r["kind"] == "named"]


def plan(points: list[RuleSet], budget: int | None, reference: Iterable[str] = REFERENCE_VARIANTS) -> list[Task]:
    """Return the tasks of a run: the reference variants at every goal of the chosen rule sets (their own
    goal when none is chosen), then the first ``budget`` rule sets."""
    chosen = points if budget is None else points[:budget]
    goals: list[int | None] = [*sorted({p.goal for p in chosen})] or [None]
    named = [Task.named(name, goal) for goal in goals for name in reference]
    return named + [Task.designed(p) for p in chosen]


def run_search(
    tasks: list[Task],
    out: Path,
    scheduler: str | None = None,
    workers: int | None = None,
    in_process: bool = False,
    processes: bool = True,
    progress: Progress | None = None,
    announce: Announce | None = None,
) -> SearchRun:
    """Measure every task not yet in ``out``'s results and return all the run's rows (stored ones included);
    ``announce`` is told the Dask dashboard's address when the cluster starts."""
    started = time.perf_counter()
    stored = {row["id"]: row for row in read_results(out)}
    todo = [t for t in tasks if t.id not in stored]
    total = len(tasks)
    done = total - len(todo)
    fresh: dict[str, dict[str, Any]] = {}
    buffer: list[dict[str, Any]] = []
    flushed = time.perf_counter()

    def report() -> None:
        if progress is not None:
            progress(done / total if total else 1.0, f"measured {done}/{total}")

    report()
    where = "in process"
    found: dict[str, str] = {}

    def tell(dashboard: str) -> None:
        found["dashboard"] = dashboard
        if announce is not None:
            announce(f"Dask dashboard: {dashboard}")

    try:
        if in_process or not todo:
            rows: Iterator[dict[str, Any]] = (measure_row(t) for t in todo)
        else:
            rows, where = _on_dask(todo, scheduler, workers, processes, tell)
        for measured in rows:
            row = {name: measured.get(name) for name in COLUMNS}  # the row exactly as it is stored
            fresh[str(row["id"])] = row
            buffer.append(row)
            done += 1
            report()
            if len(buffer) >= FLUSH_ROWS or time.perf_counter() - flushed > FLUSH_SECONDS:
                append_results(out, buffer)
                buffer, flushed = [], time.perf_counter()
    finally:
        append_results(out, buffer)  # what was measured is kept, even if the run stops
    every = stored | fresh
    ordered = [every[t.id] for t in tasks if t.id in every]
    seconds = time.perf_counter() - started
    return SearchRun(ordered, len(fresh), len(tasks) - len(todo), seconds, where, found.get("dashboard", ""))


def _on_dask(
    todo: list[Task], scheduler: str | None, workers: int | None, processes: bool, tell: Announce
) -> tuple[Iterator[dict[str, Any]], str]:
    """Return the rows of ``todo`` as the Dask workers finish them (a generator that owns the cluster)."""
    require_modules(("dask", "distributed", "pyarrow"), "design", "the game designer needs")
    if workers is not None and not 1 <= workers <= MAX_WORKERS:
        raise BadParameterError(f"workers must be a whole number from 1 to {MAX_WORKERS}, got {workers}")
    where = f"Dask scheduler {scheduler}" if scheduler else f"Dask LocalCluster ({workers or usable_cores()} workers)"

    def rows() -> Iterator[dict[str, Any]]:
        import logging

        from dask.distributed import Client, LocalCluster, as_completed

        cluster = None
        if scheduler:
            try:
                client = Client(scheduler, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as exc:
                raise BadParameterError(f"cannot reach the Dask scheduler at {scheduler!r}: {exc}") from None
        else:
            cluster = LocalCluster(
                n_workers=workers or usable_cores(),
                threads_per_worker=1,
                processes=processes,
                dashboard_address=":0",  # any free port: never the busy default
                silence_logs=logging.ERROR,
            )
            client = Client(cluster)
        dashboard = _dashboard(client)
        if dashboard:
            tell(dashboard)
        try:
            if not todo:
                return
            futures = client.map(measure_row, todo, key=[f"measure-{t.id}" for t in todo], pure=False)
            for future in as_completed(futures):
                yield future.result()
                future.release()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()

    return rows(), where


def _dashboard(client: Any) -> str:
    """Return the address of the cluster's dashboard ('' when the scheduler runs none)."""
    try:
        link = client.dashboard_link
    except (KeyError, AttributeError, OSError):  # a scheduler started without its dashboard
        return ""
    return str(link) if link else ""
