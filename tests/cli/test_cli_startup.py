"""Start-up: the command line loads the solver (numba) and the study modules only for commands that use them."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("numba", "scipy", "pigdice.solve.solver", "pigdice.study.evaluate", "fastapi", "matplotlib", "plotly")


def _loaded_after(code: str) -> set[str]:
    """Return which heavy modules are loaded after running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport sys\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    return set(filter(None, out.split(",")))


def test_the_command_line_starts_without_the_solver() -> None:
    assert _loaded_after("import pigdice.cli.app") == set()


def test_help_variants_and_rules_do_not_load_the_solver() -> None:
    for args in (["--help"], ["variants"], ["rules", "pig"]):
        code = (
            "import sys\nfrom typer.testing import CliRunner\nfrom pigdice.cli.app import app\n"
            f"result = CliRunner().invoke(app, {args!r})\nassert result.exit_code == 0, result.output"
        )
        assert _loaded_after(code) == set(), args
