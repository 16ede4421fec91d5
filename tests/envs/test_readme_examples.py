"""README's research-interface examples run as written (so the README stays true)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "## Research interfaces"


def examples() -> list[str]:
    """Return the Python blocks of README's research-interface section."""
    text = README.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.index("\n## ", start + len(SECTION))
    return re.findall(r"```python\n(.*?)```", text[start:end], flags=re.DOTALL)


def test_the_section_shows_every_interface() -> None:
    blocks = examples()
    assert len(blocks) >= 4
    for needle in ("pigdice/Pigdice-v0", "aec_env", "parallel_env", "python_pigdice"):
        assert any(needle in block for block in blocks), needle


@pytest.mark.parametrize("block", examples(), ids=lambda block: block.split("\n")[0][:40])
def test_each_example_runs_and_prints_a_result(block: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {"__name__": "readme_example"})
    assert out.getvalue().strip(), "the example prints what happened"
