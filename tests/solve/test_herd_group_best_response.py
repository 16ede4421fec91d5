"""Exact best responses in Swine Herd with 3 or 4 players (``herd.group_best_response``) and the measured figures
of the group approximation (``herd.herd_figures``).

Rules source: seed 001, Swine Herd, with the house rule that everyone standing sits once the turn total takes them
all to the goal. Against the 3-player equilibrium a best response gains nothing (``n_best_response`` finds the same:
exploitability at rounding level); against the approximation the gains are recomputed at a tiny goal and compared
with the figures kept with the package.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pigdice.engine.game import GameState, new_game
from pigdice.errors import BadParameterError
from pigdice.players.optimal import Optimal
from pigdice.rules import find_variant
from pigdice.solve.herd.group_best_response import GroupTurns, PairRule, TableRule, exploitability, turn_starts
from pigdice.solve.herd.herd_figures import measured, measured_players, summary, to_json
from pigdice.solve.herd.swineherd import read_die, solve_swine_herd


def test_a_best_response_to_the_three_player_equilibrium_gains_nothing() -> None:
    from pigdice.solve.herd.swineherd_n_policy import swine_herd_n_exact

    variant = find_variant("swine-herd", goal=8)
    policy = swine_herd_n_exact(variant, 3)
    gains = exploitability(TableRule(policy.solved.sit_probability), variant, 3)
    assert gains.worst < 1e-12 and abs(gains.start) < 1e-12
    assert policy.gains.overall < 1e-12  # the equilibrium's own best-response pass agrees
    assert gains.share == pytest.approx(1 / 3, abs=1e-12)


@pytest.mark.parametrize("players", [3, 4])
def test_the_figures_kept_are_what_a_fresh_measure_gives(players: int) -> None:
    variant = find_variant("swine-herd", goal=7)
    gains = exploitability(PairRule(solve_swine_herd(variant)), variant, players)
    (kept,) = (m for m in measured(players) if m.goal == 7)
    assert gains.start == pytest.approx(kept.start, abs=1e-12) and gains.start > 0.005
    assert gains.worst == pytest.approx(kept.worst, abs=1e-12) and gains.worst_at == kept.worst_at


def test_the_rules_shares_add_up_to_one_at_every_turn_start() -> None:
    variant = find_variant("swine-herd", goal=6)
    rule = PairRule(solve_swine_herd(variant))
    plain = GroupTurns(rule, 6, read_die(variant), 4, best=False)
    for scores in turn_starts(6, 4):
        plain.solve(scores)
    for table in itertools.combinations_with_replacement(range(6), 4):
        shares = [plain.starts[(table[d], *table[:d], *table[d + 1 :])] for d in range(4)]
        assert sum(shares) == pytest.approx(1.0, abs=1e-12)


def test_the_rule_measured_is_the_one_the_robots_play() -> None:
    variant = find_variant("swine-herd", goal=8)
    rule = PairRule(solve_swine_herd(variant))
    robot = Optimal(variant)
    rng = np.random.default_rng(5)
    start = new_game(variant, 4)
    for _ in range(200):
        scores = tuple(int(x) for x in rng.integers(0, 8, 4))
        standing = (True, *(bool(x) for x in rng.integers(0, 2, 3)))
        total = int(rng.integers(1, 9))
        up = [s for s, st in zip(scores, standing, strict=True) if st]
        if len(up) >= 2 and all(s + total >= 8 for s in up):
            continue  # the house rule seats them: no choice
        banks = tuple(s if st else s + total for s, st in zip(scores, standing, strict=True))
        state = GameState(**{**start.__dict__, "scores": banks, "standing": standing, "turn_total": total})
        hint = robot.hint(state)
        sit = (hint.mix or {hint.best: 1.0}).get("sit", 0.0)
        moment = tuple(2 * b + int(st) for b, st in zip(banks, standing, strict=True))
        assert rule.sit(moment, 0, total) == pytest.approx(sit, abs=1e-12), (banks, standing, total)


def test_the_figures_in_words_and_as_json() -> None:
    assert measured_players(7) == 4 and measured_players(3) == 3
    text = summary(6)
    assert "measured exactly with 4 players at goals 5-" in text and "not measured beyond 4 players" in text
    assert "--" not in text and "_" not in text
    data = to_json(4)
    assert [row["goal"] for row in data["by_goal"]] == sorted(m.goal for m in measured(4))
    assert all(0 <= row["at_start"] <= row["worst"] <= 1 for row in data["by_goal"])


@pytest.mark.parametrize(
    ("players", "params", "message"),
    [
        (5, {}, "takes 3 or 4 players, not 5"),
        (3, {"at_goal": "roll-on"}, "plays the house rule"),
    ],
)
def test_what_it_does_not_cover_is_refused_in_one_line(players: int, params: dict, message: str) -> None:
    variant = find_variant("swine-herd", goal=6, **params)
    with pytest.raises(BadParameterError, match=message):
        exploitability(PairRule(solve_swine_herd(find_variant("swine-herd", goal=6))), variant, players)
