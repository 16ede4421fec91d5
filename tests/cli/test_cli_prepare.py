"""``pigdice prepare``: the parts it compiles, their order, and its refusals."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from pigdice.cli.app import app
from pigdice.cli.preparing import PARTS, chosen_parts
from pigdice.errors import BadParameterError

runner = CliRunner()


def test_no_part_named_means_every_part_in_running_order() -> None:
    assert chosen_parts(None) == chosen_parts([]) == ["play", "groups", "study", "environments"]


def test_parts_are_read_in_any_case_once_each_in_running_order() -> None:
    assert chosen_parts(["Study", "play", "study "]) == ["play", "study"]


@pytest.mark.parametrize("name", ["pig", "", "plays", "x" * 300])
def test_an_unknown_part_is_refused_with_the_list(name: str) -> None:
    with pytest.raises(BadParameterError, match="the parts are play, groups, study, environments") as caught:
        chosen_parts([name])
    assert len(str(caught.value)) < 200


def test_every_part_has_named_jobs_that_speak_a_players_language() -> None:
    for name, (covers, jobs) in PARTS.items():
        labels = [label for label, _ in jobs()]
        assert covers and labels, name
        assert len(labels) == len(set(labels)), name
        assert not any("--" in label or "_" in label for label in labels), labels


def test_the_command_refuses_an_unknown_part_without_compiling_anything() -> None:
    result = runner.invoke(app, ["prepare", "play", "nonsense"])
    assert result.exit_code == 2
    assert "no part named 'nonsense'" in result.output


def test_the_command_prepares_a_part_and_says_where_the_kernels_are() -> None:
    result = runner.invoke(app, ["prepare", "environments"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ready: environments (2 jobs in ")
    assert "the kernels are kept in" in result.output


def test_prepares_bar_shows_at_once_while_a_lazy_bar_waits_a_second() -> None:
    import io

    from rich.console import Console

    from pigdice.terminal.waiting import LazyBar

    console = Console(file=io.StringIO(), force_terminal=True)
    lazy, at_once = LazyBar(console), LazyBar(console, after=0.0)
    try:
        lazy(0.0, "a job")
        at_once(0.0, "a job")
        assert lazy.bar is None and at_once.bar is not None
    finally:
        lazy.stop()
        at_once.stop()
