"""The last turn of a 2-player game (``pigdice.solve.two.lastturn``) against a plain reference, every variant.

Once one player has banked a total at or past the goal under a final round or equal turns, the
other plays one last turn (or one last banked throw) against a deficit d. The reference below
plays that turn with the engine's rule (``Effect.resolve`` from the player's own score against
the leader's total) and solves it by plain value iteration over the turn total, for every
registered turn-based variant under every ending with a last turn and both tie rules.

A deficit of 0 never arises in play (the leader has banked the goal, the other is below it),
but the table starts there and ships with the package: there a bust ends a turn of rolls short
of the leader, as at every other deficit, while a single banked throw that busts banks nothing
(a tie). The shipped values follow this convention (tests/solve/test_shipped.py).
"""

from __future__ import annotations

import pytest

from pigdice.rules import EffectKind, Variant, all_variants
from pigdice.solve.quickrow import outcomes
from pigdice.solve.tables import effect_table
from pigdice.solve.two.endgame import last_turn_table, single_last_throw, tie_value

DEFICITS = 6  # d = 0..5
LEADER = 1_000  # the leader's total: any total past the trailing player's reach would do
ENDINGS = [
    ("final-round", "shared", "turn"),
    ("final-round", "first-to-reach", "turn"),
    ("final-round", "shared", "roll"),
    ("final-round", "first-to-reach", "roll"),
    ("equal-turns", "shared", "turn"),
    ("equal-turns", "first-to-reach", "turn"),
]
VARIANTS = [variant.name for variant in all_variants() if not variant.is_simultaneous]
SWEEPS = 10_000


def share(score: int, tie: float) -> float:
    """Return the trailing player's share when they finish with ``score`` against the leader's total."""
    if score > LEADER:
        return 1.0
    return tie if score == LEADER else 0.0


def reference_start(variant: Variant, deficit: int, tie: float) -> float:
    """Return the trailing player's share at the start of their last turn, solved with ``Effect.resolve``."""
    score = LEADER - deficit
    choices = outcomes(variant)
    if single_last_throw(variant):  # one throw, banked at once
        best = 0.0
        for choice in choices:
            value = 0.0
            for effect, p in choice:
                new_score, turn_total, _ = effect.resolve(score, 0)
                value += p * share(new_score + turn_total, tie)
            best = max(best, value)
        return best
    win = [0.0] * (deficit + 1)  # by turn total; past the deficit the player holds and wins
    for _ in range(SWEEPS):
        change = 0.0
        for k in range(deficit, -1, -1):
            options = [share(score + k, tie)]
            for choice in choices:
                value = 0.0
                for effect, p in choice:
                    if effect.kind is EffectKind.BUST:  # short of the leader, even at a deficit of 0
                        continue
                    new_score, turn_total, ends = effect.resolve(score, k)
                    if ends:
                        value += p * share(new_score, tie)
                    else:
                        value += p * (1.0 if turn_total > deficit else win[turn_total])
                options.append(value)
            change = max(change, abs(max(options) - win[k]))
            win[k] = max(options)
        if change < 1e-16:
            break
    return win[0]


@pytest.mark.parametrize("ending", ENDINGS, ids="-".join)
@pytest.mark.parametrize("name", VARIANTS)
def test_the_last_turn_table_equals_a_plain_solve_at_the_first_deficits(name: str, ending: tuple[str, ...]) -> None:
    variant = next(v for v in all_variants() if v.name == name).with_endgame(*ending)
    table = last_turn_table(variant, effect_table(variant), DEFICITS)
    tie = tie_value(variant)
    expected = [reference_start(variant, d, tie) for d in range(DEFICITS)]
    assert table.tolist() == pytest.approx(expected, abs=1e-12)


def test_piggy_six_s_last_turn_at_a_tie_rolls_into_a_six_short_of_the_leader() -> None:
    variant = next(v for v in all_variants() if v.name == "piggy-six")
    table = last_turn_table(variant, effect_table(variant), 2)
    assert table[0] == pytest.approx(25 / 36, abs=1e-15)  # any 6 (11/36) falls short, no 6 passes
