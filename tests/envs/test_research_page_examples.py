"""The research page's examples run as written (so the docs stay true)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "research.md"
LEARNER_MODULES = ("sb3_contrib", "stable_baselines3", "torch")  # the learn extra: an example using one may skip


def examples() -> list[str]:
    """Return the Python blocks of the research page (docs/research.md)."""
    text = PAGE.read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def test_the_section_shows_every_interface() -> None:
    blocks = examples()
    assert len(blocks) >= 4
    for needle in ("pigdice/Pigdice-v0", "aec_env", "parallel_env", "python_pigdice"):
        assert any(needle in block for block in blocks), needle


@pytest.mark.parametrize("block", examples(), ids=lambda block: block.split("\n")[0][:40])
def test_each_example_runs_and_prints_a_result(block: str) -> None:
    for learner in LEARNER_MODULES:
        if learner in block and importlib.util.find_spec(learner) is None:
            pytest.skip(f"the example trains with {learner}, not installed (pip install 'pigdice[learn]')")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "docs/research.md", "exec"), {"__name__": "readme_example"})
    assert out.getvalue().strip(), "the example prints what happened"
