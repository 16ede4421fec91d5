"""Conformance: every registered variant passes the same checks (python-chess "perft" style).

Exact tables sum to 1; seeded games between robots end; scores and turn totals never go
negative; returns are 0 until the end, then sum to 1 and are positive for exactly the winners.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from pigdice.engine.events import Banked, GameOver, ScoreReset
from pigdice.engine.game import GameState, apply, legal_actions, new_game, returns
from pigdice.players.fixed import RandomPlayer
from pigdice.players.specs import parse_strategy
from pigdice.rules import Decision, EffectKind, Endgame, Variant, find_variant, variant_names

MAX_STEPS = 200_000


def robot_spec(variant: Variant, hold: int) -> str:
    """Return a hold-at-N style robot spec that suits the variant's decision."""
    if variant.decision is Decision.DICE_PER_TURN:
        return f"dice:{min(hold // 4, variant.choices[-1]) or 1}"
    if variant.decision is Decision.DICE_PER_ROLL:
        return f"hold:{hold}+dice:2"
    return f"hold:{hold}"


def check_state(state: GameState) -> None:
    """Check the invariants that hold in every state."""
    assert all(isinstance(s, int) and s >= 0 for s in state.scores)
    assert state.turn_total >= 0
    assert 0 <= state.current < state.players
    assert (legal_actions(state) == []) == state.is_terminal()
    if state.variant.decision is Decision.SIMULTANEOUS and not state.is_terminal():
        assert state.standing[state.current]
    if state.rolls_this_turn == 0 and state.variant.decision is not Decision.SIMULTANEOUS:
        assert state.turn_total == 0
    if not state.is_terminal():
        assert returns(state) == (0.0,) * state.players


def check_final(state: GameState) -> None:
    """Check the end of a game."""
    variant = state.variant
    winners = state.winners
    assert winners
    assert sum(returns(state)) == pytest.approx(1.0)
    assert {p for p, r in enumerate(returns(state)) if r > 0} == set(winners)
    assert max(state.scores) >= variant.goal
    if variant.endgame is Endgame.FIRST_TO_GOAL and variant.decision is not Decision.SIMULTANEOUS:
        assert len(winners) == 1
        assert state.scores[winners[0]] >= variant.goal
    else:
        assert all(state.scores[p] == max(state.scores) for p in winners)
    if variant.endgame is Endgame.EQUAL_TURNS:
        assert len(set(state.turns_played)) == 1


def play_checked(variant: Variant, strategies: list, seed: int) -> GameState:
    """Play one seeded game, checking every state and that the events explain the scores."""
    rng = np.random.default_rng(seed)
    state = new_game(variant, len(strategies))
    scores = list(state.scores)
    check_state(state)
    while not state.is_terminal():
        assert state.step < MAX_STEPS, "the game did not end"
        action = strategies[state.current].choose(state, rng)
        state, events = apply(state, action, rng)
        for event in events:
            if isinstance(event, Banked):
                scores[event.player] = event.score
            elif isinstance(event, ScoreReset):
                scores[event.player] = 0
            elif isinstance(event, GameOver):
                assert event.winners == state.winners
        assert tuple(scores) == state.scores
        check_state(state)
    check_final(state)
    return state


@pytest.mark.parametrize("name", variant_names())
def test_tables_are_exact_and_sum_to_one(name):
    variant = find_variant(name)
    for dice in variant.choices:
        rows = variant.outcomes(dice)
        assert rows
        for row in rows:
            assert isinstance(row.probability, Fraction)
            assert 0 < row.probability <= 1
            assert row.label
            if row.effect.kind in (EffectKind.ADD, EffectKind.SUBTRACT, EffectKind.SET, EffectKind.BANK):
                assert row.effect.amount >= 0
            assert row.to_json()["probability"] == f"{row.probability.numerator}/{row.probability.denominator}"
        assert sum(row.probability for row in rows) == 1
        assert sum(p for _, p in variant.roll_spec(dice if variant.chooses_dice else None).distribution()) == 1


@pytest.mark.parametrize("name", variant_names())
def test_variant_description(name):
    variant = find_variant(name)
    data = variant.describe()
    assert data["name"] == name
    assert data["goal"] == 100
    assert variant.rules and variant.summary and variant.sources
    assert len(variant.fingerprint()) == 16
    assert variant.fingerprint() != variant.with_goal(50).fingerprint()


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("name", variant_names())
def test_random_games_end_cleanly(name, players):
    variant = find_variant(name, goal=40)
    for seed in range(3):
        play_checked(variant, [RandomPlayer()] * players, seed)


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("name", variant_names())
def test_robot_games_end_cleanly(name, players):
    variant = find_variant(name)
    robots = [parse_strategy(robot_spec(variant, hold), variant) for hold in (20, 12, 25, 8)[:players]]
    for seed in range(2):
        play_checked(variant, robots, seed)


@pytest.mark.parametrize(
    ("endgame", "ties", "final_turn"),
    [
        ("first-to-goal", "shared", "turn"),
        ("final-round", "shared", "turn"),
        ("final-round", "first-to-reach", "roll"),
        ("equal-turns", "first-to-reach", "turn"),
    ],
)
@pytest.mark.parametrize("name", [n for n in variant_names() if n != "swine-herd"])
def test_every_endgame_with_every_variant(name, endgame, ties, final_turn):
    variant = find_variant(name, goal=30, endgame=endgame, ties=ties, final_turn=final_turn)
    play_checked(variant, [RandomPlayer()] * 3, 11)
    robots = [parse_strategy(robot_spec(variant, hold), variant) for hold in (15, 10, 20)]
    play_checked(variant, robots, 12)
