"""Data for the strategy explorer: the roll/hold boundary (or Hog's dice map) of a solved variant."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import numpy as np

from pigdice.players.optimal import approximation_note
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.actions import dice_at_start, hold_thresholds
from pigdice.web.manager import warm_policy

_cache: OrderedDict[str, dict[str, Any]] = OrderedDict()
_cache_lock = threading.Lock()
CACHE_SIZE = 16


def explorer_data(variant: Variant) -> dict[str, Any]:
    """Return the explorer's JSON: axes, the boundary (or dice map) and win probabilities, cached per variant."""
    target = variant.roll_hold_form()
    key = f"{variant.name}:{variant.fingerprint()}"
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
        "approximate": approximation_note(variant, 2),  # why the solved game differs from the one asked, or None
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
    with _cache_lock:
        _cache[key] = data
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return data
