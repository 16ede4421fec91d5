"""What the command-line tests share: one runner, a run that must succeed with JSON, and the one-line error check."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from pigdice.cli.app import app

runner = CliRunner()


def run_json(*args: str) -> Any:
    """Run a command that must succeed and return its parsed JSON output."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return json.loads(result.stdout)


def assert_one_line_error(args: list[str], *words: str) -> None:
    """The command fails with exit 2 and one 'error: ...' line on stderr naming ``words``, no traceback."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.output
    for word in words:
        assert word in lines[0], lines[0]
