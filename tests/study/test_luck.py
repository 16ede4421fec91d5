"""Exact luck and skill: result = start + luck - error for every seat, over many seeded games of every kind."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from pigdice.engine.game import Move, Pass, Resign, Roll, apply, dice_rng, new_game, robot_rng
from pigdice.engine.simultaneous import choosing_seats, seat_view
from pigdice.players.optimal import Optimal, position_of, seat_chances
from pigdice.players.specs import parse_strategy
from pigdice.rules import find_variant
from pigdice.rules.outcomes import ScriptedDice, Throw
from pigdice.rules.variant import Variant
from pigdice.study.luck import HERD_VALUES, PLAYERS_VALUES, TWO_PLAYER_VALUES, LuckAndSkill, luck_and_skill

IDENTITY = 1e-9


def play(variant: Variant, specs: Sequence[str], seed: int) -> list[Move]:
    """Return the moves of a seeded game between robots (Swine Herd's seats choose on the moment's state)."""
    strategies = [parse_strategy(spec, variant) for spec in specs]
    state, dice, robots, moves = new_game(variant, len(specs)), dice_rng(seed), robot_rng(seed), []
    while not state.is_terminal():
        moment = state
        for seat in choosing_seats(moment):
            seen = seat_view(moment, seat) if variant.is_simultaneous else state
            moves.append(strategies[seat].choose(seen, robots))
            state, _ = apply(state, moves[-1], dice)
    return moves


def check_identity(account: LuckAndSkill | None) -> LuckAndSkill:
    """Assert result = start + luck - error (to 1e-9) for every seat of a finished game; return the account."""
    assert account is not None
    for ledger in account.seats:
        assert ledger.result is not None
        assert ledger.result == pytest.approx(ledger.start + ledger.luck - ledger.error, abs=IDENTITY)
        assert ledger.luck == pytest.approx(ledger.dice + ledger.others)
        assert ledger.error >= -IDENTITY
    assert sum(ledger.result or 0.0 for ledger in account.seats) == pytest.approx(1.0)
    return account


TWO_PLAYER_GAMES = [
    ("pig", ("hold:20", "keep-pace")),
    ("pig", ("random", "optimal")),
    ("two-dice-pig", ("hold:25", "level:3")),
    ("pig-dice", ("hold:20", "optimal")),  # a final round
    ("hog", ("dice:3", "level:5")),
    ("swine-herd", ("hold:20", "optimal")),  # everyone at once: the equilibrium mixes
]


@pytest.mark.parametrize(("name", "specs"), TWO_PLAYER_GAMES)
def test_result_is_start_plus_luck_minus_error_in_two_player_games(name: str, specs: tuple[str, str]) -> None:
    variant = find_variant(name)  # the shipped values: nothing solved, nothing compiled
    perfect = Optimal(variant)
    games = 6 if name == "pig-dice" else 12  # Pig Dice's rows past the goal take longest
    for seed in range(games):
        seats = specs if seed % 2 == 0 else specs[::-1]
        account = check_identity(luck_and_skill(variant, 2, seed, play(variant, seats, seed), perfect))
        assert account.values == (HERD_VALUES if variant.is_simultaneous else TWO_PLAYER_VALUES)
        assert account.seats[0].start == pytest.approx(perfect.exact(2).win_probability_by_seat()[0])
        # two players: what one seat's choices give away, the other gains, and the dice are zero-sum
        for roll in account.rolls:
            assert sum(roll.luck) == pytest.approx(0.0, abs=IDENTITY)


def test_the_perfect_player_makes_no_error_and_its_opponent_gains_nothing_from_it() -> None:
    variant = find_variant("pig")
    for seed in range(6):
        account = check_identity(luck_and_skill(variant, 2, seed, play(variant, ["optimal", "optimal"], seed)))
        for ledger in account.seats:
            assert ledger.error == pytest.approx(0.0, abs=1e-12)
            assert ledger.others == pytest.approx(0.0, abs=1e-12)
            assert ledger.result == pytest.approx(ledger.start + ledger.dice)


def test_a_rolls_luck_is_zero_on_average_over_its_exact_outcomes() -> None:
    # the expected chance before a roll is the roll's value; averaging V over the outcome table gives it back
    variant = find_variant("two-dice-pig")
    perfect = Optimal(variant)
    exact = perfect.exact(2)
    state, dice = new_game(variant, 2), dice_rng(3)
    moves = play(variant, ["hold:20", "hold:30"], 3)
    checked = 0
    for move in moves:
        if isinstance(move, Roll) and not state.is_terminal():
            value = exact.action_values(position_of(state))["roll"]
            average = 0.0
            for effect, p in variant.roll_spec().distribution():
                after, _ = apply(state, move, ScriptedDice([Throw(None, (), "", effect)]))
                mine = 1.0 if after.winners == (state.current,) else 0.0
                if not after.is_terminal():
                    mine = seat_chances(after, exact.win_vector(position_of(after)))[state.current]
                average += float(p) * mine
            assert average == pytest.approx(value, abs=1e-12)
            checked += 1
        state, _ = apply(state, move, dice)
    assert checked > 20


def test_the_luckiest_and_unluckiest_rolls_are_the_largest_swings() -> None:
    variant = find_variant("pig")
    account = check_identity(luck_and_skill(variant, 2, 11, play(variant, ["hold:20", "optimal"], 11)))
    for seat in (0, 1):
        lucky, unlucky = account.luckiest(seat), account.unluckiest(seat)
        assert lucky is not None and unlucky is not None
        assert lucky.luck[seat] == max(r.luck[seat] for r in account.rolls) > 0
        assert unlucky.luck[seat] == min(r.luck[seat] for r in account.rolls) < 0
    assert len(account.timeline) == len(play(variant, ["hold:20", "optimal"], 11)) + 1
    assert account.timeline[-1] == tuple(ledger.result for ledger in account.seats)


def test_a_timeout_and_a_resignation_are_the_leavers_error() -> None:
    from pigdice.engine.game import replay

    variant = find_variant("pig")
    moves: list[Move] = [Roll(), Roll(), Pass(), Roll(), Roll(), Resign(0)]
    account = check_identity(luck_and_skill(variant, 2, 5, moves))
    timed_out = replay(variant, 2, 5, moves[:2])[0].current
    by_move = {choice.move: choice for choice in account.choices}
    assert by_move[3].seat == timed_out
    assert by_move[3].error == pytest.approx(account.timeline[2][timed_out] - account.timeline[3][timed_out])
    assert by_move[6].seat == 0 and by_move[6].error == pytest.approx(account.timeline[5][0])
    assert account.timeline[6] == (0.0, 1.0)


def test_a_game_still_going_ends_at_its_current_chances() -> None:
    variant = find_variant("pig")
    moves = play(variant, ["hold:20", "optimal"], 2)[:15]
    account = luck_and_skill(variant, 2, 2, moves)
    assert account is not None
    for ledger in account.seats:
        assert ledger.result is None and ledger.luck_adjusted is None
        assert ledger.now == pytest.approx(ledger.start + ledger.luck - ledger.error, abs=IDENTITY)


def test_approximate_games_give_no_luck_and_skill() -> None:
    # five players with a final round: the perfect player approximates, so there is no exact V
    variant = find_variant("pig", goal=20, endgame="final-round")
    moves = play(variant, ["hold:5"] * 5, 1)
    assert luck_and_skill(variant, 5, 1, moves) is None


@pytest.mark.slow
def test_three_player_pig_uses_the_equilibriums_values() -> None:
    variant = find_variant("pig", goal=25)
    perfect = Optimal(variant)
    for seed in range(10):
        specs = ["hold:10", "optimal", "level:2"]
        seats = specs[seed % 3 :] + specs[: seed % 3]
        account = check_identity(luck_and_skill(variant, 3, seed, play(variant, seats, seed), perfect))
        assert account.values == PLAYERS_VALUES
        assert [s.start for s in account.seats] == pytest.approx(perfect.exact(3).win_probability_by_seat())


def test_luck_uses_no_randomness_of_its_own() -> None:
    variant = find_variant("hog")
    moves = play(variant, ["dice:4", "optimal"], 8)
    first, second = luck_and_skill(variant, 2, 8, moves), luck_and_skill(variant, 2, 8, moves)
    assert first == second
    assert np.isfinite([r.luck[0] for r in first.rolls]).all()  # type: ignore[union-attr]
