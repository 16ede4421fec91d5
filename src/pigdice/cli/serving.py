"""The ``serve`` command: the web app (FastAPI + uvicorn) with rooms, robots and a database."""

from __future__ import annotations

from typing import Annotated

import typer


def serve_command(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port to listen on.")] = 8000,
    database_url: Annotated[
        str | None,
        typer.Option(
            "--database-url",
            help="SQLAlchemy URL, e.g. sqlite:///games.sqlite3 or postgresql+psycopg://user:pw@host/db "
            "(default: PIGDICE_DATABASE_URL, else a SQLite file in the user data dir).",
            show_default=False,
        ),
    ] = None,
    robot_delay: Annotated[
        float | None,
        typer.Option(
            "--robot-delay",
            help="Seconds before each robot move (default: PIGDICE_ROBOT_DELAY, else 0.5).",
            show_default=False,
        ),
    ] = None,
    log_level: Annotated[str, typer.Option("--log-level", help="uvicorn log level.")] = "info",
) -> None:
    """Serve the web app: play in the browser, online rooms, rules and the strategy explorer."""
    from pigdice.web import require_web

    require_web()
    import uvicorn

    from pigdice.web.app import create_app
    from pigdice.web.config import Settings
    from pigdice.web.store import Store

    settings = Settings.from_env(database_url, robot_delay)
    Store(settings.database_url).migrate()  # fail fast, with a clear message, before binding the port
    typer.echo(
        f"pigdice web on http://{host}:{port} (database {Store(settings.database_url).safe_url()}, "
        f"robot delay {settings.robot_delay:g}s)",
        err=True,
    )
    uvicorn.run(
        create_app(settings),
        host=host,
        port=port,
        log_level=log_level,
        ws_max_size=65536,
        ws_per_message_deflate=False,  # messages are small; compressing them costs more CPU than it saves
    )
