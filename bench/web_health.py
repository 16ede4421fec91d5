"""How long /healthz takes while the server prepares perfect players it has never solved, and while it opens a
room of 100,000 moves.

Builds a finished Pig room of ``--moves`` moves (default 100,000) straight into a fresh SQLite database (with the
web tests' ``stored_game``: the store's API and the engine), then starts ``pigdice serve`` on it on a free port
with an empty policy cache. A separate process polls ``/healthz`` every 20 ms during each of two phases:

- solves: work that needs a fresh solve: rooms with the perfect player and their first hints (Hog with 30
  dice; Swine Herd at goal 199: a policy of about 300 MB), the strategy explorer;
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
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from web_load import free_port, percentile, start_server  # bench/ is on the path when run as a script

T = TypeVar("T")

REFUSED_CODE = 4429  # the server's "too many connections from your address; try again" (pigdice.web.socketlimits)

PERFECT = ["you", "optimal"]
TESTS_WEB = Path(__file__).resolve().parent.parent / "tests" / "web"  # the long room's builder: webhelpers


def poll(base: str, stop: Any, out: Any) -> None:
    """Poll /healthz every 20 ms until ``stop`` is set; put (when sent, latency) pairs in ``out`` (its own
    process, so the measuring client's work never delays the poll)."""
    latencies = []
    with httpx.Client(timeout=120) as client:
        while not stop.is_set():
            started = time.monotonic()  # one clock for all processes of the machine: the steps' too
            try:
                client.get(f"{base}/healthz")
            except httpx.HTTPError:
                pass
            latencies.append((started, time.monotonic() - started))
            time.sleep(0.02)
    out.put(latencies)


def while_polled(base: str, job: Callable[[], T]) -> tuple[T, list[tuple[float, float]]]:
    """Run ``job`` while another process polls /healthz; return its result and the /healthz (when, latency)
    pairs in seconds."""
    context = multiprocessing.get_context("spawn")
    stop, out = context.Event(), context.Queue()
    poller = context.Process(target=poll, args=(base, stop, out))
    poller.start()
    time.sleep(1.0)  # the poller's interpreter starts
    try:
        result = job()
    finally:
        stop.set()
        latencies: list[tuple[float, float]] = out.get(timeout=60)
        poller.join()
    return result, latencies


@dataclass
class Step:
    """One request (or group of them) of the work, timed on the machine-wide monotonic clock."""

    label: str
    start: float
    end: float = 0.0
    detail: str = ""

    def done(self, detail: str) -> Step:
        """Stop the clock and keep ``detail`` (a status, a size); return self."""
        self.end, self.detail = time.monotonic(), detail
        return self

    @property
    def text(self) -> str:
        """Return the step as a line: what, the detail, how long."""
        return f"{self.label:32s} {self.detail:>16s} in {self.end - self.start:6.2f} s"


def summary(phase: str, latencies: list[tuple[float, float]], steps: list[Step]) -> str:
    """Return how many /healthz answers, their p50, p99 and max, how many took over 100 ms, and which step ran
    during the three slowest."""
    ms = [1000 * latency for _, latency in latencies]
    lines = [
        f"/healthz {phase}: {len(ms)} answers, p50 {statistics.median(ms):.1f} ms, p99 {percentile(ms, 99):.0f} ms, "
        f"max {max(ms):.0f} ms, over 100 ms: {sum(1 for t in ms if t > 100)}"
    ]
    for sent, latency in sorted(latencies, key=lambda pair: -pair[1])[:3]:
        during = [s.label.strip() for s in steps if s.start <= sent + latency and sent <= s.end]
        lines.append(f"  {latency * 1000:6.0f} ms during: {'; '.join(during) or 'between steps'}")
    return "\n".join(lines)


def work(base: str, goal: int) -> list[Step]:
    """Ask for everything that needs a fresh solve; return the steps."""
    steps = []
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
        (  # up to 30 dice: more are refused (the server's max_solver_dice)
            "create hog 30 dice vs perfect",
            "POST",
            "/api/games",
            {"variant": "hog", "goal": goal - 1, "params": {"max_dice": 30}, "players": PERFECT},
        ),
        (  # issue 32: a policy of about 300 MB, larger than the memory cache
            "create swine herd vs perfect",
            "POST",
            "/api/games",
            {"variant": "swine-herd", "goal": goal - 1, "players": PERFECT},
        ),
    ]
    with httpx.Client(timeout=600) as client:
        for label, method, path, body in requests:
            step = Step(label, time.monotonic())
            with httpx.Client(timeout=600) as fresh:  # before issue 9, a 500 reset the next request's connection
                reply = fresh.request(method, base + path, json=body)
            steps.append(step.done(str(reply.status_code)))
            if reply.status_code == 201 and "optimal" in str(body):
                data = reply.json()
                step = Step("  first hint", time.monotonic())
                deadline = time.time() + 600
                while time.time() < deadline:  # the hint waits for the perfect player to be ready
                    hint = client.post(
                        f"{base}/api/games/{data['code']}/hint", json={"seat": 0, "token": data["tokens"]["0"]}
                    )
                    if hint.status_code != 503:
                        break
                    time.sleep(0.2)
                steps.append(step.done(str(hint.status_code)))
    return steps


def build_long_room(folder: Path, moves: int) -> str:
    """Store a finished Pig room of ``moves`` moves in ``folder``'s database (games.sqlite3) before any server
    runs on it, with the web tests' ``stored_game``; return its code."""
    sys.path.insert(0, str(TESTS_WEB))
    from fastapi.testclient import TestClient
    from webhelpers import make_settings, stored_game

    from pigdice.web.app import create_app

    with TestClient(create_app(make_settings(folder))) as client:
        return stored_game(client, moves)


async def timed_welcome(ws_url: str) -> tuple[int, float, int]:
    """Connect, read the welcome, leave; return its size in bytes, the seconds until it came and how many times
    the server said to try again (its bound on websockets being opened at once per address: tried again after
    a random pause, as the page does)."""
    started, refused = time.monotonic(), 0
    while True:
        async with connect(ws_url, max_size=2**22, close_timeout=1) as ws:
            try:
                return len(await ws.recv()), time.monotonic() - started, refused
            except ConnectionClosed as closed:
                if closed.rcvd is None or closed.rcvd.code != REFUSED_CODE:
                    raise
        refused += 1
        await asyncio.sleep(0.2 + 0.4 * random.random())


async def open_long_room(base: str, code: str, pages: int, connects: int) -> list[Step]:
    """Open the long room every way a visitor can; return the steps."""
    steps = []
    ws_url = base.replace("http", "ws", 1) + f"/ws/{code}"
    step = Step("first welcome (load, replay)", time.monotonic())
    async with connect(ws_url, max_size=2**22) as ws:
        text = await ws.recv()
        welcome = json.loads(text)
        steps.append(step.done(f"{len(text) / 1024:.0f} KB"))
        step, before = Step(f"{pages} older pages (websocket)", time.monotonic()), welcome["earlier"]
        for number in range(pages):
            await ws.send(json.dumps({"type": "history", "before": before, "id": number}))
            while (page := json.loads(await ws.recv()))["type"] != "history":
                if page["type"] == "error":
                    raise SystemExit(f"the server refused a page: {page}")
            before = page["earlier"]
        steps.append(step.done(f"to event {before}"))
    step = Step(f"{connects} welcomes at once", time.monotonic())
    welcomes = await asyncio.gather(*(timed_welcome(ws_url) for _ in range(connects)))
    size, slowest = max(welcomes)[0], max(seconds for _, seconds, _ in welcomes)
    refused = sum(times for _, _, times in welcomes)  # the step's rest, after the last: closing handshakes
    steps.append(step.done(f"{size / 1024:.0f} KB, {refused} refused, last {slowest:.2f} s"))
    async with httpx.AsyncClient(timeout=600) as http:
        for label, path in [
            ("GET the game", f"/api/games/{code}"),
            ("GET an older page", f"/api/games/{code}?before={welcome['earlier'] // 2}"),
            ("record download", f"/api/games/{code}/record?download=true"),
            ("verify", f"/api/games/{code}/verify"),
        ]:
            step = Step(label, time.monotonic())
            reply = await http.get(base + path)
            steps.append(step.done(f"{reply.status_code} {len(reply.content) / 1024:.0f} KB"))
    return steps


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
                steps, latencies = while_polled(base, lambda: work(base, args.goal))
                print("\n".join(step.text for step in steps))
                print(summary("while solving", latencies, steps))
            job = open_long_room(base, code, args.pages, args.connects)
            steps, latencies = while_polled(base, lambda: asyncio.run(job))
            print("\n".join(step.text for step in steps))
            print(summary(f"while opening the {args.moves:,}-move room", latencies, steps))
        finally:
            process.terminate()
            process.wait(timeout=30)
    print(f"load average (1, 5, 15 min): {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
