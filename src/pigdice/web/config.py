"""Server settings: database URL, robot delay and limits, read from arguments or the environment."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from pigdice.errors import BadParameterError

DATABASE_ENV = "PIGDICE_DATABASE_URL"
ROBOT_DELAY_ENV = "PIGDICE_ROBOT_DELAY"
DEFAULT_VARIANT = "pig"  # what a new game and the explorer start with
DEFAULT_ROBOT_DELAY = 0.5  # seconds before each robot action, so people can follow the game


def default_database_url() -> str:
    """Return the SQLite URL of the database file in the user data dir (the folder is created)."""
    import platformdirs

    folder = Path(platformdirs.user_data_dir("pigdice"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'pigdice.sqlite3'}"


def robot_delay_from_env(default: float = DEFAULT_ROBOT_DELAY) -> float:
    """Return the robot delay from PIGDICE_ROBOT_DELAY (seconds), or ``default``."""
    text = os.environ.get(ROBOT_DELAY_ENV, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise BadParameterError(f"{ROBOT_DELAY_ENV} must be a number of seconds, got {text!r}") from None
    return check_robot_delay(value)


def check_robot_delay(value: float) -> float:
    """Return ``value`` if it is a sensible robot delay (0 to 10 seconds), else raise."""
    if not 0 <= value <= 10:
        raise BadParameterError(f"robot delay must be between 0 and 10 seconds, got {value}")
    return value


WS_PROTOCOLS = ("websockets", "websockets-sansio", "wsproto")


@dataclass(frozen=True)
class Settings:
    """Everything the web app needs to know at start-up."""

    database_url: str = ""
    robot_delay: float = DEFAULT_ROBOT_DELAY
    rate_per_second: float = 20.0  # websocket messages per connection per second (token bucket)
    rate_burst: float = 20.0
    max_message_bytes: int = 4096
    # Websockets per address: being opened at once (handshake until the welcome is sent: a burst of them is work
    # the event loop does before anything else; one past the bound waits up to ws_opening_wait_seconds for a
    # place), open at once; and open in all. Beyond: closed with a reason the page shows
    ws_opening_per_client: int = 8
    ws_opening_wait_seconds: float = 2.0
    ws_per_client: int = 100
    ws_in_all: int = 4000
    # uvicorn's websocket implementation: "websockets-sansio" (what uvicorn picks by itself; its "websockets" is
    # deprecated and warns at start), "websockets" or "wsproto" (a pip package)
    ws_protocol: str = "websockets-sansio"
    max_hint_goal: int = 200  # hints and the perfect player need a solve (seconds at 200); bigger goals are refused
    max_explore_goal: int = 200
    max_solver_dice: int = 30  # the perfect player's dice choices (Hog up to 100 dice takes minutes to solve)
    # The exact perfect player's largest solves, in score tuples (goal ** players), by kind of game: any game, games
    # whose rolls can reset a score, 3+ players with a last round and turn totals that double or fall. Past a bound
    # the room's perfect player and hints play the approximation and say so. pigdice.solve.cost gives the measured
    # times and sizes behind these figures (10**6: 3 players to 100, 4 players to 31).
    max_exact_states: int = 1_000_000
    max_exact_reset_states: int = 125_000
    max_exact_far_states: int = 8_000
    max_rooms_in_memory: int = 10_000
    resume_on_start: bool = True
    max_body_bytes: int = 64 * 1024  # request bodies (the largest valid one is a few KB)
    max_header_bytes: int = 32 * 1024  # a request's line and headers (browsers send a few KB); 431 beyond
    header_seconds: float = 10.0  # a request's line and headers must arrive within this; the connection closes
    # Proxies whose X-Forwarded-For is believed (uvicorn's forwarded_allow_ips: addresses, or "*"); empty: none,
    # every client is the address it connects from (a header could otherwise reset the per-address room limit)
    forwarded_allow_ips: str = ""
    solve_workers: int = 1  # processes that solve perfect players (each solve is one core)
    warm_solver: bool = True  # start the solver's worker process at start-up, not at the first solve
    max_solve_jobs: int = 8  # different solves running or waiting; more are refused (busy)
    hint_wait_seconds: float = 2.0  # a hint waits this long for a new solve, then says "preparing"
    explorer_cache_bytes: int = 64 * 2**20
    max_open_rooms: int = 20_000  # unfinished games in the database; new rooms are refused beyond
    rooms_per_client: int = 60  # new rooms per client address per window
    client_window_seconds: float = 3600.0
    max_robot_rooms: int = 20  # rooms with robots only, playing at once
    max_robot_room_goal: int = 1000
    robot_room_seconds: float = 3600.0  # a robots-only room is closed (expired) this long after it starts
    turn_seconds: float = 90.0  # online rooms: a person's time per decision, then the turn passes (0: no timer)
    skips_to_free_seat: int = 3  # timeouts in a row after which a person's seat opens for someone else
    away_seconds: float = 60.0  # online rooms: a person disconnected this long may be left behind (claimed)
    idle_room_seconds: float = 7 * 86400.0  # an unfinished room without a move for this long is closed (expired)
    expiry_check_seconds: float = 600.0
    database_seconds: float = 10.0  # a server database (PostgreSQL) call that takes longer fails (503), never hangs
    checkpoint_seconds: float = 2.0  # SQLite: a passive checkpoint this often ...
    wal_truncate_bytes: int = 32 * 2**20  # ... and a truncating one once the write-ahead log is larger
    extra: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Refuse a websocket implementation uvicorn does not have."""
        if self.ws_protocol not in WS_PROTOCOLS:
            choices = ", ".join(WS_PROTOCOLS)
            raise BadParameterError(f"PIGDICE_WS_PROTOCOL must be one of {choices}, got {self.ws_protocol[:40]!r}")

    @classmethod
    def from_env(cls, database_url: str | None = None, robot_delay: float | None = None) -> Settings:
        """Return settings from arguments, then the environment (PIGDICE_DATABASE_URL, PIGDICE_ROBOT_DELAY, and
        PIGDICE_<LIMIT> for every limit, e.g. PIGDICE_ROOMS_PER_CLIENT=100), then defaults."""
        url = database_url or os.environ.get(DATABASE_ENV, "").strip() or default_database_url()
        delay = robot_delay_from_env() if robot_delay is None else check_robot_delay(robot_delay)
        return cls(database_url=url, robot_delay=delay, **limits_from_env())


def limits_from_env() -> dict[str, Any]:
    """Return the limits set in the environment as PIGDICE_<NAME> (whole numbers, seconds, true/false)."""
    values: dict[str, Any] = {}
    for item in fields(Settings):
        if item.name in ("database_url", "robot_delay", "extra"):
            continue
        name = f"PIGDICE_{item.name.upper()}"
        text = os.environ.get(name, "").strip()
        if not text:
            continue
        kind = type(getattr(Settings, item.name))
        if kind is str:
            if len(text) > 1000 or not text.isprintable():
                raise BadParameterError(f"{name} must be a line of at most 1000 characters")
            values[item.name] = text
        elif kind is bool:
            if text.lower() not in ("1", "0", "true", "false", "yes", "no"):
                raise BadParameterError(f"{name} must be true or false, got {text[:20]!r}")
            values[item.name] = text.lower() in ("1", "true", "yes")
        elif kind is int:
            if not (text.isascii() and text.isdigit()) or len(text) > 12:
                raise BadParameterError(f"{name} must be a whole number up to 12 digits, got {text[:20]!r}")
            values[item.name] = int(text)
        else:
            try:
                number = float(text) if text.isascii() and len(text) <= 20 else math.nan
            except ValueError:
                number = math.nan
            if not math.isfinite(number) or number < 0:
                raise BadParameterError(f"{name} must be a number of seconds, got {text[:20]!r}")
            values[item.name] = number
    return values
