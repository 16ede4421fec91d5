"""The designer's results on disk: one row per measured game, in Parquet part files under ``OUT/results``.

Rows are appended as new part files (written to a temporary name, then renamed, so a run stopped
at any moment leaves only whole files); reading concatenates every part and keeps the first row
of each id. A rerun reads them and measures only the games still missing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pigdice.errors import require_modules
from pigdice.rules.designed import FIELDS
from pigdice.study.design.measures import MEASURES

RESULTS_DIR = "results"
PART = "part-{:05d}.parquet"

# every column of a result row, in order, with its Arrow type name
COLUMNS: dict[str, str] = {
    "id": "string",  # r-... for a designed rule set, v-NAME for a named variant
    "kind": "string",  # designed | named
    "name": "string",  # the named variant, or the rule set's id
    **{f.name: ("string" if f.choices else "int64") for f in FIELDS},
    **dict.fromkeys(MEASURES, "float64"),
    "seconds": "float64",  # how long the measures took (the one column that differs from run to run)
    "error": "string",  # why a game could not be measured ('' when it was)
}
NONDETERMINISTIC = ("seconds",)


def _schema() -> Any:
    require_modules(("pyarrow",), "design", "the game designer needs")
    import pyarrow as pa

    types = {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64()}
    return pa.schema([(name, types[kind]) for name, kind in COLUMNS.items()])


def results_dir(out: Path) -> Path:
    """Return the folder of the Parquet part files under the output folder ``out``."""
    return out / RESULTS_DIR


def read_results(out: Path) -> list[dict[str, Any]]:
    """Return every stored row (first row of each id wins), in the order the parts were written."""
    folder = results_dir(out)
    if not folder.is_dir():
        return []
    require_modules(("pyarrow",), "design", "the game designer needs")
    import pyarrow.parquet as pq

    rows: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("part-*.parquet")):
        for row in pq.read_table(path, schema=_schema()).to_pylist():
            rows.setdefault(row["id"], row)
    return list(rows.values())


def append_results(out: Path, rows: list[dict[str, Any]]) -> Path | None:
    """Write ``rows`` as the next part file; return its path (None when there is nothing to write)."""
    if not rows:
        return None
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = results_dir(out)
    folder.mkdir(parents=True, exist_ok=True)
    taken = [int(p.stem.split("-")[1]) for p in folder.glob("part-*.parquet") if p.stem.split("-")[1].isdigit()]
    path = folder / PART.format(max(taken, default=-1) + 1)
    table = pa.Table.from_pylist([{name: row.get(name) for name in COLUMNS} for row in rows], schema=_schema())
    partial = path.with_suffix(".partial")
    pq.write_table(table, partial)
    os.replace(partial, path)
    return path
