"""How long the web server takes to start with many unfinished games in its database.

Fills a temporary SQLite database with ``--rooms`` unfinished games waiting for a person and
``--robot-rooms`` games of robots only, through the store's own API (so it works for older
versions too), then starts ``pigdice serve`` and prints the time until ``/healthz`` answers, and
(when the server reports it) until the robots' games are back in play.

    python bench/web_startup.py --rooms 10000 --robot-rooms 300
    PYTHONPATH=/path/to/other/src python bench/web_startup.py   # another version, same measurement
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from pigdice.rules.registry import find_variant
from pigdice.web.store import GameRecord, SeatRecord, Store
from web_load import free_port  # bench/ is on the path when run as a script


def fill(url: str, rooms: int, robot_rooms: int) -> None:
    """Store ``rooms`` games waiting for a person (seat 0) and ``robot_rooms`` games of robots only."""
    store = Store(url)
    store.migrate()
    pig = find_variant("pig")
    for number in range(rooms + robot_rooms):
        robots = number >= rooms
        first = (
            SeatRecord(0, "robot", "hold:25", "Robot A") if robots else SeatRecord(0, "human", "you", "You", "0" * 64)
        )
        store.create_game(
            GameRecord(
                code=secrets.token_urlsafe(9),
                variant="pig",
                goal=100,
                endgame=str(pig.endgame),
                ties=str(pig.ties),
                final_turn=str(pig.final_turn),
                params={},
                fingerprint=pig.fingerprint(),
                seed=number,
                seats=[first, SeatRecord(1, "robot", "hold:20", "Robot B")],
            )
        )
    store.close()


def main() -> None:
    """Fill a database, start the server on it, print how long it took to answer."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=10_000)
    parser.add_argument("--robot-rooms", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'games.sqlite3'}"
        started = time.perf_counter()
        fill(url, args.rooms, args.robot_rooms)
        print(
            f"stored {args.rooms} games waiting for a person and {args.robot_rooms} robot games "
            f"in {time.perf_counter() - started:.1f} s"
        )
        port = free_port()
        env = {**os.environ, "PIGDICE_DATABASE_URL": url, "PIGDICE_ROBOT_DELAY": "5"}
        command = [sys.executable, "-c", "from pigdice.cli.app import main; main()", "serve", "--port", str(port)]
        started = time.perf_counter()
        server = subprocess.Popen([*command, "--log-level", "warning"], env=env)
        try:
            health: dict[str, object] = {}
            while True:
                try:
                    health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=60).json()
                    break
                except httpx.HTTPError:
                    time.sleep(0.05)
            answered = time.perf_counter() - started
            print(f"/healthz answered {answered:.2f} s after the server process started")
            if "resumed" in health:
                while int(str(health["resumed"])) < args.robot_rooms and time.perf_counter() - started < 600:
                    time.sleep(0.1)
                    health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=60).json()
                print(f"{health['resumed']} robot games back in play {time.perf_counter() - started:.2f} s after start")
        finally:
            server.terminate()
            server.wait(timeout=60)


if __name__ == "__main__":
    main()
