"""The n-player reference (``reference_games``) against the engine, the 2-player references and hand values."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import pytest

from pigdice.engine.game import GameState, Hold, apply, parse_action, returns
from pigdice.rules import find_variant
from pigdice.rules.outcomes import RollSpec, ScriptedDice
from pigdice.rules.variant import Endgame, TieRule
from pigdice.solve.positions import Position
from pigdice.solve.two.endgame import solve_endgame

from .reference_games import EndlessGameError, ReferenceGame, State, reference_game
from .reference_solver import reference_values

EXACT = 1e-12


_GAMES: dict[tuple[object, ...], ReferenceGame] = {}  # every reference is built once and read by every test


def _game(name: str, goal: int, endgame: str, players: int, cap: int | None = None, **rules: object) -> ReferenceGame:
    params: dict[str, Any] = {"max_dice": 3} if name in ("hog", "hog-reroll") else {}
    params.update(rules)  # endgame rules and variant parameters alike
    variant = find_variant(name, goal=goal, endgame=endgame, **params)
    key = (variant, players, cap)  # rules left at their defaults and the same rules stated are one game
    if key not in _GAMES:
        _GAMES[key] = reference_game(variant, players, cap)
    return _GAMES[key]


# -- the 2-player references ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "goal", "params"),
    [
        ("pig", 8, {}),
        ("two-dice-pig", 6, {}),
        ("hog", 8, {"max_dice": 3}),
        ("hog-reroll", 6, {"max_dice": 2}),
        ("pig-dice", 8, {}),
        ("freys-pig", 9, {}),
    ],
)
def test_two_players_first_to_goal_equal_the_reference_solver_everywhere(name, goal, params):
    variant = find_variant(name, goal=goal, endgame="first-to-goal", **params)
    expected = reference_values(variant)
    game = reference_game(variant, 2)
    assert len(game) == 2 * len(expected)  # the same states, each seen from either seat
    for key, value in expected.items():
        scores, total = key[:2], key[2] if len(key) == 3 else 0
        for seat in (0, 1):
            mine = game.values(Position(scores, total, seat))
            assert mine[0] == pytest.approx(value, abs=EXACT), (key, seat)
            assert sum(mine) == pytest.approx(1.0, abs=EXACT)


@pytest.mark.parametrize(
    ("name", "goal", "endgame", "ties", "final_turn", "cap"),
    [
        ("pig", 8, "final-round", "shared", "turn", 20),
        ("pig", 8, "equal-turns", "first-to-reach", "turn", 12),
        ("pig-dice", 8, "final-round", "first-to-reach", "roll", 12),
        ("big-pig", 9, "equal-turns", "shared", "turn", 13),
        ("hog", 8, "final-round", "shared", "turn", None),
    ],
)
def test_two_players_endings_equal_the_endgame_solver_everywhere(name, goal, endgame, ties, final_turn, cap):
    # pigdice.solve.two.endgame (numba, 2 players) caps the totals of the player who reaches the goal
    # but not the last turn: cap_last_turn=False plays the same game
    params = {"max_dice": 3} if name == "hog" else {}
    variant = find_variant(name, goal=goal, endgame=endgame, ties=ties, final_turn=final_turn, **params)
    game = reference_game(variant, 2, cap, cap_last_turn=False)
    policy = solve_endgame(variant, cap=cap or 0)
    for position in game.positions():
        assert game.values(position)[0] == pytest.approx(policy.win_vector(position)[0], abs=EXACT), position
        assert game.best(position) == policy.best(position), position


# -- the engine's rules -----------------------------------------------------------------------
def _engine_state(game: ReferenceGame, state: State) -> GameState:
    """Return the engine's state for ``state``: who finished first is told by ``reached`` steps."""
    n = game.players
    reached = [0] * n
    if state.owed is not None:
        position = game.position(state)
        for step, offset in enumerate(position.finished(), start=1):
            reached[(state.mover + offset) % n] = step
    return GameState(
        variant=game.variant,
        scores=state.scores,
        current=state.mover,
        turn_total=state.total,
        turns_played=(1,) * n,
        final_round=None if state.owed is None else (state.mover, *state.owed),
        reached=tuple(reached),
        step=n + 1,
    )


def _engine_key(game: ReferenceGame, after: GameState) -> object:
    """Return the reference's outcome for the engine's state ``after`` (a forced hold is played out)."""
    if after.is_terminal():
        return returns(after)
    final = after.final_round
    state = State(after.scores, after.current, after.turn_total, None if final is None else final[1:])
    if after.rolls_this_turn > 0 and game._must_hold(state, {}):  # the same turn goes on
        return _engine_key(game, apply(after, Hold(), ScriptedDice([]))[0])
    return state


def _throws(spec: RollSpec) -> list[tuple[Fraction, tuple[int, ...] | None]]:
    """Return every throw of ``spec`` face by face (None: the mishap), with its probability."""
    mishap = spec.mishap.probability if spec.mishap is not None else Fraction(0)
    throws: list[tuple[Fraction, tuple[int, ...] | None]] = [(mishap, None)] if mishap else []
    for combination in itertools.product(*(zip(die.faces, die.probabilities, strict=True) for die in spec.dice)):
        probability = (1 - mishap) * math.prod((p for _, p in combination), start=Fraction(1))
        throws.append((probability, tuple(face for face, _ in combination)))
    return throws


def _engine_outcomes(game: ReferenceGame, state: State, name: str) -> dict[object, float]:
    """Return what option ``name`` leads to by the engine, with each outcome's probability."""
    before = _engine_state(game, state)
    action = parse_action(name)
    rows: list[tuple[Fraction, tuple[int, ...] | None]] = [(Fraction(1), ())]
    if not isinstance(action, Hold):
        rows = _throws(game.variant.roll_spec(action.dice if game.variant.chooses_dice else None))
    outcomes: dict[object, Fraction] = {}
    for probability, faces in rows:
        after, _ = apply(before, action, ScriptedDice([faces]))
        key = _engine_key(game, after)
        outcomes[key] = outcomes.get(key, Fraction(0)) + probability
    return {key: float(probability) for key, probability in outcomes.items()}


# The fast tier keeps one game of each ending and player count; the other rules' games (tie rules, other
# dice) run in the slow tier, where CI runs them too.
SLOW = pytest.mark.slow

ENGINE_CASES = [
    ("pig", 4, "final-round", 3, 6, {"ties": "first-to-reach"}),
    ("pig", 4, "equal-turns", 3, 6, {"ties": "shared"}),
    ("pig", 2, "final-round", 4, 3, {"ties": "shared"}),
    pytest.param("pig-dice", 5, "final-round", 3, 7, {"final_turn": "roll"}, marks=SLOW),
    ("two-dice-pig", 5, "equal-turns", 3, 7, {}),
    ("big-pig-score-25", 5, "final-round", 2, 8, {}),
    pytest.param("freys-pig", 5, "equal-turns", 3, 7, {}, marks=SLOW),
    pytest.param("hog", 5, "final-round", 3, None, {"ties": "first-to-reach"}, marks=SLOW),
    ("hog-reroll", 5, "final-round", 3, 7, {"final_turn": "roll", "max_dice": 2}),
    pytest.param("piggy-six-3dice", 4, "equal-turns", 3, 5, {}, marks=SLOW),
    ("pass-the-pigs", 4, "first-to-goal", 3, None, {"oinker": "1/50"}),
]


@pytest.mark.parametrize(("name", "goal", "endgame", "players", "cap", "rules"), ENGINE_CASES)
def test_every_move_leads_where_the_engine_goes(name, goal, endgame, players, cap, rules):
    game = _game(name, goal, endgame, players, cap, **rules)
    for state in game.states[:: max(1, len(game) // 80)]:
        for option, outcomes in game._moves(state):
            mine: dict[object, float] = {}
            for probability, outcome in outcomes:
                mine[outcome] = mine.get(outcome, 0.0) + probability
            engine = _engine_outcomes(game, state, option)
            assert mine.keys() == engine.keys(), (state, option)
            for key, probability in mine.items():
                assert probability == pytest.approx(engine[key], abs=1e-15), (state, option, key)


# -- properties of every solution -------------------------------------------------------------
SUM_CASES = [
    ("pig", 6, "first-to-goal", 3, None, {}),
    ("pig", 6, "final-round", 3, 8, {"ties": "shared"}),
    pytest.param("pig", 6, "final-round", 3, 8, {"ties": "first-to-reach"}, marks=SLOW),
    ("pig", 6, "equal-turns", 3, 8, {"ties": "shared"}),
    pytest.param("pig", 6, "equal-turns", 3, 8, {"ties": "first-to-reach"}, marks=SLOW),
    ("pig", 3, "final-round", 4, 3, {"ties": "shared"}),
    ("pig", 3, "equal-turns", 4, 4, {"ties": "first-to-reach"}),
    pytest.param("pig-dice", 5, "final-round", 3, 7, {"final_turn": "roll"}, marks=SLOW),
    ("pig-dice", 8, "final-round", 2, 12, {"final_turn": "turn", "ties": "shared"}),
    ("two-dice-pig", 6, "final-round", 2, 10, {"ties": "first-to-reach"}),
    ("two-dice-pig", 5, "equal-turns", 3, 7, {}),
    pytest.param("hog", 5, "final-round", 3, None, {"ties": "shared"}, marks=SLOW),
    pytest.param("hog", 6, "equal-turns", 3, None, {"ties": "first-to-reach"}, marks=SLOW),
    ("hog-reroll", 5, "final-round", 3, 7, {"final_turn": "roll", "ties": "shared", "max_dice": 2}),
    pytest.param("piggy-six-3dice", 4, "equal-turns", 3, 5, {}, marks=SLOW),
    ("big-pig-score-25", 6, "final-round", 2, 10, {}),
]


@pytest.mark.parametrize(("name", "goal", "endgame", "players", "cap", "rules"), SUM_CASES)
def test_the_shares_sum_to_one_everywhere(name, goal, endgame, players, cap, rules):
    game = _game(name, goal, endgame, players, cap, **rules)
    for position in game.positions():
        assert sum(game.values(position)) == pytest.approx(1.0, abs=EXACT), position
        for option, vector in game.action_vectors(position).items():
            assert sum(vector) == pytest.approx(1.0, abs=EXACT), (position, option)
            assert all(-EXACT <= share <= 1.0 + EXACT for share in vector), (position, option)


@pytest.mark.parametrize(
    ("name", "goal", "endgame", "cap"),
    [("pig", 8, "first-to-goal", None), ("hog", 8, "first-to-goal", None), ("pig", 6, "final-round", 8)],
)
def test_three_player_values_do_not_depend_on_the_seat(name, goal, endgame, cap):
    # first to the goal and the final round treat every seat alike (equal turns do not)
    game = _game(name, goal, endgame, 3, cap)
    seen = 0
    for position in game.positions():
        if position.seat == 0:
            for seat in (1, 2):
                moved = Position(position.scores, position.turn_total, seat, position.final)
                assert game.values(moved) == pytest.approx(game.values(position), abs=1e-13), moved
                assert game.best(moved) == game.best(position), moved
                seen += 1
    assert seen == 2 * len(game) // 3


def test_equal_turns_the_last_seat_reaching_the_goal_ends_the_game():
    game = _game("pig", 6, "equal-turns", 3, 8)
    # seat 2 (the last) at 2 with 4 in hand: holding ends the game at once, ahead of the others
    last = Position((2, 3, 5), turn_total=4, seat=2)
    assert game.values(last) == (1.0, 0.0, 0.0)
    assert game.action_values(last) == {"hold": 1.0}
    assert game.best(last) == "hold"
    engine_state = _engine_state(game, game.state(last))
    assert apply(engine_state, Hold(), ScriptedDice([]))[0].winners == (2,)
    # seat 1 reaching the goal gives seat 2 (only) a last turn; seat 0 a last turn to seats 1 and 2
    reach1 = Position((2, 3, 5), turn_total=4, seat=1)
    hold1 = game.action_vectors(reach1)["hold"]  # mover first: seats 1, 2, 0
    after1 = game.values(Position((3, 5, 6), seat=2, final=()))  # seats 2, 0, 1
    assert hold1 == pytest.approx((after1[2], after1[0], after1[1]), abs=1e-15)
    assert 0.0 < hold1[0] < 1.0
    reach0 = Position((2, 3, 5), turn_total=4, seat=0)
    hold0 = game.action_vectors(reach0)["hold"]  # seats 0, 1, 2
    after0 = game.values(Position((3, 5, 6), seat=1, final=(1,)))  # seats 1, 2, 0
    assert hold0 == pytest.approx((after0[2], after0[0], after0[1]), abs=1e-15)


@pytest.mark.parametrize(
    ("name", "goal", "endgame", "players", "cap", "rules"),
    [
        ("pig", 6, "final-round", 3, 8, {"ties": "shared"}),  # the games of SUM_CASES, built once
        ("pig", 6, "final-round", 3, 8, {"ties": "first-to-reach"}),
        ("pig", 6, "equal-turns", 3, 8, {"ties": "shared"}),
        ("two-dice-pig", 6, "final-round", 2, 12, {"ties": "first-to-reach"}),
        pytest.param("hog-reroll", 5, "equal-turns", 3, 8, {"ties": "shared", "max_dice": 2}, marks=SLOW),
    ],
)
def test_a_last_turn_never_holds_behind_the_leader(name, goal, endgame, players, cap, rules):
    game = _game(name, goal, endgame, players, cap, **rules)
    shared = game.variant.ties is TieRule.SHARED
    checked = 0
    for position in game.positions():
        if position.final is None:
            continue
        values = game.action_values(position)
        if "hold" not in values or len(values) == 1:
            continue
        leader, _ = position.leaders(game.goal)
        banked = position.scores[0] + position.turn_total
        if banked < leader or (banked == leader and not shared):
            assert values["hold"] == 0.0, position  # holding loses
            rolls = [v for option, v in values.items() if option != "hold"]
            if max(rolls) > 0.0:  # a roll can still win (the cap may forbid it)
                assert game.best(position) != "hold", position
                checked += 1
    assert checked > 20


# -- by hand ----------------------------------------------------------------------------------
def test_two_player_pig_to_2_values_by_hand():
    # Pig, goal 2, final round. Cap 2: every roll but a 1 (r = 2..6) reaches the cap, so the
    # first player to avoid a 1 banks r, and the other then gets one roll in their last turn:
    # they win with a higher r' (6 - r of 6), tie with the same (1 of 6), bust with a 1. Their
    # share is w(r) = (6 - r)/6 + t/6, t the tie's worth (1/2 shared, 0 first to reach); on
    # average over r = 2..6: 1/3 + t/6. The starting player, x = P(start), rolls (a pass at 0
    # is worse): x = (1/6)(1 - x) + (5/6)(1 - 1/3 - t/6), so shared x = 47/84, first to reach 13/21.
    shared = reference_game(find_variant("pig", goal=2, endgame="final-round", ties="shared"), 2, cap=2)
    first = reference_game(find_variant("pig", goal=2, endgame="final-round", ties="first-to-reach"), 2, cap=2)
    assert shared.values(Position((0, 0))) == pytest.approx((47 / 84, 37 / 84), abs=1e-14)
    assert first.values(Position((0, 0))) == pytest.approx((13 / 21, 8 / 21), abs=1e-14)
    assert shared.values(Position((0, 3), final=())) == pytest.approx((7 / 12, 5 / 12), abs=1e-14)  # w(3)
    # Cap 3. A last turn from 0 against 2: a 1 loses; a 2 ties, and rolling on (5/6: any 2..6
    # passes 2) beats holding the tie (1/2); 3..6 win. 1/6 * 5/6 + 4/6 = 29/36.
    # Against 3: a 2 must roll on (5/6); a 3 reaches the cap and holds the tie (1/2 shared, 0
    # first to reach); 4..6 win: 5/36 + 3/36 + 18/36 = 13/18 shared, 23/36 first to reach.
    shared3 = reference_game(find_variant("pig", goal=2, endgame="final-round", ties="shared"), 2, cap=3)
    first3 = reference_game(find_variant("pig", goal=2, endgame="final-round", ties="first-to-reach"), 2, cap=3)
    assert shared3.values(Position((0, 2), final=()))[0] == pytest.approx(29 / 36, abs=1e-14)
    assert shared3.action_values(Position((0, 2), 2, final=())) == pytest.approx({"hold": 0.5, "roll": 5 / 6})
    assert shared3.values(Position((0, 3), final=()))[0] == pytest.approx(13 / 18, abs=1e-14)
    assert first3.values(Position((0, 3), final=()))[0] == pytest.approx(23 / 36, abs=1e-14)
    # the first player holding 2 gives those last turns: 1 - 29/36; at 3 it must hold: 1 - 13/18
    assert shared3.action_values(Position((0, 0), 2))["hold"] == pytest.approx(7 / 36, abs=1e-14)
    assert shared3.values(Position((0, 0), 3)) == pytest.approx((5 / 18, 13 / 18), abs=1e-14)
    assert shared3.action_values(Position((0, 0), 3)) == pytest.approx({"hold": 5 / 18})


def test_three_player_first_to_goal_hog_one_throw_to_2_by_hand():
    # Hog with one die, goal 2, three players: a throw of 2..6 wins (5/6), a 1 passes the turn.
    # Seat 0 wins with (5/6)(1 + q + q^2 + ...) over rounds of three throws, q = (1/6)^3.
    game = reference_game(find_variant("hog", goal=2, max_dice=1), 3)
    q = (1 / 6) ** 3
    first = (5 / 6) / (1 - q)
    expected = (first, first / 6, first / 36)
    assert game.values(Position((0, 0, 0))) == pytest.approx(expected, abs=1e-14)
    assert game.values(Position((1, 1, 1), seat=2)) == pytest.approx(expected, abs=1e-14)


# -- what it refuses --------------------------------------------------------------------------
def test_refusals():
    with pytest.raises(ValueError, match="cap"):
        reference_game(find_variant("pig", goal=6, endgame="final-round"), 2)
    with pytest.raises(ValueError, match="cap"):
        reference_game(find_variant("pig", goal=6, endgame="final-round"), 2, cap=5)
    with pytest.raises(ValueError, match="simultaneous"):
        reference_game(find_variant("swine-herd", goal=6), 2)
    reference_game(find_variant("hog", goal=6, endgame="equal-turns", max_dice=2), 2)  # one throw: no cap needed
    game = reference_game(find_variant("pig", goal=4), 2)
    with pytest.raises(KeyError, match="not a state"):
        game.values(Position((9, 0), 30))


def test_endless_passing_is_found_and_can_be_refused():
    # Capping only the player who reaches the goal makes reaching it first a bad deal at a
    # small goal: near it both players pass (hold at 0) for ever, and the values are open.
    variant = find_variant("pig", goal=8, endgame="final-round")
    with pytest.raises(EndlessGameError, match="passes forever"):
        reference_game(variant, 2, cap=12, cap_last_turn=False, refuse_endless=True)
    game = reference_game(variant, 2, cap=12, cap_last_turn=False)
    assert game.endless
    scores = game.endless[0]
    for seat in (0, 1):
        assert game.best(Position((scores[seat], scores[1 - seat]), seat=seat)) == "hold"
    assert reference_game(variant, 2, cap=12).endless == []  # a capped last turn: no passing


def test_position_round_trip():
    game = _game("pig", 5, "final-round", 3, 7)
    for position in game.positions():
        assert game.position(game.state(position)) == position
    assert game.variant.endgame is Endgame.FINAL_ROUND
