"""The `pigdice serve` command: options, clear errors for a missing extra and a bad database, and a quiet stop
on Ctrl-C or SIGTERM that takes its solve workers with it."""

from __future__ import annotations

import importlib.util
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner
from webhelpers import free_port, start_server

from pigdice.cli.app import app
from pigdice.web import MissingExtraError, missing_web_modules, require_web
from pigdice.web.config import Settings, default_database_url

runner = CliRunner()


def test_serve_help_lists_the_options() -> None:
    result = runner.invoke(app, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--database-url", "--robot-delay"):
        assert option in result.output


def test_missing_web_extra_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def fake_find_spec(name: str, *args: Any) -> Any:
        return None if name == "fastapi" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", fake_find_spec)
    assert missing_web_modules() == ["fastapi"]
    with pytest.raises(MissingExtraError, match=r"pip install 'pigdice\[web\]'"):
        require_web()
    result = runner.invoke(app, ["serve"])
    assert result.exit_code == 2
    assert "pigdice[web]" in result.output and "Traceback" not in result.output


def test_bad_database_url_is_one_line_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["serve", "--database-url", f"sqlite:///{tmp_path}/no/such/dir/x.sqlite3"])
    assert result.exit_code == 2
    assert result.output.startswith("error: cannot open the database")
    result = runner.invoke(app, ["serve", "--database-url", "nonsense"])
    assert result.exit_code == 2 and "database URL" in result.output
    result = runner.invoke(app, ["serve", "--robot-delay", "99"])
    assert result.exit_code == 2 and "--robot-delay" in result.output


def test_settings_from_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PIGDICE_DATABASE_URL", "sqlite:///env.sqlite3")
    monkeypatch.setenv("PIGDICE_ROBOT_DELAY", "0.25")
    settings = Settings.from_env()
    assert settings.database_url == "sqlite:///env.sqlite3" and settings.robot_delay == 0.25
    assert Settings.from_env("sqlite:///arg.sqlite3", 0).database_url == "sqlite:///arg.sqlite3"
    monkeypatch.setenv("PIGDICE_ROBOT_DELAY", "soon")
    with pytest.raises(ValueError, match="PIGDICE_ROBOT_DELAY"):
        Settings.from_env()


def test_default_database_is_in_the_user_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import platformdirs

    monkeypatch.setattr(platformdirs, "user_data_dir", lambda name: str(tmp_path / "data" / name))
    url = default_database_url()
    assert url == f"sqlite:///{tmp_path / 'data' / 'pigdice' / 'pigdice.sqlite3'}"
    assert (tmp_path / "data" / "pigdice").is_dir()


def _children(pid: int) -> list[int]:
    """Return the process ids of ``pid``'s children (Linux /proc)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def _running(pid: int) -> bool:
    """Return True if process ``pid`` exists and is not a zombie (an exited process nobody has reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads child processes from Linux's /proc")
@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_serve_stops_on_a_signal_with_no_traceback_and_no_process_left(tmp_path: Path, signal_name: str) -> None:
    server = start_server(tmp_path / "games.sqlite3", free_port(), 0.0, warm_solver="true")
    children = _children(server.pid)
    assert children  # the solve worker started with the server (and multiprocessing's resource tracker)
    if signal_name == "SIGINT":  # Ctrl-C in a terminal: the whole process group gets it
        os.killpg(server.pid, signal.SIGINT)
    else:  # a service manager stops the server process itself
        server.send_signal(signal.SIGTERM)
    _, err = server.communicate(timeout=60)
    errors = err.decode()
    # a graceful stop: uvicorn then ends by the signal it was sent (a service manager reads -15 as stopped)
    assert server.returncode in (0, -signal.SIGTERM if signal_name == "SIGTERM" else 0), errors
    assert "Traceback" not in errors and "KeyboardInterrupt" not in errors, errors
    deadline = time.monotonic() + 20  # the resource tracker leaves once the server's end of its pipe closes
    while any(_running(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in children if _running(pid)]
