"""How long /healthz takes while the server prepares a perfect player it has never solved.

Starts ``pigdice serve`` on a free port with an empty policy cache, polls ``/healthz`` every 20 ms
from a thread, and meanwhile asks for work that needs a fresh solve: a room with the perfect
player, a hint, and the strategy explorer. Prints the slowest and median /healthz answers while
that work runs (before issue 9 the solves ran on the event loop's threads and the variant
parameters were parsed on the loop itself; now they go to a worker process).

    python bench/web_health.py                  # this checkout
    PYTHONPATH=/path/to/other/src python bench/web_health.py   # another version, same measurement
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from web_load import free_port, start_server  # bench/ is on the path when run as a script

PERFECT = ["you", "optimal"]


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


def main() -> None:
    """Run the measurement and print it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goal", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        process = start_server(port, Path(tmp) / "db.sqlite3", {"PIGDICE_CACHE_DIR": str(Path(tmp) / "policies")})
        base = f"http://127.0.0.1:{port}"
        try:
            httpx.get(f"{base}/healthz", timeout=5)
            context = multiprocessing.get_context("spawn")
            stop, out = context.Event(), context.Queue()
            poller = context.Process(target=poll, args=(base, stop, out))
            poller.start()
            time.sleep(1.0)  # the poller's interpreter starts
            lines = work(base, args.goal)
            stop.set()
            latencies = sorted(out.get(timeout=60))
            poller.join()
        finally:
            process.terminate()
            process.wait(timeout=30)
    print("\n".join(lines))
    print(
        f"/healthz while solving: {len(latencies)} answers, median {statistics.median(latencies) * 1000:.1f} ms, "
        f"slowest {latencies[-1] * 1000:.0f} ms, over 100 ms: {sum(1 for t in latencies if t > 0.1)}"
    )


if __name__ == "__main__":
    main()
