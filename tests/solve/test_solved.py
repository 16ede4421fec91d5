"""The shared base of every exact policy: quality figures, pure play and the plain 2-player policy inside."""

from __future__ import annotations

import pickle
from dataclasses import dataclass

import numpy as np
import pytest

from pigdice.errors import BadParameterError
from pigdice.rules import find_variant
from pigdice.rules.variant import Variant
from pigdice.solve.exact import ExactPolicy, FirstToGoalPolicy, plain_policy
from pigdice.solve.herd.swineherd_policy import SwineHerdExact
from pigdice.solve.n.nplayer import PlayersPolicy, SolveStats
from pigdice.solve.policy import Policy
from pigdice.solve.positions import Position
from pigdice.solve.quickpolicy import QuickPolicy
from pigdice.solve.solved import SolvedPolicy
from pigdice.solve.two.endgame import EndgamePolicy


@dataclass
class Fixed(SolvedPolicy):
    """A policy that always takes one option: only ``best`` written, the rest from the base."""

    variant: Variant
    option: str
    players: int = 2

    def best(self, position: Position) -> str:
        return self.option


def test_every_solver_policy_is_one_type():
    for kind in (FirstToGoalPolicy, EndgamePolicy, PlayersPolicy, SwineHerdExact, QuickPolicy):
        assert issubclass(kind, SolvedPolicy)
    assert ExactPolicy is SolvedPolicy


def test_the_base_plays_best_purely_and_reports_no_regret():
    policy = Fixed(find_variant("pig", goal=20), "roll")
    position = Position((3, 4), 5)
    assert policy.strategy(position) == {"roll": 1.0}
    assert policy.play(position, lambda: 0.99) == "roll" and policy.play(position, None) == "roll"
    assert policy.goal == 20
    assert (policy.regret, policy.mixed_cycles, policy.kept_cycles, policy.equilibrium_gain) == (0.0, 0, 0, 0.0)
    assert policy.is_exact and policy.first_to_goal() is None
    with pytest.raises(BadParameterError, match="not a 2-player first-to-goal one"):
        plain_policy(policy)
    with pytest.raises(NotImplementedError):
        policy.win_vector(position)


def test_the_figures_of_a_players_policy_come_from_its_solve():
    variant = find_variant("pig", goal=4)
    values = np.full((4, 4, 4, 3), 1 / 3)
    bare = PlayersPolicy(variant, 3, values)
    assert (bare.mixed_cycles, bare.kept_cycles, bare.equilibrium_gain, bare.is_exact) == (0, 0, 0.0, True)
    stats = SolveStats(cycles=5, sweeps=9, unsettled=2, regret=3e-7, mixed=4, mix_gain=2e-9, kept=1)
    solved = PlayersPolicy(variant, 3, values, regret=3e-7, stats=stats)
    assert (solved.mixed_cycles, solved.kept_cycles, solved.equilibrium_gain) == (4, 1, 2e-9)
    assert solved.regret == 3e-7 and not solved.is_exact


def test_the_first_to_goal_adapter_hands_its_plain_policy():
    variant = find_variant("pig", goal=5)
    plain = Policy(variant, np.full((5, 5), 0.5))
    adapted = FirstToGoalPolicy(plain)
    assert adapted.first_to_goal() is plain and plain_policy(adapted) is plain
    assert adapted.goal == 5 and adapted.is_exact


def test_a_pickled_policy_leaves_its_derived_caches_behind():
    variant = find_variant("pig", goal=4)
    policy = PlayersPolicy(variant, 3, np.full((4, 4, 4, 3), 1 / 3), regret=1e-9)
    assert policy.table is policy.table  # derived once, kept
    assert "table" in policy.__dict__ and "table" not in policy.__getstate__()
    back = pickle.loads(pickle.dumps(policy))
    assert "table" not in back.__dict__ and back.regret == 1e-9
    assert np.array_equal(back.values, policy.values) and np.array_equal(back.table.amounts, policy.table.amounts)
