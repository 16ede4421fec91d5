"""The n-player kernels' game bundle (``pigdice.solve.n.rows.players_game``): each throw's step for the Pig sweep."""

from __future__ import annotations

import pytest

from pigdice.rules import find_variant
from pigdice.solve.n.rows import players_game
from pigdice.solve.step import effect_step
from pigdice.solve.tables import effect_table


@pytest.mark.parametrize("name", ["pig", "big-pig"])
def test_the_pig_sweep_reads_each_throws_own_step(name):
    table = effect_table(find_variant(name, goal=20))
    game = players_game(table, 20, 3, False)
    assert game.adds_only
    for kind, amount, keep, jump in zip(table.kinds, table.amounts, table.keeps, game.jumps, strict=True):
        _, total, ends = effect_step(kind, amount, keep, 7, 10)  # score 7, turn total 10
        assert jump == (-1 if ends else total - 10)


def test_pigs_die_busts_on_one_and_adds_its_face_otherwise():
    game = players_game(effect_table(find_variant("pig", goal=20)), 20, 4, False)
    assert sorted(game.jumps.tolist()) == [-1, 2, 3, 4, 5, 6]
