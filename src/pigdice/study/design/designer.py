"""The designer end to end: a space and a budget in, measured games, a shortlist and a report out."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pigdice.study.design.pareto import design_score, objectives, pareto_front, shortlist
from pigdice.study.design.report import write_report
from pigdice.study.design.search import REFERENCE_VARIANTS, Announce, Progress, SearchRun, plan, run_search
from pigdice.study.design.space import Space

SHORTLIST = 5  # proposals by default
MAX_SHORTLIST = 50


@dataclass
class Design:
    """A finished design run: the search, the shortlist, and what was written."""

    run: SearchRun
    summary: dict[str, Any]
    chosen: list[dict[str, Any]]
    written: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """Return the run as JSON-ready data (``pigdice design --json``)."""

        def clean(row: dict[str, Any]) -> dict[str, Any]:
            return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}

        return {
            **self.summary,
            "shortlist": [clean(r) for r in self.chosen],
            "reference": [clean({**r, "score": design_score(r)}) for r in self.run.reference()],
            **self.written,
        }


def design(
    space: Space,
    budget: int | None,
    out: Path,
    scheduler: str | None = None,
    workers: int | None = None,
    in_process: bool = False,
    size: int = SHORTLIST,
    progress: Progress | None = None,
    reference: tuple[str, ...] = REFERENCE_VARIANTS,
    processes: bool = True,
    announce: Announce | None = None,
) -> Design:
    """Measure the first ``budget`` games of ``space`` (resuming from ``out``), shortlist them and write the report;
    ``announce`` is told where the Dask dashboard is when the cluster starts."""
    points = space.points()
    tasks = plan(points, budget, reference)
    run = run_search(tasks, out, scheduler, workers, in_process, processes, progress, announce)
    designed = run.designed()
    chosen = shortlist(designed, size)
    front = pareto_front([objectives(r) for r in designed])
    summary = {
        "space_size": len(points),
        "budget": budget if budget is not None else len(points),
        "designed": len(designed),
        "measured": run.measured,
        "reused": run.reused,
        "errors": sum(1 for r in run.rows if r["error"]),
        "front": sum(front),
        "where": run.where,
        "dashboard": run.dashboard,
        "seconds": run.seconds,
        "out": str(out),
    }
    written = write_report(out, summary, designed, run.reference(), chosen)
    return Design(run, summary, chosen, written)
