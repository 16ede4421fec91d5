"""The values shipped with the package are a fresh solve's, and the plain-Python policies over them answer as the
kernels' policies do: the same options, values (to 1e-12), choices and errors, at every position."""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from pigdice.errors import PigdiceError
from pigdice.rules import find_variant
from pigdice.rules.registry import all_variants
from pigdice.rules.variant import Decision, Endgame, Variant
from pigdice.solve import shipped
from pigdice.solve.exact import ExactPolicy, exact_policy
from pigdice.solve.positions import Position
from pigdice.solve.quickpolicy import QuickPolicy, quick_policy
from pigdice.solve.shipped import data_path, game_key, is_shipped, shipped_policy, solved_arrays

REGISTERED = [v.name for v in all_variants()]
# first to the goal, roll or hold: a fresh solve at goal 100 takes a fraction of a second
CHEAP = [v.name for v in all_variants() if v.endgame is Endgame.FIRST_TO_GOAL and v.decision is Decision.ROLL_HOLD]
DEARER = [name for name in REGISTERED if name not in CHEAP]
MAX_BYTES = 1_300_000  # the shipped file is 1,204,273 bytes (17 games)


def test_every_registered_variant_ships_and_the_file_stays_small() -> None:
    assert data_path().stat().st_size < MAX_BYTES
    for variant in all_variants():
        assert is_shipped(variant), variant.name
        assert isinstance(shipped_policy(variant), ExactPolicy)


def test_other_goals_endings_rules_and_player_counts_do_not_ship() -> None:
    pig = find_variant("pig")
    assert shipped_policy(pig.with_goal(50)) is None
    assert shipped_policy(pig, players=3) is None
    assert shipped_policy(find_variant("pig", endgame="final-round")) is None
    assert shipped_policy(find_variant("pig-dice", ties="shared")) is None
    assert shipped_policy(find_variant("swine-herd", at_goal="roll-on")) is None
    assert shipped_policy(find_variant("pass-the-pigs", oinker="1/50")) is None
    assert game_key(find_variant("freys-pig")) != game_key(find_variant("freys-pig", ties="shared"))


def test_a_damaged_file_ships_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    damaged = tmp_path / "shipped.npz"
    damaged.write_bytes(data_path().read_bytes()[:50_000])
    monkeypatch.setattr(shipped, "data_path", lambda: damaged)
    monkeypatch.setattr(shipped, "_LOADED", {})
    assert shipped_policy(find_variant("pig")) is None
    assert not is_shipped(find_variant("pig"))


@cache
def fresh_solve(name: str) -> ExactPolicy:
    """Solve registered variant ``name`` for 2 players at its goal, without any cache, once per test run."""
    return exact_policy(find_variant(name), 2, use_cache=False)


def _assert_shipped_values_are_a_fresh_solve(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    variant = find_variant(name)
    # solved_arrays solves with the kernels; the dearer games' solve is shared with the answers test below
    monkeypatch.setattr("pigdice.solve.exact.exact_policy", lambda v, players, use_cache: fresh_solve(v.name))
    arrays, _ = solved_arrays(variant)
    policy = shipped_policy(variant)
    assert policy is not None
    shipped_arrays = [policy.values] + ([policy.last] if hasattr(policy, "last") else [])
    assert len(shipped_arrays) == len(arrays)
    for mine, fresh in zip(shipped_arrays, arrays, strict=True):
        assert mine.shape == fresh.shape
        np.testing.assert_allclose(mine, fresh, atol=1e-12, rtol=0)


@pytest.mark.parametrize("name", CHEAP)
def test_shipped_values_equal_a_fresh_solve(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _assert_shipped_values_are_a_fresh_solve(name, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("name", DEARER)
def test_shipped_values_equal_a_fresh_solve_for_the_dearer_games(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _assert_shipped_values_are_a_fresh_solve(name, monkeypatch)


# -- the quick policies against the kernels' --------------------------------------------------------------


PER_ROW = 6  # positions drawn from each drawn row of the quick policy (its rows cost a plain-Python turn each)


def drawn_in_rows(
    cells: list[tuple[int, int, int, int]], rng: random.Random, count: int
) -> list[tuple[int, int, int, int]]:
    """Return ``count`` cells (scores, turn total, flag) drawn with ``rng``: rows (scores, flag) in a random
    order, up to ``PER_ROW`` turn totals of each, so every row drawn is compared at several totals."""
    by_row: dict[tuple[int, int, int], list[tuple[int, int, int, int]]] = {}
    for cell in cells:
        by_row.setdefault((cell[0], cell[1], cell[3]), []).append(cell)
    drawn: list[tuple[int, int, int, int]] = []
    for row in rng.sample(sorted(by_row), len(by_row)):
        drawn += rng.sample(by_row[row], min(PER_ROW, len(by_row[row])))
        if len(drawn) >= count:
            break
    return drawn[:count]


def positions(variant: Variant, rng: random.Random | None = None, count: int = 0) -> Iterator[Position]:
    """Yield the positions to compare: all of them at a small goal, or ``count`` drawn with ``rng``."""
    goal = variant.goal
    if variant.is_simultaneous:
        cells = [(a, b, t, up) for a in range(goal) for b in range(2 * goal) for t in range(2 * goal) for up in (0, 1)]
    elif variant.endgame is Endgame.FIRST_TO_GOAL:
        totals = [0] if variant.decision is Decision.DICE_PER_TURN else range(goal + 3)
        cells = [(i, j, k, 0) for i in range(goal) for j in range(goal) for k in totals]
    else:
        seats = 2 if variant.endgame is Endgame.EQUAL_TURNS else 1
        cells = [
            (i, j, k, s) for i in range(goal) for j in range(goal + 6) for k in range(goal + 8) for s in range(seats)
        ]
    if rng is not None:
        cells = drawn_in_rows(cells, rng, count)
    for a, b, t, flag in cells:
        if variant.is_simultaneous:
            if t == 0 and not flag:
                continue
            yield Position((a, b), t, 0, None, (True, bool(flag)))
        elif b >= goal:  # the other player has reached the goal: the mover's last turn
            yield Position((a, b), t, 1 if variant.endgame is Endgame.EQUAL_TURNS else 0, ())
        else:
            yield Position((a, b), t, flag)


def assert_same_answers(real: ExactPolicy, quick: QuickPolicy, position: Position) -> bool:
    """Assert both policies answer alike at ``position`` (or refuse it alike); return True if they answered."""
    try:
        values = real.action_values(position)
    except PigdiceError as exc:
        with pytest.raises(PigdiceError) as refused:
            quick.action_values(position)
        assert str(refused.value) == str(exc), position
        return False
    mine = quick.action_values(position)
    assert list(mine) == list(values), position
    for option, value in values.items():
        assert mine[option] == pytest.approx(value, abs=1e-12), (position, option)
    assert quick.best(position) == real.best(position), (position, values)
    assert quick.win_vector(position) == pytest.approx(real.win_vector(position), abs=1e-12), position
    strategy = real.strategy(position)
    assert quick.strategy(position) == pytest.approx(strategy, abs=1e-12), position
    return True


SMALL = [  # every effect kind, decision and ending the quick rows follow, at a small goal
    ("pig", {}),
    ("two-dice-pig", {}),  # resets
    ("big-pig-knizia", {}),  # set
    ("pig-dice", {}),  # double and subtract under a final round
    ("pig-dice", {"final_turn": "roll"}),  # one last throw
    ("pig-dice", {"endgame": "equal-turns", "ties": "shared"}),
    ("freys-pig", {}),  # bank, equal turns
    ("freys-pig", {"endgame": "final-round", "ties": "shared"}),
    ("hog", {"max_dice": 5}),  # one throw per turn
    ("hog-reroll", {"max_dice": 4}),  # dice per roll
    ("piggy-six", {}),  # resets under equal turns
    ("piggy-six-3dice", {}),
    ("swine-herd", {}),  # the house rule
    ("swine-herd", {"at_goal": "roll-on"}),  # endless turns: the stationary stage
]


@pytest.mark.parametrize(("name", "params"), SMALL, ids=[f"{n}-{'-'.join(map(str, p.values()))}" for n, p in SMALL])
def test_quick_policies_answer_as_the_kernels_do_at_every_position(name: str, params: dict[str, object]) -> None:
    variant = find_variant(name, goal=6, **params)
    real = exact_policy(variant, 2, use_cache=False)
    arrays, figures = solved_arrays(variant)
    quick = quick_policy(variant, arrays, figures)
    answered = sum(assert_same_answers(real, quick, position) for position in positions(variant))
    assert answered >= 36  # Hog's (i, j) at goal 6; the others have turn totals too
    assert quick.win_probability_by_seat() == pytest.approx(real.win_probability_by_seat(), abs=1e-12)
    assert quick.states == real.states


@pytest.mark.slow
@pytest.mark.parametrize("name", REGISTERED)
def test_shipped_policies_answer_as_the_kernels_do_at_their_own_goal(name: str) -> None:
    variant = find_variant(name)
    real = fresh_solve(name)
    quick = shipped_policy(variant)
    assert quick is not None
    answered = sum(assert_same_answers(real, quick, p) for p in positions(variant, random.Random(name), 600))
    assert answered > 200


def test_a_quick_policy_saves_the_file_its_solver_reads(tmp_path: Path) -> None:
    from pigdice.solve.policy import Policy
    from pigdice.solve.two.endgame import EndgamePolicy

    pig, freys = find_variant("pig"), find_variant("freys-pig")
    race, ending = shipped_policy(pig), shipped_policy(freys)
    assert race is not None and ending is not None
    race.save(tmp_path / "pig.npz")
    ending.save(tmp_path / "freys.npz")
    np.testing.assert_array_equal(Policy.load(tmp_path / "pig.npz", pig).values, race.values)
    loaded = EndgamePolicy.load(tmp_path / "freys.npz", freys)
    np.testing.assert_array_equal(loaded.values, ending.values)
    np.testing.assert_array_equal(loaded.last, getattr(ending, "last", None))


def test_the_swine_herd_goal_limit_is_the_solver_s() -> None:
    from pigdice.solve.exact import HERD_GOAL
    from pigdice.solve.herd.swineherd import MAX_GOAL

    assert HERD_GOAL == MAX_GOAL


def test_the_perfect_player_turns_to_the_kernels_once_played_in_bulk(monkeypatch: pytest.MonkeyPatch) -> None:
    from pigdice.players import optimal

    monkeypatch.setattr(optimal, "BULK_ROWS", 3)
    variant = find_variant("big-pig-sevens")
    player = optimal.Optimal(variant)
    quick = player.exact(2)
    assert isinstance(quick, QuickPolicy)
    for score in range(4, 9):  # five new turn rows: a simulation or a learner at work
        quick.action_values(Position((score, 3), 0))
    solved = player.exact(2)
    assert not isinstance(solved, QuickPolicy)
    position = Position((40, 30), 7)
    assert solved.action_values(position) == pytest.approx(quick.action_values(position), abs=1e-12)
