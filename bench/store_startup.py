"""Start-up queries of the web store with many games: robot_turn_codes (the rooms a server loads at start) against
unfinished_codes (every open game: the old start-up query), count_open_games and expire_idle.

Run: python bench/store_startup.py [--games 10000] [--finished 50000] [--url URL]
Fills a temporary SQLite file (or an empty database at --url) through bulk inserts: ``--games`` unfinished games,
a quarter each robots only, a robot to move, a seated human to move and a robot waiting for a free seat, plus
``--finished`` finished ones; checks that robot_turn_codes returns exactly the first two quarters and prints
the best time of each query over a few runs (and SQLite's query plan).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from pigdice.web.store import Store, games_table, robot_turn_query, seats_table


def best(run: Callable[[], Any], repeat: int) -> tuple[Any, float]:
    """Return the result and the best wall time in seconds of ``repeat`` calls."""
    times = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return result, min(times)


def fill(store: Store, games: int, finished: int) -> set[str]:
    """Insert the games; return the codes robot_turn_codes should find."""
    now = time.time()
    game_rows: list[dict[str, Any]] = []
    seat_rows: list[dict[str, Any]] = []
    expected = set()
    common = {"variant": "pig", "goal": 100, "endgame": "first-to-goal", "ties": "none", "final_turn": "none"}
    common |= {"params": "{}", "fingerprint": "f" * 32, "players": 2, "seed": 1, "winners": None, "creator": None}
    for n in range(games + finished):
        game_id, code, kind = n + 1, f"G{n:07d}", n % 4
        done = n >= games
        # 0: robots only; 1: a robot to move, the human seated; 2: the human to move; 3: a robot waiting for a seat
        to_move = None if done else (1 if kind in (1, 3) else 0)
        game_rows.append(
            {
                **common,
                "id": game_id,
                "code": code,
                "step": 10,
                "finished": done,
                "status": "finished" if done else "active",
                "to_move": to_move,
                "created_at": now - n,
                "updated_at": now - n,
            }
        )
        first = (
            {"kind": "robot", "spec": "hold:20", "token_hash": None}
            if kind == 0
            else {"kind": "human", "spec": "human"}
        )
        if kind != 0:
            first["token_hash"] = None if kind == 3 else f"hash{n}"
        seat_rows.append({"game_id": game_id, "seat": 0, "name": "a", "claimed_at": None, **first})
        seat_rows.append(
            {"game_id": game_id, "seat": 1, "kind": "robot", "spec": "hold:20", "name": "b", "token_hash": None}
            | {"claimed_at": None}
        )
        if not done and kind in (0, 1):
            expected.add(code)
    with store.engine.begin() as conn:
        for start in range(0, len(game_rows), 5000):
            conn.execute(insert(games_table), game_rows[start : start + 5000])
        for start in range(0, len(seat_rows), 5000):
            conn.execute(insert(seats_table), seat_rows[start : start + 5000])
    return expected


def main() -> None:
    """Fill a database, time the start-up queries and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="unfinished games")
    parser.add_argument("--finished", type=int, default=50_000, help="finished games")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--url", help="an empty database (default: a temporary SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pigdice-bench-") as folder:
        store = Store(args.url or f"sqlite:///{Path(folder) / 'startup.sqlite3'}")
        store.migrate()
        start = time.perf_counter()
        expected = fill(store, args.games, args.finished)
        print(f"filled {args.games} unfinished + {args.finished} finished games in {time.perf_counter() - start:.1f} s")
        codes, robot_time = best(lambda: store.robot_turn_codes(limit=args.games), args.repeat)
        if set(codes) != expected:
            raise SystemExit(f"robot_turn_codes found {len(codes)} games, expected {len(expected)}")
        every, unfinished_time = best(lambda: store.unfinished_codes(limit=args.games), args.repeat)
        count, count_time = best(store.count_open_games, args.repeat)
        expired, expire_time = best(lambda: store.expire_idle(0.0, 0.0), args.repeat)  # scans, expires nothing
        assert count == len(every) == args.games and expired == []
        print(f"robot_turn_codes   {robot_time * 1000:8.1f} ms  ({len(codes)} games to load at start)")
        print(f"unfinished_codes   {unfinished_time * 1000:8.1f} ms  ({len(every)} games; baseline)")
        print(f"count_open_games   {count_time * 1000:8.1f} ms")
        print(f"expire_idle (none) {expire_time * 1000:8.1f} ms")
        print(f"ratio robot_turn_codes / unfinished_codes: {robot_time / unfinished_time:.2f}")
        if store.is_sqlite:
            from sqlalchemy.dialects import sqlite

            query = robot_turn_query(args.games)
            sql = str(query.compile(dialect=sqlite.dialect(), compile_kwargs={"literal_binds": True}))
            with store.engine.connect() as conn:
                for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}"):
                    print("  plan:", row[-1])
        store.close()


if __name__ == "__main__":
    main()
