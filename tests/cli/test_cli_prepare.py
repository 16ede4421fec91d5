"""``pigdice prepare``: the parts it compiles, their order, and its refusals."""

from __future__ import annotations

import os
import time

import pytest
from typer.testing import CliRunner

from pigdice.cli.app import app
from pigdice.cli.preparing import PART_SECONDS, PARTS, PrepareError, chosen_parts, default_workers, run_apart
from pigdice.errors import BadParameterError

runner = CliRunner()


def test_no_part_named_means_every_part_in_running_order() -> None:
    assert chosen_parts(None) == chosen_parts([]) == ["play", "groups", "herd", "study", "environments"]


def test_parts_are_read_in_any_case_once_each_in_running_order() -> None:
    assert chosen_parts(["Study", "play", "study "]) == ["play", "study"]


@pytest.mark.parametrize("name", ["pig", "", "plays", "x" * 300])
def test_an_unknown_part_is_refused_with_the_list(name: str) -> None:
    with pytest.raises(BadParameterError, match="the parts are play, groups, herd, study, environments") as caught:
        chosen_parts([name])
    assert len(str(caught.value)) < 200


def test_every_part_has_named_jobs_that_speak_a_players_language() -> None:
    for name, (covers, count, jobs) in PARTS.items():
        labels = [label for label, _ in jobs()]
        assert covers and labels, name
        assert count == len(labels), name  # the progress bar's total, counted without building the jobs
        assert len(labels) == len(set(labels)), name
        assert not any("--" in label or "_" in label for label in labels), labels


def test_the_command_refuses_an_unknown_part_without_compiling_anything() -> None:
    result = runner.invoke(app, ["prepare", "play", "nonsense"])
    assert result.exit_code == 2
    assert "no part named 'nonsense'" in result.output


def test_the_command_prepares_a_part_and_says_where_the_kernels_are() -> None:
    result = runner.invoke(app, ["prepare", "environments"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("environments: ready in ")  # a line a part: the output shows no bar
    assert "\nready: environments (2 jobs in " in result.output
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


def test_every_part_has_a_measured_compile_time() -> None:
    assert set(PART_SECONDS) == set(PARTS)
    assert all(seconds > 0 for seconds in PART_SECONDS.values())


def test_longest_first_on_two_cores_ends_both_cores_close_together() -> None:
    # the parts' measured CPU seconds, started longest first on two cores, each on the core free first
    cores = [0.0, 0.0]
    for name in sorted(PARTS, key=lambda name: -PART_SECONDS[name]):
        cores[cores.index(min(cores))] += PART_SECONDS[name]
    assert max(cores) <= 1.1 * sum(cores) / 2, cores  # no core waits for the other long


# parts compiled at once, each in its own process: stand-in parts (tests/cli/preparefakes.py) that compile nothing
def _run(names: list[str], workers: int = 2) -> list[tuple[str, str]]:
    from preparefakes import fake_jobs

    heard: list[tuple[str, str]] = []
    run_apart(names, workers, lambda part, label: heard.append((part, label)), fake_jobs)
    return heard


def test_parts_run_apart_report_every_job_then_their_end() -> None:
    heard = _run(["first", "second", "third"])
    for name in ("first", "second", "third"):
        assert [label for part, label in heard if part == name] == [f"{name} job 1", f"{name} job 2", ""]


def test_a_failing_part_is_named_with_its_error() -> None:
    with pytest.raises(PrepareError, match="preparing broken failed: ValueError: the dice are loaded"):
        _run(["fine", "broken"])


def test_a_part_whose_process_dies_is_named() -> None:
    with pytest.raises(PrepareError, match=r"preparing killed stopped \(its process ended with code 3\)"):
        _run(["killed"], workers=1)


def test_an_interruption_kills_the_parts_still_running(tmp_path, monkeypatch) -> None:
    from preparefakes import fake_jobs

    monkeypatch.setenv("PREPARE_TEST_DIR", str(tmp_path))

    def interrupt(part: str, label: str) -> None:
        deadline = time.monotonic() + 60
        while not list(tmp_path.glob("*.pid")) and time.monotonic() < deadline:
            time.sleep(0.05)  # the job has started (its process wrote its id)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_apart(["long"], 1, interrupt, fake_jobs)
    (pid_file,) = tmp_path.glob("*.pid")
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.stem), 0)  # gone, not compiling on in the background


def test_as_many_parts_at_once_as_cores_and_parts_allow() -> None:
    assert default_workers(1) == 1
    assert 1 <= default_workers(4) <= min(4, os.cpu_count() or 1)


@pytest.mark.parametrize("workers", ["0", "17", "two", "-1"])
def test_a_number_of_workers_that_cannot_be_is_refused(workers: str) -> None:
    result = runner.invoke(app, ["prepare", "play", "--workers", workers])
    assert result.exit_code == 2
    assert "--workers" in result.output
    assert "Traceback" not in result.output
