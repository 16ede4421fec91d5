"""SQLite's write-ahead log under a stream of moves: how big it grows under each checkpoint policy, and how long
the longest single move write waits while checkpoints run.

Run: python bench/wal_load.py [--seconds 20] [--policies passive,truncate,...] [--threshold-mib 32] [--rate N]
Each policy gets a fresh temporary database. One thread writes moves in a tight loop (or ``--rate`` a second),
one move per ``record_moves`` call on the store's kept-open connection (as the server does on its event loop);
another thread loads games (``--reads`` a second) and checkpoints every ``--every`` seconds:

    passive           PASSIVE every time (what the server did)
    truncate          TRUNCATE every time
    passive+truncate  PASSIVE every time, then TRUNCATE when the log is over --threshold-mib
    passive+restart   the same with RESTART: the log is written from its start again, but its file keeps its
                      size, so once the file has reached the threshold every round restarts it (--threshold-mib 0:
                      from the first round)

Prints the log's size after each checkpoint, then per policy: moves per second, the largest log, the longest
write (and the 99.9th percentile), writes over 20 ms and how many of those overlapped a blocking checkpoint.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from pigdice.web.store import GameRecord, MoveWrite, SeatRecord, Store

MIB = 1024 * 1024


@dataclass
class Run:
    """What one policy's run measured."""

    policy: str
    writes: list[float] = field(default_factory=list)  # seconds per record_moves call
    slow: list[tuple[float, float]] = field(default_factory=list)  # (start, end) of writes over 20 ms
    blocking: list[tuple[float, float]] = field(default_factory=list)  # (start, end) of TRUNCATE / RESTART calls
    checkpoints: dict[str, list[float]] = field(default_factory=dict)  # mode -> seconds per call
    max_wal: int = 0
    end_wal: int = 0
    seconds: float = 0.0


def new_store(folder: Path, games: int) -> tuple[Store, list[tuple[int, str]]]:
    """Return a migrated store on a fresh file with ``games`` two-seat games (id, code)."""
    store = Store(f"sqlite:///{folder / 'wal.sqlite3'}")
    store.migrate()
    made = []
    for n in range(games):
        seats = [SeatRecord(0, "human", "human", "Ann", f"hash{n}"), SeatRecord(1, "robot", "hold:20", "Bo")]
        code = f"W{n:05d}"
        made.append((store.create_game(GameRecord(code, "pig", 100, "first", "none", "none", {}, "f", n, seats)), code))
    return store, made


def run_policy(policy: str, args: argparse.Namespace) -> Run:
    """Run one policy for ``args.seconds`` and return its figures."""
    result = Run(policy)
    stop = threading.Event()
    with tempfile.TemporaryDirectory(prefix="pigdice-wal-") as folder:
        store, games = new_store(Path(folder), args.games)

        def write() -> None:
            steps = dict.fromkeys((game_id for game_id, _ in games), 0)
            order = [game_id for game_id, _ in games]
            due = time.perf_counter()
            while not stop.is_set():
                for game_id in order:
                    if args.rate:  # an even stream of moves instead of a tight loop
                        due += 1 / args.rate
                        time.sleep(max(0.0, due - time.perf_counter()))
                    step = steps[game_id] = steps[game_id] + 1
                    faces = [random.randint(1, 6)]
                    events = [{"type": "rolled", "seat": step % 2, "faces": faces, "turn_total": 3 * step % 100}]
                    move = MoveWrite(game_id, step, step % 2, "roll", events, to_move=step % 2)
                    start = time.perf_counter()
                    store.record_moves([move])
                    took = time.perf_counter() - start
                    result.writes.append(took)
                    if took > 0.02:
                        result.slow.append((start, start + took))
                    if stop.is_set():
                        return

        def checkpoint(mode: str) -> int:
            start = time.perf_counter()
            try:
                return store.checkpoint(mode)
            finally:
                end = time.perf_counter()
                result.checkpoints.setdefault(mode, []).append(end - start)
                if mode != "PASSIVE":
                    result.blocking.append((start, end))

        def read_and_checkpoint() -> None:
            began = time.perf_counter()
            due = began + args.every
            while not stop.is_set():
                store.load_game(random.choice(games)[1])
                result.max_wal = max(result.max_wal, store.wal_bytes())
                now = time.perf_counter()
                if now >= due:
                    due += args.every
                    if policy == "truncate":
                        after = checkpoint("TRUNCATE")
                    else:
                        after = checkpoint("PASSIVE")
                        if policy.startswith("passive+") and store.wal_bytes() > args.threshold_mib * MIB:
                            after = checkpoint(policy.split("+")[1].upper())
                    print(f"  {policy:17} t={now - began:5.1f} s  log after checkpoint {after / MIB:8.1f} MiB")
                time.sleep(1 / args.reads)

        threads = [threading.Thread(target=write), threading.Thread(target=read_and_checkpoint)]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        time.sleep(args.seconds)
        stop.set()
        for thread in threads:
            thread.join()
        result.seconds = time.perf_counter() - start
        result.end_wal = store.wal_bytes()
        store.close()
    return result


def report(run: Run) -> None:
    """Print one policy's figures."""
    writes = sorted(run.writes)
    p999 = writes[int(len(writes) * 0.999)] if writes else 0.0
    overlapping = sum(any(a < d and c < b for c, d in run.blocking) for a, b in run.slow)
    print(
        f"{run.policy:17} {len(writes) / run.seconds:8.0f} moves/s  largest log {run.max_wal / MIB:8.1f} MiB  "
        f"at end {run.end_wal / MIB:7.1f} MiB  longest write {writes[-1] * 1000:7.1f} ms  "
        f"p99.9 {p999 * 1000:5.2f} ms  median {statistics.median(writes) * 1e6:5.0f} us  "
        f">20 ms: {len(run.slow)} ({overlapping} during a blocking checkpoint)"
    )
    for mode, times in sorted(run.checkpoints.items()):
        longest, mean = max(times) * 1000, statistics.mean(times) * 1000
        print(f"{'':17} {mode:8} x{len(times):3}  longest {longest:7.1f} ms  mean {mean:6.1f} ms")


def main() -> None:
    """Run the policies and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds per policy")
    parser.add_argument("--policies", default="passive,truncate,passive+truncate,passive+restart")
    parser.add_argument("--every", type=float, default=2.0, help="seconds between checkpoints")
    parser.add_argument(
        "--threshold-mib", type=float, default=32.0, help="log size that triggers a blocking checkpoint"
    )
    parser.add_argument("--rate", type=float, default=0.0, help="moves per second (default: a tight loop)")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--reads", type=float, default=100.0, help="game loads per second in the reader thread")
    args = parser.parse_args()
    runs = [run_policy(policy, args) for policy in args.policies.split(",")]
    print()
    for run in runs:
        report(run)


if __name__ == "__main__":
    main()
