"""Data for the strategy explorer: the roll/hold boundary (or Hog's dice map) of a solved variant."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import numpy as np

from pigdice.rules.variant import Decision, Variant
from pigdice.solve.optimal import policy_variant
from pigdice.solve.policy import Policy
from pigdice.web.manager import warm_policy

_cache: OrderedDict[str, dict[str, Any]] = OrderedDict()
_cache_lock = threading.Lock()
CACHE_SIZE = 16


def hold_thresholds(policy: Policy) -> np.ndarray:
    """Return T[j, i]: the smallest turn total k >= 1 at which holding is optimal (goal - i if never)."""
    goal = policy.goal
    thresholds = np.empty((goal, goal), dtype=np.int32)
    for i in range(goal):
        for j in range(goal):
            action = policy.turn(i, j).action
            holds = np.flatnonzero(action[1:] == 0)
            thresholds[j, i] = int(holds[0]) + 1 if holds.size else goal - i
    return thresholds


def dice_map(policy: Policy) -> np.ndarray:
    """Return D[j, i]: the optimal number of dice to throw at score i, opponent score j (Hog)."""
    goal = policy.goal
    choices = policy.variant.choices
    grid = np.empty((goal, goal), dtype=np.int32)
    for i in range(goal):
        for j in range(goal):
            grid[j, i] = choices[int(np.argmax(policy.dice_values(i, j)))]
    return grid


def explorer_data(variant: Variant) -> dict[str, Any]:
    """Return the explorer's JSON: axes, the boundary (or dice map) and win probabilities, cached per variant."""
    target = policy_variant(variant)
    key = f"{target.name}:{target.fingerprint()}"
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    warm_policy(variant)
    from pigdice.solve.solver import solve

    policy = solve(target)
    goal = target.goal
    win = np.round(policy.values, 4)  # V[i, j]: win probability at the start of my turn
    data: dict[str, Any] = {
        "variant": variant.name,
        "title": variant.title,
        "solved_as": target.name,
        "goal": goal,
        "decision": str(target.decision),
        "axis": list(range(goal)),
        # win[j][i]: rows are opponent scores, like the surface's z (plotly: z[y][x])
        "win": win.T.tolist(),
        "first_player_wins": round(float(policy.values[0, 0]), 6),
    }
    if target.decision is Decision.DICE_PER_TURN:
        data["kind"] = "dice"
        data["dice"] = dice_map(policy).tolist()
        data["max_dice"] = int(target.choices[-1])
    else:
        data["kind"] = "hold"
        data["threshold"] = hold_thresholds(policy).tolist()
        data["chooses_dice"] = target.chooses_dice
    with _cache_lock:
        _cache[key] = data
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return data
