"""Each score sum of 3-player Swine Herd solved on threads: its turn starts handed out in small chunks.

The turn starts of one sum depend only on higher sums (``n_levels``), so the threads take chunks of
CHUNK turn starts from a shared counter (a few hard turn starts, traced for seconds, would leave a
static split unbalanced) and run ``n_levels.solve_starts`` without the GIL. The profiles are then
stored in the serial order and the sum's lone-roller and pair rows are solved on the calling thread:
any number of threads gives the values of one thread, bit for bit.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor, wait

import numpy as np

from pigdice.solve.herd.n_bundles import Game, StoredProfiles
from pigdice.solve.herd.n_levels import commit_starts, level_starts, new_results, solve_level_rest, solve_starts
from pigdice.solve.threads import check_threads

CHUNK = 2  # turn starts per kernel call: a turn start takes milliseconds or more, a call some microseconds


class LevelThreads:
    """Solves score sums of one pass (the equilibrium, or with ``br`` the best responses) on ``threads`` threads."""

    def __init__(self, game: Game, stored: StoredProfiles, br: bool, threads: int) -> None:
        """Keep the pass's tables and start the threads (none for one thread)."""
        self.game, self.stored, self.br = game, stored, br
        self.threads = check_threads(threads)
        self.pool = ThreadPoolExecutor(self.threads, thread_name_prefix="pigdice-herd") if self.threads > 1 else None

    def close(self) -> None:
        """Stop the threads."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> LevelThreads:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def solve_sum(self, n: int, counts: np.ndarray) -> None:
        """Solve every state with score sum n (higher sums solved), adding to ``counts`` (``n_levels.COUNTS``)."""
        game, stored, br = self.game, self.stored, self.br
        starts = level_starts(n, game.goal)
        m = starts.shape[0]
        out = new_results(m, game.goal)
        if self.pool is None or m <= CHUNK:
            solve_starts(game, stored, br, starts, 0, m, out)
        else:
            self._spread(starts, out)
        commit_starts(game, stored, br, starts, out, counts)
        solve_level_rest(game, br, n, counts)

    def _spread(self, starts: np.ndarray, out: object) -> None:
        """Solve the turn starts on every thread, each taking the next chunk until none is left."""
        assert self.pool is not None
        m = starts.shape[0]
        chunks = iter(range(0, m, CHUNK))
        lock = threading.Lock()
        stop = threading.Event()

        def work() -> None:
            while not stop.is_set():
                with lock:
                    lo = next(chunks, None)
                if lo is None:
                    return
                solve_starts(self.game, self.stored, self.br, starts, lo, min(m, lo + CHUNK), out)

        futures: list[Future[None]] = [self.pool.submit(work) for _ in range(self.threads)]
        try:
            for future in futures:
                future.result()
        except BaseException:  # Ctrl-C: each thread finishes its chunk and stops
            stop.set()
            wait(futures)
            raise
