"""Threshold turns take their spread from a ladder; the head-to-head of reset games settles by spreads.

A turn that rolls below a total h and holds from h on ends where the ladder says, whatever the
scores (``holdspread.new_ladder``); two fixed strategies' spreads never change, so one recording
pass and passes over the spreads give the full passes' evaluation (``evalspread``).
"""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.players.specs import parse_strategy
from pigdice.players.tables import action_table
from pigdice.rules import find_variant
from pigdice.solve.tables import effect_table
from pigdice.solve.two import holdspread
from pigdice.solve.two.headtohead import head_to_head

RESETS = ["two-dice-pig", "big-pig-reset", "piggy-six"]
GOAL = 40


def _forward(amounts: np.ndarray, chances: np.ndarray, h: int) -> tuple[np.ndarray, float]:
    """Return the chance a turn rolling below h first stops at h + u, and the chance it stops below h."""
    reach = np.zeros(h + int(amounts.max()))
    reach[0] = 1.0
    for k in range(1, reach.shape[0]):
        reach[k] = sum(p * reach[k - a] for a, p in zip(amounts, chances, strict=True) if 0 <= k - a < h)
    return reach[h:], float(reach[:h].sum())


@pytest.mark.parametrize("name", RESETS)
def test_the_ladder_gives_each_threshold_turns_endings(name: str) -> None:
    table = effect_table(find_variant(name, goal=GOAL))
    ladder = holdspread.new_ladder(GOAL, table)
    amounts, chances = table.add_amounts, table.add_probabilities
    bust, reset = float(table.bust_probabilities[0]), float(table.reset_probabilities[0])
    for h in [1, 2, 5, 13, 20, GOAL]:
        banked, rolled = _forward(amounts, chances, h)
        assert np.abs(ladder.banked[h] - banked).max() < 1e-15
        assert ladder.lost[h] == pytest.approx(rolled * bust, abs=1e-15)
        assert ladder.reset[h] == pytest.approx(rolled * reset, abs=1e-15)
        assert ladder.lost_at_zero[h] == pytest.approx(rolled * (bust + reset), abs=1e-15)
        # every turn that rolls below h ends: it stops at h or above, busts or resets
        assert banked.sum() + rolled * (bust + reset) == pytest.approx(1.0, abs=1e-14)


def _odd_table(goal: int, rng: np.random.Generator) -> np.ndarray:
    """Return an action table that rolls below a threshold drawn per state, and rolls again at a few totals above it."""
    table = np.ones((goal, goal, goal), dtype=np.int8)
    thresholds = rng.integers(8, 30, size=(goal, goal))
    table[np.arange(goal)[None, None, :] >= thresholds[:, :, None]] = 0
    table[rng.uniform(size=table.shape) < 0.05] = 1  # not thresholds: ``_spread_any`` records these
    return table


@pytest.mark.parametrize("name", RESETS)
@pytest.mark.parametrize("pair", [("hold:20", "optimal"), ("odd", "hold:25")])
def test_a_head_to_head_by_spreads_is_the_one_by_full_passes(
    name: str, pair: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    variant = find_variant(name, goal=GOAL).with_endgame("first-to-goal")
    rng = np.random.default_rng(11)
    tables = [
        _odd_table(GOAL, rng) if spec == "odd" else action_table(parse_strategy(spec, variant), variant)
        for spec in pair
    ]
    by_spreads = head_to_head(variant, tables[0], tables[1])
    monkeypatch.setattr(holdspread, "spreadable", lambda game: False)
    by_passes = head_to_head(variant, tables[0], tables[1])
    assert by_spreads.a_first == pytest.approx(by_passes.a_first, abs=1e-13)
    assert by_spreads.b_first == pytest.approx(by_passes.b_first, abs=1e-13)
    assert by_spreads.passes == 2 < by_passes.passes
