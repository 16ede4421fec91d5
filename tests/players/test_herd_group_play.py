"""3-player Swine Herd played on its 3-player equilibrium: the robot, hints, the table's chances and the cache.

Goals up to HERD_GROUP_QUICK_GOAL solve in a second or two and are played exactly; a larger goal is played
exactly once its equilibrium is in the cache, and approximately (said so) until then.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from pigdice.engine.game import Action, GameState, dice_rng, new_game
from pigdice.engine.simultaneous import apply_choices, choosing_seats, seat_view
from pigdice.players.optimal import Optimal, approximation_note, position_of, seat_chances
from pigdice.rules import find_variant
from pigdice.solve import exact
from pigdice.solve.exact import exact_cache_path, exact_policy, exactness, is_cached
from pigdice.solve.herd.swineherd_n_policy import FORMAT_VERSION, SwineHerdNExact
from pigdice.solve.positions import Position
from pigdice.study.review import review_game

HERD = find_variant("swine-herd", goal=15)
MIXED = ((6, 6, 7), 3)  # all three standing after a roll to 3: the two players at 6 mix (found by a scan at goal 15)


@pytest.fixture(scope="module")
def herd() -> SwineHerdNExact:
    policy = exact_policy(HERD, 3)
    assert isinstance(policy, SwineHerdNExact) and policy.is_exact
    return policy


def _at(scores: tuple[int, ...], turn_total: int, standing: tuple[bool, ...] = (True, True, True)) -> GameState:
    return replace(new_game(HERD, 3), scores=scores, turn_total=turn_total, standing=standing, rolls_this_turn=1)


def test_a_quick_goal_is_played_exactly(herd: SwineHerdNExact) -> None:
    assert exact.HERD_GROUP_FORMAT == FORMAT_VERSION
    assert exactness(HERD, 3) is None and approximation_note(HERD, 3) is None
    assert isinstance(Optimal(HERD).exact(3), SwineHerdNExact)


def _play(
    seed: int, herd: SwineHerdNExact, moves: list[Action] | None = None
) -> tuple[list[tuple[int, str]], GameState, int]:
    """Play three perfect robots to the end (dice from ``seed``, as a record replays them: ``dice_rng``); return
    every choice, the final state and the mixed moments met; the moves in the order played go to ``moves``."""
    robots = [Optimal(HERD) for _ in range(3)]
    dice, choices_rng = dice_rng(seed), np.random.default_rng(seed + 1)
    state, taken, mixed = new_game(HERD, 3), [], 0
    while not state.is_terminal():
        choices = {}
        for seat in choosing_seats(state):
            view = seat_view(state, seat)
            choice = robots[seat].choose(view, choices_rng)
            name = "roll" if type(choice).__name__ == "Roll" else "hold"
            chances = herd.strategy(position_of(view))
            assert chances.get(name, 0.0) > 0.0  # only what the equilibrium plays
            mixed += len(chances) > 1
            choices[seat] = choice
            taken.append((seat, name))
            if moves is not None:
                moves.append(choice)
        state, _ = apply_choices(state, choices, dice)
    return taken, state, mixed


def test_the_robot_plays_the_equilibrium_to_the_end_by_its_seed(herd: SwineHerdNExact) -> None:
    games = [_play(seed, herd) for seed in range(6)]
    assert all(state.is_terminal() and state.winners for _, state, _ in games)
    assert sum(mixed for _, _, mixed in games) > 0  # some moments mix: those choices are drawn
    again = _play(3, herd)
    assert again[0] == games[3][0] and again[1].scores == games[3][1].scores  # same seed, same game
    assert len({tuple(taken) for taken, _, _ in games}) > 1


def test_a_hint_gives_the_equilibriums_values(herd: SwineHerdNExact) -> None:
    scores, t = MIXED
    hint = Optimal(HERD).hint(_at(scores, t))
    assert hint.approximate is None and hint.mix is not None and set(hint.mix) == {"sit", "stand"}
    # the solver's own stage game: every profile of sits and stays weighted by the others' equilibrium chances
    stage = herd.solved.stage(scores, t, (True, True, True))
    assert hint.mix["sit"] == pytest.approx(stage.sit[0], abs=1e-12)
    sit = stay = 0.0
    for others in itertools.product((0, 1), repeat=2):
        weight = np.prod([stage.sit[k + 1] if bit else 1 - stage.sit[k + 1] for k, bit in enumerate(others)])
        profile = others[0] << 1 | others[1] << 2
        sit += weight * stage.payoffs[profile | 1][0]
        stay += weight * stage.payoffs[profile][0]
    assert hint.values["sit"] == pytest.approx(sit, abs=1e-12)
    assert hint.values["stand"] == pytest.approx(stay, abs=1e-12)
    # a mix leaves the mover indifferent; at goal 15 the solver gives 0.0990660117 for both
    assert hint.values["sit"] == pytest.approx(hint.values["stand"], abs=1e-9)
    assert hint.win_probability == pytest.approx(0.0990660117, abs=1e-9)
    assert "mixes here" in hint.describe() and "approximate" not in hint.describe()


def test_the_tables_chance_is_every_seats_from_the_three_player_values(herd: SwineHerdNExact) -> None:
    advisor = Optimal(HERD)
    advisor.use_policy(herd)  # as the web hands its perfect player the policy from the solve pool
    for scores, t, standing in (
        ((0, 0, 0), 0, (True,) * 3),
        (*MIXED, (True,) * 3),
        ((9, 4, 12), 2, (True, False, True)),
    ):
        state = _at(scores, t, standing)
        policy = advisor.exact(3)
        assert policy is herd
        chances = seat_chances(state, policy.win_vector(position_of(state)))
        assert sum(chances) == pytest.approx(1.0, abs=1e-12)
        if t == 0:
            assert chances == pytest.approx(herd.solved.value(scores), abs=1e-12)
    even = seat_chances(_at((0, 0, 0), 0), herd.win_vector(Position((0, 0, 0))))
    assert even == pytest.approx((1 / 3,) * 3, abs=1e-9)  # never a 2-player 50%


def test_a_larger_goal_is_approximate_until_its_equilibrium_is_cached(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PIGDICE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(exact, "HERD_GROUP_QUICK_GOAL", 12)  # goal 15 now counts as a solve of minutes
    monkeypatch.setattr(exact, "_MEMORY", None)  # nothing solved in this process yet
    variant = find_variant("swine-herd", goal=15)
    assert not is_cached(variant, 3)
    reason = exactness(variant, 3) or ""
    assert "has not been worked out here yet" in reason
    robot = Optimal(variant)
    assert robot.exact(3) is None  # never a long solve by itself
    state = replace(new_game(variant, 3), scores=MIXED[0], turn_total=MIXED[1], rolls_this_turn=1)
    hint = robot.hint(state)
    assert hint.approximate and "2-player equilibrium against the opponent with the highest score" in hint.approximate
    assert "[approximate:" in hint.describe()
    solved = exact_policy(variant, 3, use_cache=False)
    solved.save(exact_cache_path(variant, 3))  # what `pigdice solve swine-herd --players 3` leaves behind
    assert is_cached(variant, 3) and exactness(variant, 3) is None
    loaded = Optimal(variant).exact(3)
    assert isinstance(loaded, SwineHerdNExact) and loaded.from_cache and loaded.is_exact
    assert np.array_equal(loaded.solved.tables.V, solved.solved.tables.V)
    assert loaded.gains == solved.gains and loaded.solved.statistics == solved.solved.statistics
    assert Optimal(variant).hint(state).values == pytest.approx({"sit": 0.0990660117, "stand": 0.0990660117})


def test_a_damaged_cache_file_is_removed_and_the_approximation_plays(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PIGDICE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(exact, "HERD_GROUP_QUICK_GOAL", 12)
    monkeypatch.setattr(exact, "_MEMORY", None)
    variant = find_variant("swine-herd", goal=15)
    path = exact_cache_path(variant, 3)
    path.write_bytes(b"not a policy")
    assert exactness(variant, 3) is None  # a file is there: play tries it
    assert Optimal(variant).exact(3) is None and not path.exists()
    assert exactness(variant, 3) is not None


def test_a_review_rates_choices_against_the_equilibrium(herd: SwineHerdNExact) -> None:
    moves: list[Action] = []
    _, final, _ = _play(4, herd, moves)
    review = review_game(HERD, ["You", "Wilbur", "Babe"], [True, False, False], 4, moves, Optimal(HERD))
    assert review.approximate is None and review.luck is not None  # exact: the 3-player values
    assert review.decisions and all(d.loss is not None and d.loss < 1e-6 for d in review.decisions)  # all on it
    for decision in review.decisions:
        assert decision.win_by_seat is not None and sum(decision.win_by_seat) == pytest.approx(1.0, abs=1e-9)
    first = review.decisions[0]
    state = _at(first.scores, first.turn_total)
    assert first.win_by_seat == pytest.approx(seat_chances(state, herd.win_vector(position_of(state))), abs=1e-12)
    assert final.is_terminal()


def test_a_large_solve_in_a_worker_comes_back_through_its_cache_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PIGDICE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(exact, "_MEMORY", None)
    variant = find_variant("swine-herd", goal=12)
    answer, _ = exact.solve_for_caller(variant, 3, 0, lambda fraction, label: None)  # the worker's side: saved
    assert isinstance(answer, exact.SavedPolicy) and Path(answer.path) == exact_cache_path(variant, 3)
    policy = exact._read_saved(answer, variant, 3)  # the caller's side: read back (as from goal ~70 on)
    assert isinstance(policy, SwineHerdNExact) and policy.from_cache and policy.is_exact
    assert exact.cached_exact(variant, 3) is policy
