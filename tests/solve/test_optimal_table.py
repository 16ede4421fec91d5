"""The optimal action table (what the analyses, plots and exact evaluation read) against the reference."""

from __future__ import annotations

import pytest

from pigdice.players.specs import parse_strategy
from pigdice.players.tables import action_table
from pigdice.rules import find_variant
from pigdice.rules.variant import Decision

from .reference_solver import reference_values


@pytest.mark.parametrize(
    "name",
    [
        "pig",
        "pig-dice",
        pytest.param("hog-reroll", marks=pytest.mark.slow),
        pytest.param("hog", marks=pytest.mark.slow),
    ],
)
def test_optimal_table_is_the_argmax_of_the_reference_values(name: str) -> None:
    # the table the analyses read, against the dict-based reference solver's option values
    # (Effect.resolve, no kernel code); states where two options are within 1e-9 are ties
    variant = find_variant(name, goal=12)
    table = action_table(parse_strategy("optimal", variant), variant)
    P = reference_values(variant)
    goal = variant.goal
    dists = [[(effect, float(p)) for effect, p in spec.distribution()] for spec in variant.rolls]
    per_turn = variant.decision is Decision.DICE_PER_TURN

    def start(i: int, j: int) -> float:
        return 1.0 if i >= goal else (P[(i, j)] if per_turn else P[(i, j, 0)])

    def after(i: int, j: int, score: int) -> float:
        return 1.0 if score >= goal else 1.0 - start(j, score)

    checked = 0
    for i in range(goal):
        for j in range(goal):
            for k in range(1 if per_turn else goal - i):
                options = [] if per_turn else [after(i, j, i + k)]
                for dist in dists:
                    value = 0.0
                    for effect, p in dist:
                        score, total, ends = effect.resolve(i, k)
                        if per_turn or ends:
                            value += p * after(i, j, score + total if per_turn else score)
                        else:
                            value += p * (1.0 if i + total >= goal else P[(i, j, total)])
                    options.append(value)
                ranked = sorted(options, reverse=True)
                if len(ranked) > 1 and ranked[0] - ranked[1] < 1e-9:
                    continue
                best = options.index(ranked[0]) + (1 if per_turn else 0)
                assert table[i, j, k] == best, (i, j, k, options)
                checked += 1
    assert checked > goal * goal // 2
