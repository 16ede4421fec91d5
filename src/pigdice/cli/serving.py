"""The ``serve`` command: the web app (FastAPI + uvicorn) with rooms, robots and a database."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from pigdice.cli.checks import decimal_option, number_option, shown, shown_path
from pigdice.errors import BadParameterError, PigdiceError

LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")  # uvicorn's
MAX_ROBOT_DELAY = 10  # seconds (the web settings' own limit)


class DatabaseError(PigdiceError):
    """The database the server would use cannot be opened or prepared."""


def check_database(url: str) -> str:
    """Create or upgrade the tables of the database at ``url`` and return its printable URL.

    Raises DatabaseError, one line naming the database, for every failure.

    Every failure becomes one line naming the database: a garbage file, a folder, a path in a
    missing folder, an unreadable URL, a missing driver, a database that refuses the connection.
    """
    from pigdice.web.store import Store, StoreError

    if not url.strip():
        raise DatabaseError("the database URL is blank; e.g. sqlite:///games.sqlite3")
    try:
        store = Store(url)
    except StoreError as exc:
        raise DatabaseError(_naming(str(exc), url)) from None
    except Exception as exc:  # the store's own errors are StoreError; a driver may still raise its own
        raise DatabaseError(f"cannot open the database {shown_path(url)}: {type(exc).__name__}: {exc}") from None
    where = _safe_url(store, url)
    try:
        store.migrate()  # fail fast, with a clear message, before binding the port
    except PigdiceError as exc:
        raise DatabaseError(_naming(str(exc), where)) from None
    except Exception as exc:
        raise DatabaseError(f"cannot open the database {where}: {type(exc).__name__}: {exc}") from None
    finally:
        _close(store)
    return where


def _close(store: Any) -> None:
    """Release the check's connections (the app opens its own)."""
    try:
        store.close()
    except Exception:  # closing a store that failed to open must not hide why it failed
        pass


def _safe_url(store: Any, url: str) -> str:
    """Return the store's URL with any password hidden (the URL as given if that fails)."""
    try:
        return str(store.safe_url())
    except Exception:
        return shown_path(url)


def _naming(message: str, where: str) -> str:
    """Return ``message`` made to name the database if it does not already."""
    return message if "database" in message else f"cannot open the database {where}: {message}"


def serve_command(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, number_option("--port", low=1, high=65535, help="Port to listen on")] = 8000,
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
        decimal_option(
            "--robot-delay",
            low=0,
            high=MAX_ROBOT_DELAY,
            help="Seconds before each robot move (default: PIGDICE_ROBOT_DELAY, else 0.5)",
            show_default=False,
        ),
    ] = None,
    log_level: Annotated[
        str, typer.Option("--log-level", help=f"uvicorn log level: {' | '.join(LOG_LEVELS)}.")
    ] = "info",
) -> None:
    """Serve the web app: play in the browser, online rooms, rules and the strategy explorer."""
    from pigdice.web import require_web

    if not host.strip() or any(ch.isspace() for ch in host) or len(host) > 253:
        raise BadParameterError(f"--host takes an address such as 127.0.0.1 or 0.0.0.0, got {shown(host)}")
    level = log_level.strip().lower()
    if level not in LOG_LEVELS:
        raise BadParameterError(f"--log-level must be one of {', '.join(LOG_LEVELS)}, got {shown(log_level)}")
    if database_url is not None and not database_url.strip():
        raise BadParameterError("--database-url is blank; e.g. --database-url sqlite:///games.sqlite3")
    require_web()
    import uvicorn

    from pigdice.web.app import create_app
    from pigdice.web.config import Settings
    from pigdice.web.limits import bounded_http_protocol

    settings = Settings.from_env(database_url, robot_delay)
    where = check_database(settings.database_url)
    typer.echo(
        f"pigdice web on http://{host}:{port} (database {where}, robot delay {settings.robot_delay:g}s)",
        err=True,
    )
    try:
        # uvicorn stops on Ctrl-C (SIGINT) and SIGTERM: the app's shutdown stops the solve workers, which leave
        # Ctrl-C to it (pigdice.web.workerpool.quiet_worker); a Ctrl-C before uvicorn listens ends here, quietly
        uvicorn.run(
            create_app(settings),
            host=host,
            port=port,
            log_level=level,
            http=bounded_http_protocol(settings.max_header_bytes, settings.header_seconds),
            h11_max_incomplete_event_size=settings.max_header_bytes,
            timeout_keep_alive=5,
            # X-Forwarded-For is believed only from the proxies named in PIGDICE_FORWARDED_ALLOW_IPS: from
            # anyone else (loopback included) it could reset the per-address room limit
            proxy_headers=bool(settings.forwarded_allow_ips),
            forwarded_allow_ips=settings.forwarded_allow_ips or None,
            ws=settings.ws_protocol,
            ws_max_size=65536,
            ws_per_message_deflate=False,  # messages are small; compressing them costs more CPU than it saves
        )
    except KeyboardInterrupt:
        pass
    typer.echo("pigdice web stopped", err=True)
