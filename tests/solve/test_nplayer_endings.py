"""The exact 3-player solver under a final round and equal turns (``solve_players`` with an ending)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pigdice.engine.game import apply, new_game, parse_action
from pigdice.errors import BadParameterError
from pigdice.players.optimal import position_of
from pigdice.rules import find_variant
from pigdice.rules.variant import Variant
from pigdice.solve.exact import exact_policy, exactness
from pigdice.solve.n.nplayer import PlayersPolicy, solve_players
from pigdice.solve.positions import INDIFFERENCE, Position
from pigdice.study.evaluate import wilson_interval

from .reference_games import (
    ReferenceGame,
    one_step_answers,
    position_at,
    position_row,
    reference_game,
    rules_only,
    stored_answers,
)

EXACT = 1e-12


# Small games checked at every position against the plain-Python reference (tests/solve/reference_games.py).
# The cap binds the player who reaches the goal and a last turn with someone after it; the very last turn
# is not capped (cap_last_turn=False), as the solver plays it. Caps are large enough that no scores make
# every player pass forever (at Pig goal 6 a cap of 16 does: a war of attrition the rules leave open).
REFERENCE_CASES = [
    ("pig", 5, "final-round", "first-to-reach", "turn", 20),
    ("two-dice-pig", 4, "final-round", "shared", "turn", 20),
    ("pig", 5, "equal-turns", "shared", "turn", 20),
    ("pig", 5, "final-round", "first-to-reach", "roll", 20),
    ("pig-dice", 4, "final-round", "first-to-reach", "roll", 12),
    ("hog", 6, "final-round", "shared", "turn", None),
]
Case = tuple[str, int, str, str, str, int | None]
# the reference's answers, built once by tests/data/make_endings_reference.py (a minute for the largest case)
ENDINGS_DATA = Path(__file__).parents[1] / "data" / "endings"
SOURCE = (
    "the plain-Python reference game of tests/solve/reference_games.py (reference_game with cap_last_turn=False, "
    "refuse_endless=True), written by tests/data/make_endings_reference.py"
)
LIVE_CASE = ("pig-dice", 4, "final-round", "first-to-reach", "roll", 12)  # the smallest: built live in a second
SPOT_CHECKS = 300  # stored positions per file checked by one step of the reference's rules


def case_variant(case: Case) -> Variant:
    """Return the variant of one reference case."""
    name, goal, endgame, ties, final_turn, _ = case
    params = {"max_dice": 3} if name == "hog" else {}
    return find_variant(name, goal=goal, endgame=endgame, ties=ties, final_turn=final_turn, **params)


def case_reference(case: Case) -> ReferenceGame:
    """Build the plain-Python reference game of one case."""
    return reference_game(case_variant(case), 3, case[5], cap_last_turn=False, refuse_endless=True)


def case_file(case: Case) -> Path:
    """Return the golden file of one case, e.g. tests/data/endings/pig-5-final-round-first-to-reach-turn-cap20.npz."""
    name, goal, endgame, ties, final_turn, cap = case
    return ENDINGS_DATA / f"{name}-{goal}-{endgame}-{ties}-{final_turn}-cap{cap or 'none'}.npz"


def stored(case: Case) -> dict[str, np.ndarray]:
    """Return the stored answers of one case, after checking that the file states its case and source."""
    with np.load(case_file(case)) as data:
        answers = {key: data[key] for key in data.files}
    assert list(answers.pop("case")) == [str(v) for v in case]
    assert str(answers.pop("source")) == SOURCE
    return answers


def solver_answers(policy: PlayersPolicy, positions: np.ndarray, options: list[str]) -> dict[str, np.ndarray]:
    """Ask the solver at every stored position (one position at a time: the policy answers no batches)."""
    win = np.empty((len(positions), 3))
    best = np.empty(len(positions), dtype=np.int8)
    values = np.full((len(positions), len(options)), np.nan)
    column = {option: c for c, option in enumerate(options)}
    for i, row in enumerate(positions.tolist()):
        position = position_at(row)
        win[i] = policy.win_vector(position)
        best[i] = column[policy.best(position)]
        for option, value in policy.action_values(position).items():
            values[i, column[option]] = value
    return {"win": win, "best": best, "action_values": values}


_SOLVED: dict[Case, PlayersPolicy] = {}


def solved(case: Case) -> PlayersPolicy:
    """Return the solver's policy of one case, solved once per session (each case is checked seat by seat)."""
    if case not in _SOLVED:
        _SOLVED[case] = solve_players(case_variant(case), 3, cap=case[5] or 0)
    return _SOLVED[case]


@pytest.mark.slow
@pytest.mark.parametrize("seat", range(3))
@pytest.mark.parametrize("case", REFERENCE_CASES, ids=lambda case: case_file(case).stem)
def test_three_players_endings_equal_the_reference_everywhere(case, seat):
    """Every decision point the reference solves with ``seat`` to move (tests/data/endings: 6,348 to 218,826
    positions a case, all seats): the solver's win vector, best option and every option's value equal the
    reference's. One seat a test keeps each under 60 s on a busy machine (the solver answers one position
    at a time)."""
    expected = stored(case)
    mine = expected["positions"][:, 0] == seat
    assert mine.any()
    for key in ("positions", "win", "best", "action_values"):
        expected[key] = expected[key][mine]
    policy = solved(case)
    assert policy.truncation == 0.0
    found = solver_answers(policy, expected["positions"], [str(o) for o in expected["options"]])
    positions = expected["positions"]
    wrong = np.flatnonzero(found["best"] != expected["best"])
    assert not wrong.size, [(position_at(positions[i]), found["best"][i], expected["best"][i]) for i in wrong[:5]]
    legal = ~np.isnan(expected["action_values"])
    assert np.array_equal(~np.isnan(found["action_values"]), legal)  # the same options everywhere
    assert np.abs(found["win"] - expected["win"]).max() < EXACT
    assert np.abs(found["action_values"][legal] - expected["action_values"][legal]).max() < EXACT


def test_the_smallest_reference_built_live_equals_its_file():
    """The reference code itself still runs and still gives, array for array, what its file holds."""
    live = stored_answers(case_reference(LIVE_CASE))
    expected = stored(LIVE_CASE)
    assert live.keys() == expected.keys()
    for key, array in live.items():
        assert np.array_equal(array, expected[key], equal_nan=array.dtype.kind == "f"), key


@pytest.mark.parametrize("case", REFERENCE_CASES, ids=lambda case: case_file(case).stem)
def test_every_file_agrees_with_one_step_of_the_reference_rules(case):
    """At a seeded sample of stored positions, one step of the reference's rules over the stored values of the
    positions it leads to gives the stored answers (a damaged or stale file fails here)."""
    data = stored(case)
    positions, options = data["positions"], [str(o) for o in data["options"]]
    assert positions.dtype == np.int16 and len(positions) == len(data["win"]) == len(data["best"]) > 0
    keys = [tuple(row) for row in positions[:, [0, 5, 1, 2, 3, 4]].tolist()]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)  # the canonical order, no position twice
    index = {tuple(row): i for i, row in enumerate(positions.tolist())}
    game = rules_only(case_variant(case), 3, case[5], cap_last_turn=False)

    def win_at(position: Position) -> tuple[float, ...]:
        return tuple(data["win"][index[position_row(position)]])

    rng = np.random.default_rng(29)
    for i in rng.choice(len(positions), size=min(SPOT_CHECKS, len(positions)), replace=False):
        position = position_at(positions[i])
        win, best, values = one_step_answers(game, position, win_at)
        assert options[data["best"][i]] == best, position
        assert np.abs(np.array(win) - data["win"][i]).max() < EXACT, position
        stored_values = {o: v for o, v in zip(options, data["action_values"][i], strict=True) if not np.isnan(v)}
        assert stored_values.keys() == values.keys(), position
        assert max(abs(stored_values[o] - v) for o, v in values.items()) < EXACT, position


def test_equal_turns_a_goal_reached_from_the_last_seat_ends_the_game():
    policy = solve_players(find_variant("pig", goal=20, endgame="equal-turns"), 3)
    for scores in ((10, 15, 18), (19, 0, 0)):
        for k in range(20 - scores[0], 30 - scores[0]):
            assert policy.win_vector(Position(scores, k, seat=2)) == (1.0, 0.0, 0.0)
            assert policy.best(Position(scores, k, seat=2)) == "hold"
        # from the first seat the others still play, so holding at the goal is worth less than a sure win
        assert policy.win_vector(Position(scores, 20 - scores[0], seat=0))[0] < 1.0


@pytest.mark.parametrize("ties", ["first-to-reach", "shared"])
def test_the_last_player_rolls_until_passing_the_leader(ties):
    goal = 20
    policy = solve_players(find_variant("pig", goal=goal, endgame="final-round", ties=ties), 3)
    for leader in (20, 25, 31):
        for other in (3, leader):  # the middle player finished below or level with the leader
            for score in (0, 12, 19):
                for k in range(0, leader - score + 3):
                    position = Position((score, leader, other), k, 0, ())  # X then Y have finished
                    best = policy.best(position)
                    if score + k > leader:
                        assert best == "hold"
                    elif score + k < leader:
                        assert best == "roll", (position, policy.action_values(position))


def test_the_middle_player_goes_past_the_leader_by_a_margin():
    # Y plays a last turn with Z still to play after: holding just past X's total hands Z an easy target
    policy = solve_players(find_variant("pig", goal=30, endgame="final-round"), 3)
    position = Position((10, 25, 30), 21, 0, (1,))  # Y on 31, one past X, Z on 25 to play
    assert policy.best(position) == "roll"
    stops = [k for k in range(21, 80) if policy.best(Position((10, 25, 30), k, 0, (1,))) == "hold"]
    assert stops and stops[0] > 21


@pytest.mark.parametrize("endgame", ["final-round", "equal-turns"])
def test_seat_probabilities_sum_to_one_and_values_are_vectors(endgame):
    policy = solve_players(find_variant("two-dice-pig", goal=25, endgame=endgame), 3)
    assert policy.values.min() >= 0.0 and policy.values.max() <= 1.0
    assert np.abs(policy.values.sum(axis=-1) - 1.0).max() < EXACT
    seats = policy.win_probability_by_seat()
    assert sum(seats) == pytest.approx(1.0, abs=EXACT)
    assert policy.residual < EXACT and policy.truncation <= 1e-12


@pytest.mark.slow
def test_the_ending_changes_the_odds():
    first = solve_players(find_variant("pig", goal=40).first_to_goal(), 3).win_probability_by_seat()
    final = solve_players(find_variant("pig", goal=40, endgame="final-round"), 3).win_probability_by_seat()
    equal = solve_players(find_variant("pig", goal=40, endgame="equal-turns"), 3).win_probability_by_seat()
    # the final round gives the later seats a reply: the first seat's edge shrinks; equal turns more so
    assert final[0] < first[0]
    assert equal[0] < first[0]
    assert len({round(v, 6) for v in (*first, *final, *equal)}) == 9


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "goal", "endgame", "games"),
    [("pig", 25, "final-round", 2500), ("pig", 25, "equal-turns", 2500), ("two-dice-pig", 25, "final-round", 2000)],
)
def test_exact_robots_play_their_values_through_the_engine(name, goal, endgame, games):
    variant = find_variant(name, goal=goal, endgame=endgame)
    policy = solve_players(variant, 3)
    rng = np.random.default_rng(goal * 7 + games)
    wins = [0.0] * 3
    for _ in range(games):
        state = new_game(variant, 3)
        while state.winners is None:
            state, _ = apply(state, parse_action(policy.best(position_of(state))), rng)
        for seat in state.winners:
            wins[seat] += 1.0 / len(state.winners)
    for seat, value in enumerate(policy.win_probability_by_seat()):
        low, high = wilson_interval(wins[seat], games, z=3.2905)  # 99.9% two-sided
        assert low <= value <= high, f"seat {seat}: {wins[seat]} of {games} against {value:.4f}"


def test_best_is_a_best_reply_everywhere_it_settles():
    policy = solve_players(find_variant("pig", goal=20, endgame="final-round"), 3)
    for scores in ((0, 0, 0), (15, 3, 9), (19, 19, 0)):
        for k in range(0, 40 - scores[0]):
            values = policy.action_values(Position(scores, k))
            assert values[policy.best(Position(scores, k))] >= max(values.values()) - INDIFFERENCE


def test_save_and_load_keep_the_last_turns(tmp_path: Path):
    variant = find_variant("pig", goal=15, endgame="equal-turns")
    policy = solve_players(variant, 3)
    path = tmp_path / "p.npz"
    policy.save(path)
    loaded = PlayersPolicy.load(path, variant, 3)
    assert np.array_equal(loaded.values, policy.values) and np.array_equal(loaded.banked, policy.banked)
    position = Position((9, 14, 3), 0, 1, None)
    assert loaded.win_vector(position) == policy.win_vector(position)
    with pytest.raises(BadParameterError, match="other parameters"):
        PlayersPolicy.load(path, find_variant("pig", goal=15, endgame="equal-turns", ties="first-to-reach"), 3)
    with pytest.raises(BadParameterError, match="shape"):
        PlayersPolicy.load(path, find_variant("pig", goal=15, endgame="final-round"), 3)
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(BadParameterError, match="damaged"):
        PlayersPolicy.load(path, variant, 3)


def test_exact_dispatch_and_limits():
    assert exactness(find_variant("freys-pig"), 3) is None
    assert "2 to 4 players" in (exactness(find_variant("freys-pig"), 5) or "")
    policy = exact_policy(find_variant("freys-pig", goal=15), 3, use_cache=False)
    assert isinstance(policy, PlayersPolicy) and policy.seats == 3
    with pytest.raises(BadParameterError, match="2 to 4 players"):
        solve_players(find_variant("pig", goal=10, endgame="final-round"), 5)
    with pytest.raises(BadParameterError, match="cap"):
        solve_players(find_variant("pig", goal=10, endgame="final-round"), 3, cap=10)


def test_positions_the_policy_does_not_answer_are_refused_clearly():
    policy = solve_players(find_variant("pig", goal=10, endgame="final-round"), 3)
    with pytest.raises(BadParameterError, match="final round is on"):
        policy.best(Position((3, 12, 0)))
    with pytest.raises(BadParameterError, match="at or past the goal"):
        policy.best(Position((3, 5, 4), 0, 0, (1,)))  # nobody finished on the goal
    with pytest.raises(BadParameterError, match="past the"):
        policy.best(Position((3, 5, 4), 999_999))  # beyond the totals the solve follows: refused with the bound
    with pytest.raises(BadParameterError, match="owed a last turn"):
        policy.best(Position((3, 11, 12), 0, 0, (1,)))


@pytest.mark.parametrize(
    ("name", "goal", "endgame", "ties"),
    [
        pytest.param("pig-dice", 12, "final-round", "first-to-reach", marks=pytest.mark.slow),
        ("pig", 10, "equal-turns", "shared"),
        ("hog", 9, "final-round", "shared"),
    ],
)
def test_the_banked_table_swept_once_per_difference_equals_the_table_swept_per_score(name, goal, endgame, ties):
    # Y's last turn depends only on M - b and M - c: sweeping each pair once must give, bit for bit,
    # what sweeping every (M, b, c) gives
    from pigdice.solve.memory import banked_cells
    from pigdice.solve.n.finalturns import banked_table, last_tables, last_turn_game
    from pigdice.solve.tables import effect_table

    variant = find_variant(name, goal=goal, endgame=endgame, ties=ties)
    table = effect_table(variant)
    width = 40
    L = last_tables(variant, table, 3, goal + width + 512)
    equal_turns = endgame == "equal-turns"
    tables = []
    for shifts in (True, False):
        FT = np.full((1, width, banked_cells(goal, 3, equal_turns), 3), np.nan)
        banked_table(last_turn_game(variant, table, L), goal, equal_turns, shifts, FT)
        tables.append(FT)
    assert not np.isnan(tables[0]).any()
    assert np.array_equal(tables[0], tables[1])


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("goal", [2, 7, 100])
def test_each_seat_class_of_the_banked_table_has_cells_of_its_own(players, goal):
    # under equal turns the seat X banks from decides who still plays: its class holds goal^j cells for the
    # j seats after it, back to back; under the final round every seat reads the one class of goal^(n-1)
    from pigdice.solve.memory import banked_cells
    from pigdice.solve.n.rows import banked_layout

    layout = banked_layout(goal, players, True)
    assert list(layout[:, 2]) == list(range(players - 1, -1, -1))
    ends = [first + goal**after for first, _, after in layout]
    assert list(layout[1:, 0]) == ends[:-1] and ends[-1] == banked_cells(goal, players, True)
    # the divisor keeps the leading `after` scores of the others' flat index (turn order from X)
    assert all(divisor * goal**after == goal ** (players - 1) for _, divisor, after in layout)
    final = banked_layout(goal, players, False)
    assert (final == [0, 1, players - 1]).all() and banked_cells(goal, players, False) == goal ** (players - 1)
