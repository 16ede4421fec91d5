"""The `pigdice serve` command: options, clear errors for a missing extra and a bad database."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

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
