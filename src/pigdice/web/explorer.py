"""Data for the strategy explorer: the roll/hold boundary (or Hog's dice map) of a solved variant.

The data is computed in the solve pool's worker process and kept here in an LRU cache bounded
by the bytes of its JSON, so new goals never pile up in memory.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

import numpy as np

from pigdice.players.optimal import approximation_note
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.actions import dice_at_start, hold_thresholds
from pigdice.web.solving import SolvePool, job_key

DEFAULT_CACHE_BYTES = 64 * 2**20  # about 150 explorer views at goal 200 (~400 KB of JSON each)


def explorer_json(variant: Variant) -> bytes:
    """Return the explorer's data for ``variant`` as JSON bytes (made in the worker: ~40,000 numbers at goal
    200 take a tenth of a second to encode, which the event loop should not spend)."""
    return json.dumps(compute_explorer_data(variant), separators=(",", ":")).encode()


HERD_SIT_NOTE = (
    "Everyone decides at once: this is the exact 2-player equilibrium, the turn total at which you sit "
    "down while the other still stands (where the perfect player mixes, the first total at which it sits "
    "at least half the time). Between two perfect players the scores stay level and they share the win."
)


def _herd_data(variant: Variant) -> dict[str, Any]:
    """Return the explorer's JSON for 2-player Swine Herd: when to sit while the other stands, and V."""
    from pigdice.solve.herd.swineherd import solve_swine_herd
    from pigdice.study.plots.swineherd import sit_boundary

    policy = solve_swine_herd(variant)
    totals, _ = sit_boundary(policy)
    return {
        "variant": variant.name,
        "title": variant.title,
        "solved_as": variant.name,
        "approximate": None,
        "note": HERD_SIT_NOTE,
        "goal": variant.goal,
        "decision": str(variant.decision),
        "axis": list(range(variant.goal)),
        "win": np.round(policy.V, 4).T.tolist(),  # [j][i], like the other games
        "first_player_wins": round(policy.value(0, 0), 6),
        "kind": "sit",
        "threshold": totals.astype(np.int64).T.tolist(),
        "chooses_dice": False,
    }


HERD_NOTE = (
    "in Swine Herd everyone chooses at once, and the perfect player's choice depends on who is still standing, "
    "which this picture cannot show: it shows Pig's optimal policy"
)


def compute_explorer_data(variant: Variant) -> dict[str, Any]:
    """Return the explorer's JSON for ``variant``: axes, the boundary (or dice map) and win probabilities."""
    from pigdice.solve.exact import exactness
    from pigdice.solve.solver import solve

    if variant.is_simultaneous and exactness(variant, 2) is None:
        return _herd_data(variant)
    target = variant.roll_hold_form()
    policy = solve(target)
    goal = target.goal
    win = np.round(policy.values, 4)  # V[i, j]: win probability at the start of my turn
    data: dict[str, Any] = {
        "variant": variant.name,
        "title": variant.title,
        "solved_as": target.name,
        # why the solved game differs from the one asked, or None
        "approximate": HERD_NOTE if variant.is_simultaneous else approximation_note(variant, 2),
        "goal": goal,
        "decision": str(target.decision),
        "axis": list(range(goal)),
        # win[j][i]: rows are opponent scores, like the surface's z (plotly: z[y][x])
        "win": win.T.tolist(),
        "first_player_wins": round(float(policy.values[0, 0]), 6),
    }
    actions = policy.action_table()
    if target.decision is Decision.DICE_PER_TURN:
        data["kind"] = "dice"
        # dice[j][i], like win
        data["dice"] = dice_at_start(target.choices, actions).T.tolist()
        data["max_dice"] = int(target.choices[-1])
    else:
        data["kind"] = "hold"
        data["threshold"] = hold_thresholds(actions).T.tolist()
        data["chooses_dice"] = target.chooses_dice
    return data


class Explorer:
    """The explorer's data per variant: computed by the solve pool, kept in an LRU cache bounded by bytes."""

    def __init__(self, pool: SolvePool, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.pool = pool
        self.max_bytes = max_bytes
        self._cache: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def cached_bytes(self) -> int:
        """Return the bytes of JSON the cache holds."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._cache)

    async def data(self, variant: Variant) -> bytes:
        """Return the explorer's JSON for ``variant`` (from the cache, or a shared job in the solve pool)."""
        key = job_key("explore", variant)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        data = await self.pool.run("explore", variant, explorer_json)
        with self._lock:
            if key not in self._cache and len(data) <= self.max_bytes:
                self._cache[key] = data
                self._bytes += len(data)
                while self._bytes > self.max_bytes:
                    _, dropped = self._cache.popitem(last=False)
                    self._bytes -= len(dropped)
        return data
