"""How long /healthz takes while the server prepares perfect players it has never solved, and while it opens a
room of 100,000 moves.

Builds a finished Pig room of ``--moves`` moves (default 100,000) straight into a fresh SQLite database (with the
web tests' ``stored_game``: the store's API and the engine), then starts ``pigdice serve`` on it on a free port
with an empty policy cache. A separate process polls ``/healthz`` every 20 ms during each of two phases:

- solves: work that needs a fresh solve: rooms with the perfect player and their first hints (Hog with 200
  dice: a big policy), the strategy explorer;
- long room: the 100,000-move room opened: its first websocket welcome (the server reads and replays it), pages
  of older events, many welcomes at once, GET of the game and of an older page, its record download and verify.

Prints each request's time and, per phase, the p50, p99 and max of /healthz (issue 32 asks max < 200 ms on two
idle cores; say how busy the machine was: ``uptime``).

    python bench/web_health.py                  # this checkout
    python bench/web_health.py --skip-solves --moves 20000
    PYTHONPATH=/path/to/other/src python bench/web_health.py   # another version, same measurement
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
from websockets.asyncio.client import connect

from web_load import free_port, percentile, start_server  # bench/ is on the path when run as a script

T = TypeVar("T")

PERFECT = ["you", "optimal"]
TESTS_WEB = Path(__file__).resolve().parent.parent / "tests" / "web"  # the long room's builder: webhelpers


def poll(base: str, stop: Any, out: Any) -> None:
    """Poll /healthz every 20 ms until ``stop`` is set; put the latencies in ``out`` (its own process, so the
    measuring client's work never delays the poll)."""
    latencies = []
    with httpx.Client(timeout=120) as client:
        while not stop.is_set():
            started = time.perf_counter()
            try:
                client.get(f"{base}/healthz")
            except httpx.HTTPError:
                pass
            latencies.append(time.perf_counter() - started)
            time.sleep(0.02)
    out.put(latencies)


def while_polled(base: str, job: Callable[[], T]) -> tuple[T, list[float]]:
    """Run ``job`` while another process polls /healthz; return its result and the /healthz latencies (s)."""
    context = multiprocessing.get_context("spawn")
    stop, out = context.Event(), context.Queue()
    poller = context.Process(target=poll, args=(base, stop, out))
    poller.start()
    time.sleep(1.0)  # the poller's interpreter starts
    try:
        result = job()
    finally:
        stop.set()
        latencies: list[float] = out.get(timeout=60)
        poller.join()
    return result, latencies


def summary(phase: str, latencies: list[float]) -> str:
    """Return one line: how many /healthz answers, their p50, p99 and max, and how many took over 100 ms."""
    ms = [1000 * t for t in latencies]
    return (
        f"/healthz {phase}: {len(ms)} answers, p50 {statistics.median(ms):.1f} ms, p99 {percentile(ms, 99):.0f} ms, "
        f"max {max(ms):.0f} ms, over 100 ms: {sum(1 for t in ms if t > 100)}"
    )


def work(base: str, goal: int) -> list[str]:
    """Ask for everything that needs a fresh solve; return one line per request."""
    lines = []
    requests = [
        (
            "create pig vs perfect player",
            "POST",
            "/api/games",
            {"variant": "pig", "goal": goal, "players": ["you", "optimal"]},
        ),
        ("explorer two-dice-pig", "GET", f"/api/explore/two-dice-pig?goal={goal}", None),
        ("explorer hog", "GET", f"/api/explore/hog?goal={goal}", None),
        ("oinker 1e-10000000", "POST", "/api/games", {"variant": "pass-the-pigs", "params": {"oinker": "1e-10000000"}}),
        (
            "create hog 200 dice vs perfect",
            "POST",
            "/api/games",
            {"variant": "hog", "goal": goal - 1, "params": {"max_dice": 200}, "players": PERFECT},
        ),
    ]
    with httpx.Client(timeout=600) as client:
        for label, method, path, body in requests:
            started = time.perf_counter()
            with httpx.Client(timeout=600) as fresh:  # before issue 9, a 500 reset the next request's connection
                reply = fresh.request(method, base + path, json=body)
            waited = time.perf_counter() - started
            lines.append(f"{label:32s} {reply.status_code} in {waited:6.2f} s")
            if reply.status_code == 201 and "optimal" in str(body):
                data = reply.json()
                deadline = time.time() + 600
                while time.time() < deadline:  # the hint waits for the perfect player to be ready
                    hint = client.post(
                        f"{base}/api/games/{data['code']}/hint", json={"seat": 0, "token": data["tokens"]["0"]}
                    )
                    if hint.status_code != 503:
                        break
                    time.sleep(0.2)
                lines.append(f"{'  first hint':32s} {hint.status_code} after {time.perf_counter() - started:6.2f} s")
    return lines


def build_long_room(folder: Path, moves: int) -> str:
    """Store a finished Pig room of ``moves`` moves in ``folder``'s database (games.sqlite3) before any server
    runs on it, with the web tests' ``stored_game``; return its code."""
    sys.path.insert(0, str(TESTS_WEB))
    from fastapi.testclient import TestClient
    from webhelpers import make_settings, stored_game

    from pigdice.web.app import create_app

    with TestClient(create_app(make_settings(folder))) as client:
        return stored_game(client, moves)


async def welcome_size(ws_url: str) -> int:
    """Connect, read the welcome, leave; return its size in bytes."""
    async with connect(ws_url, max_size=2**22) as ws:
        return len(await ws.recv())


async def open_long_room(base: str, code: str, pages: int, connects: int) -> list[str]:
    """Open the long room every way a visitor can; return one line per step with its time."""
    lines = []
    ws_url = base.replace("http", "ws", 1) + f"/ws/{code}"

    def took(label: str, started: float, detail: str = "") -> None:
        lines.append(f"{label:32s} {detail:>14s} in {time.perf_counter() - started:6.2f} s")

    started = time.perf_counter()
    async with connect(ws_url, max_size=2**22) as ws:
        text = await ws.recv()
        welcome = json.loads(text)
        took("first welcome (load, replay)", started, f"{len(text) / 1024:.0f} KB")
        started, before = time.perf_counter(), welcome["earlier"]
        for number in range(pages):
            await ws.send(json.dumps({"type": "history", "before": before, "id": number}))
            while (page := json.loads(await ws.recv()))["type"] != "history":
                if page["type"] == "error":
                    raise SystemExit(f"the server refused a page: {page}")
            before = page["earlier"]
        took(f"{pages} older pages (websocket)", started, f"to event {before}")
    started = time.perf_counter()
    sizes = await asyncio.gather(*(welcome_size(ws_url) for _ in range(connects)))
    took(f"{connects} welcomes at once", started, f"{max(sizes) / 1024:.0f} KB each")
    async with httpx.AsyncClient(timeout=600) as http:
        for label, path in [
            ("GET the game", f"/api/games/{code}"),
            ("GET an older page", f"/api/games/{code}?before={welcome['earlier'] // 2}"),
            ("record download", f"/api/games/{code}/record?download=true"),
            ("verify", f"/api/games/{code}/verify"),
        ]:
            started = time.perf_counter()
            reply = await http.get(base + path)
            took(label, started, f"{reply.status_code} {len(reply.content) / 1024:.0f} KB")
    return lines


def main() -> None:
    """Build the long room, start the server, run both phases and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goal", type=int, default=200, help="goal of the solves (default 200)")
    parser.add_argument("--moves", type=int, default=100_000, help="moves in the long room (default 100,000)")
    parser.add_argument("--pages", type=int, default=50, help="older pages read over the websocket (default 50)")
    parser.add_argument("--connects", type=int, default=50, help="welcomes of the long room at once (default 50)")
    parser.add_argument("--skip-solves", action="store_true", help="only the long room")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        code = build_long_room(folder, args.moves)
        print(f"long room of {args.moves:,} moves stored in {time.perf_counter() - started:.1f} s")
        port = free_port()
        # pages as fast as the websocket answers: the rate limit (20 messages/s) is not what is measured
        env = {
            "PIGDICE_CACHE_DIR": str(folder / "policies"),
            "PIGDICE_RATE_PER_SECOND": "1000",
            "PIGDICE_RATE_BURST": "1000",
        }
        process = start_server(port, folder / "games.sqlite3", env)
        base = f"http://127.0.0.1:{port}"
        try:
            httpx.get(f"{base}/healthz", timeout=5)
            if not args.skip_solves:
                lines, latencies = while_polled(base, lambda: work(base, args.goal))
                print("\n".join(lines))
                print(summary("while solving", latencies))
            job = open_long_room(base, code, args.pages, args.connects)
            lines, latencies = while_polled(base, lambda: asyncio.run(job))
            print("\n".join(lines))
            print(summary(f"while opening the {args.moves:,}-move room", latencies))
        finally:
            process.terminate()
            process.wait(timeout=30)
    print(f"load average (1, 5, 15 min): {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
