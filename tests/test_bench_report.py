"""The bench reports the docs include (bench/report.py): Markdown tables stamped with date, machine and load."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _report() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_report", ROOT / "bench" / "report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_table_has_its_header_rule_and_rows() -> None:
    table = _report().markdown_table(["goal", "time"], [["50", "1 ms"], ["100", "4 ms"]])
    assert table.splitlines() == ["| goal | time |", "| --- | --- |", "| 50 | 1 ms |", "| 100 | 4 ms |"]


def test_a_row_longer_than_the_header_is_refused() -> None:
    with pytest.raises(ValueError, match="3 cells under a header of 2"):
        _report().markdown_table(["goal", "time"], [["50", "1 ms", "extra"]])


def test_the_written_results_name_the_command_date_machine_and_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = _report()
    monkeypatch.setattr(report, "RESULTS", tmp_path)
    stamp = report.machine_stamp()
    path = report.write_results("solver", "python bench/x.py --write", stamp, [("Heading", "| a |\n| --- |")])
    text = path.read_text()
    assert path == tmp_path / "solver.md"
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", text)
    assert f"{__import__('os').cpu_count()} cores" in text
    assert "load average" in text and "at the end" in text
    assert "`python bench/x.py --write`" in text and "**Heading**" in text


def test_a_results_name_with_a_path_in_it_is_refused() -> None:
    with pytest.raises(ValueError, match="results name"):
        _report().write_results("../docs/index", "x", "stamp", [])


def test_the_docs_include_every_results_file_the_benches_write() -> None:
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    for name in ("solver", "compile"):
        assert f'--8<-- "bench/results/{name}.md"' in page
        assert (ROOT / "bench" / "results" / f"{name}.md").exists()
