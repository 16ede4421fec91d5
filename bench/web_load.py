"""Load test of the web server: N concurrent websocket clients play whole games on loopback.

Each client creates a room against a ``hold:20`` robot (robot delay 0), connects a websocket and
plays (holding at 20 too) until the game ends, ``--moves`` of its own actions are made, or
``--seconds`` pass. The latency of a move is the time from sending the action to receiving the
update for that step. By default a server is started in a subprocess on a free port with a
temporary SQLite database; ``--url`` points at a running server instead (loopback only).

    python bench/web_load.py --clients 200
    python bench/web_load.py --clients 200 --think 0.1   # 10 actions/s per client: saturates a 2-core box
    python bench/web_load.py --clients 100 --seconds 600 --sustain   # 10 minutes: the SQLite log's size too

With ``--sustain`` each client starts a new game whenever one ends, until ``--seconds`` pass, and
the size of the SQLite write-ahead log (``*-wal``) is sampled twice a second.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx
from websockets.asyncio.client import connect


@dataclass
class Result:
    """What one client saw."""

    latencies: list[float] = field(default_factory=list)
    steps: int = 0  # actions applied in its room (its own and the robot's)
    finished: bool = False
    errors: list[str] = field(default_factory=list)


def check_loopback(url: str) -> None:
    """Refuse any target that is not on this machine's loopback interface."""
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise SystemExit(f"refusing to load-test {host!r}: only loopback addresses (127.0.0.1, ::1, localhost)")


def free_port() -> int:
    """Return a free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(port: int, db: Path, extra_env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start `pigdice serve` with no robot delay (and ``extra_env``); wait until it answers."""
    env = {
        **os.environ,
        "PIGDICE_ROBOT_DELAY": "0",
        "PIGDICE_DATABASE_URL": f"sqlite:///{db}",
        "PIGDICE_ROOMS_PER_CLIENT": "1000000000",  # every client of the load test comes from one address
        **(extra_env or {}),
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from pigdice.cli.app import main; main()",
            "serve",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        env=env,
    )
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("the server did not start")


async def play(base: str, http: httpx.AsyncClient, goal: int, moves: int, deadline: float, think: float) -> Result:
    """Create a room against a hold:20 robot and play it over a websocket; return timings."""
    result = Result()
    await asyncio.sleep(random.uniform(0, think * 2))  # people do not all arrive in the same millisecond
    reply = await http.post(f"{base}/api/games", json={"variant": "pig", "goal": goal, "players": ["you", "hold:20"]})
    if reply.status_code != 201:
        result.errors.append(f"create: {reply.status_code} {reply.text[:100]}")
        return result
    data = reply.json()
    code, token = data["code"], data["tokens"]["0"]
    ws_url = base.replace("http", "ws", 1) + f"/ws/{code}"
    async with connect(ws_url, max_size=2**22) as ws:
        state = json.loads(await ws.recv())["state"]
        made = 0
        while not state["finished"] and made < moves and time.perf_counter() < deadline:
            if state["current"] != 0:  # the robot is moving: wait for its updates
                message = json.loads(await ws.recv())
                if message["type"] == "update":
                    state = message["state"]
                continue
            # a person's pause, random around --think so the clients do not click in lockstep
            await asyncio.sleep(think * random.uniform(0.5, 1.5))
            action = "hold" if state["turn_total"] >= 20 else "roll"
            expected = state["step"]
            sent = time.perf_counter()
            await ws.send(
                json.dumps({"type": "action", "seat": 0, "token": token, "action": action, "expected_step": expected})
            )
            while True:
                message = json.loads(await ws.recv())
                if message["type"] == "error":
                    result.errors.append(message["code"])
                    break
                if message["type"] == "update" and message["step"] == expected + 1:
                    result.latencies.append(time.perf_counter() - sent)
                    state = message["state"]
                    break
            made += 1
        result.steps = state["step"]
        result.finished = state["finished"]
    return result


async def play_on(base: str, http: httpx.AsyncClient, goal: int, moves: int, deadline: float, think: float) -> Result:
    """Play game after game until ``deadline``; return the timings of all of them."""
    total = Result()
    while time.perf_counter() < deadline:
        result = await play(base, http, goal, moves, deadline, think)
        total.latencies += result.latencies
        total.steps += result.steps
        total.finished = result.finished
        total.errors += result.errors
        if result.errors:
            break
    return total


class WalWatch(threading.Thread):
    """Samples the size of a SQLite write-ahead log twice a second; keeps the largest and the last."""

    def __init__(self, wal: Path) -> None:
        super().__init__(daemon=True)
        self.wal = wal
        self.largest = 0
        self.last = 0
        self.stop = threading.Event()

    def run(self) -> None:
        """Sample until stopped."""
        while not self.stop.wait(0.5):
            try:
                self.last = self.wal.stat().st_size
            except OSError:
                self.last = 0
            self.largest = max(self.largest, self.last)


async def run(
    base: str, clients: int, goal: int, moves: int, seconds: float, think: float, sustain: bool = False
) -> list[Result]:
    """Run all clients at once; return their results."""
    deadline = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    player = play_on if sustain else play
    async with httpx.AsyncClient(limits=limits, timeout=30) as http:
        tasks = [player(base, http, goal, moves, deadline, think) for _ in range(clients)]
        outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    results: list[Result] = []
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            results.append(Result(errors=[f"{type(outcome).__name__}: {outcome}"]))
        else:
            results.append(outcome)
    return results


def run_loop(main: Coroutine[Any, Any, list[Result]]) -> list[Result]:
    """Run the clients on uvloop when it is installed (as the server does), else on asyncio."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


def percentile(values: list[float], q: float) -> float:
    """Return the q-th percentile (0..100) of ``values``."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def main() -> None:
    """Parse options, run the load, print throughput and latency."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=200, help="concurrent websocket clients (default 200)")
    parser.add_argument("--goal", type=int, default=100, help="goal of each game (default 100)")
    parser.add_argument("--moves", type=int, default=150, help="at most this many actions per client (default 150)")
    parser.add_argument("--seconds", type=float, default=120.0, help="stop after this long (default 120)")
    parser.add_argument(
        "--think",
        type=float,
        default=0.25,
        help="mean seconds each client waits before each action, drawn from 0.5-1.5 times this "
        "(default 0.25: about 4 actions/s per client, faster than people click; 0.1 still stays "
        "under the server's 20 messages/s limit)",
    )
    parser.add_argument("--url", default=None, help="a running server on loopback (default: start one)")
    parser.add_argument("--sustain", action="store_true", help="start a new game whenever one ends, until --seconds")
    args = parser.parse_args()
    if not 1 <= args.clients <= 2000 or args.moves < 1 or not 0 < args.seconds <= 600 or args.think < 0:
        raise SystemExit("clients must be 1..2000, moves >= 1, seconds in (0, 600], think >= 0")
    server = None
    watch: WalWatch | None = None
    with tempfile.TemporaryDirectory() as tmp:
        if args.url:
            base = args.url.rstrip("/")
            check_loopback(base)
        else:
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            # all clients connect from one address, at once: past the server's bounds on websockets per address
            many = str(10 * args.clients)
            server = start_server(
                port, Path(tmp) / "load.sqlite3", {"PIGDICE_WS_OPENING_PER_CLIENT": many, "PIGDICE_WS_PER_CLIENT": many}
            )
            watch = WalWatch(Path(tmp) / "load.sqlite3-wal")
            watch.start()
        try:
            started = time.perf_counter()
            load = run(base, args.clients, args.goal, args.moves, args.seconds, args.think, args.sustain)
            results = run_loop(load)
            elapsed = time.perf_counter() - started
        finally:
            if watch is not None:
                watch.stop.set()
            if server is not None:
                server.terminate()
                server.wait(10)
    latencies = [x for r in results for x in r.latencies]
    steps = sum(r.steps for r in results)
    errors = [e for r in results for e in r.errors]
    print(f"clients {args.clients}  goal {args.goal}  think {args.think:g} s  elapsed {elapsed:.2f} s")
    print(
        f"games finished {sum(r.finished for r in results)}/{len(results)}  "
        f"client moves {len(latencies)}  all moves (incl. robots) {steps}"
    )
    print(f"throughput {len(latencies) / elapsed:.0f} client moves/s, {steps / elapsed:.0f} moves/s incl. robots")
    if latencies:
        ms = [1000 * x for x in latencies]
        print(
            f"move latency ms: p50 {percentile(ms, 50):.2f}  p90 {percentile(ms, 90):.2f}  "
            f"p99 {percentile(ms, 99):.2f}  max {max(ms):.2f}  mean {statistics.fmean(ms):.2f}"
        )
    if watch is not None:
        print(
            f"SQLite write-ahead log: largest {watch.largest / 2**20:.1f} MiB, at the end {watch.last / 2**20:.1f} MiB"
        )
    if errors:
        print(f"errors {len(errors)}: {sorted(set(errors))[:5]}")


if __name__ == "__main__":
    main()
