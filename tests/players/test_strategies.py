"""Robots and their spec strings: hold:N, rolls:N, dice:N, random, human."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import pigdice.players.plugins as PLUGINS
from pigdice.engine.game import GameState, Hold, Roll, legal_actions, new_game
from pigdice.errors import BadStrategyError
from pigdice.players.base import Human, Strategy, TableStrategy, can_win_by_holding, is_human, must_keep_rolling
from pigdice.players.fixed import DiceEachTurn, HoldAt, RandomPlayer, RollTimes
from pigdice.players.specs import SPEC_WORDS, known_specs, parse_players, parse_strategy
from pigdice.rules import find_variant

PIG = find_variant("pig")
RNG = np.random.default_rng(0)


def at(variant=PIG, players=2, **fields) -> GameState:
    """Return a mid-game state of ``variant`` with the given fields."""
    return dataclasses.replace(new_game(variant, players), **fields)


# --- hold:N ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("threshold", "score", "turn_total", "expected"),
    [
        (20, 0, 0, Roll()),
        (20, 0, 19, Roll()),
        (20, 0, 20, Hold()),  # exactly at N
        (20, 0, 26, Hold()),
        (20, 50, 19, Roll()),
        (20, 90, 10, Hold()),  # holding wins: hold early
        (20, 95, 4, Roll()),  # 99 does not win yet
        (20, 99, 2, Hold()),
        (100, 0, 99, Roll()),
        (100, 0, 100, Hold()),
    ],
)
def test_hold_at(threshold, score, turn_total, expected):
    state = at(scores=(score, 0), turn_total=turn_total, rolls_this_turn=1 if turn_total else 0)
    assert HoldAt(threshold).choose(state, RNG) == expected


@pytest.mark.parametrize(
    ("turn_total", "expected"),
    [(10, Roll()), (30, Roll()), (50, Roll()), (51, Hold()), (70, Hold())],
)
def test_hold_at_keeps_rolling_in_a_final_round_while_behind(turn_total, expected):
    # Pig Dice (seed 003): the others get one more turn to achieve a *higher* score.
    state = at(
        find_variant("pig-dice"),
        scores=(100, 50),
        current=1,
        final_round=(1,),
        turn_total=turn_total,
        rolls_this_turn=1,
    )
    assert must_keep_rolling(state) == (turn_total <= 50)
    assert can_win_by_holding(state) == (turn_total > 50)
    assert HoldAt(20).choose(state, RNG) == expected
    assert RollTimes(1).choose(state, RNG) == expected


def test_hold_at_compares_with_every_other_score_in_a_final_round():
    variant = find_variant("pig", endgame="equal-turns")
    state = at(variant, players=3, scores=(60, 100, 30), current=2, final_round=(2,), turn_total=65, rolls_this_turn=3)
    assert HoldAt(20).choose(state, RNG) == Roll()
    state = dataclasses.replace(state, turn_total=71)
    assert HoldAt(20).choose(state, RNG) == Hold()


def test_final_roll_leaves_only_roll():
    variant = find_variant("pig-dice", final_turn="roll")
    state = at(variant, scores=(100, 95), current=1, final_round=(1,))
    assert legal_actions(state) == [Roll()]
    assert HoldAt(0).choose(state, RNG) == Roll()


def test_hold_at_in_swine_herd_sits_down():
    herd = find_variant("swine-herd")
    state = at(herd, players=3, turn_total=12, rolls_this_turn=3)
    assert HoldAt(12).choose(state, RNG) == Hold()
    assert HoldAt(13).choose(state, RNG) == Roll()


@pytest.mark.parametrize(
    ("spec", "name", "expected"),
    [
        ("hold:20+dice:3", "hog-reroll", Roll(3)),
        ("hold:20", "hog-reroll", Roll(1)),
        ("hold:20+dice:2", "piggy-six-3dice", Roll(2)),
        ("rolls:2+dice:3", "piggy-six-3dice", Roll(3)),
    ],
)
def test_dice_per_roll_robots_throw_their_dice(spec, name, expected):
    variant = find_variant(name)
    assert parse_strategy(spec, variant).choose(new_game(variant, 2), RNG) == expected


# --- rolls:N -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rolls", "score", "turn_total", "expected"),
    [
        (0, 0, 0, Roll()),
        (1, 0, 5, Roll()),
        (2, 0, 9, Roll()),
        (3, 0, 12, Hold()),
        (4, 0, 30, Hold()),
        (1, 96, 5, Hold()),
    ],
)
def test_rolls_times(rolls, score, turn_total, expected):
    state = at(scores=(score, 0), turn_total=turn_total, rolls_this_turn=rolls)
    assert RollTimes(3).choose(state, RNG) == expected


# --- dice:N in Hog -------------------------------------------------------------------------------


@pytest.mark.parametrize("dice", [1, 6, 26])
def test_hog_dice_each_turn(dice):
    hog = find_variant("hog")
    strategy = parse_strategy(f"dice:{dice}", hog)
    assert strategy == DiceEachTurn(dice)
    assert strategy.choose(new_game(hog, 2), RNG) == Roll(dice)
    assert strategy.choose(at(hog, scores=(90, 95), current=1), RNG) == Roll(dice)


# --- random and human ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["pig", "hog", "hog-reroll", "swine-herd", "piggy-six-3dice"])
def test_random_player_picks_legal_actions_reproducibly(name):
    variant = find_variant(name)
    state = at(variant, turn_total=5, rolls_this_turn=1)
    legal = legal_actions(state)
    picks = [RandomPlayer().choose(state, np.random.default_rng(seed)) for seed in range(60)]
    assert all(p in legal for p in picks)
    assert len(set(picks)) > 1
    again = [RandomPlayer().choose(state, np.random.default_rng(seed)) for seed in range(60)]
    assert picks == again


def test_human():
    human = parse_strategy("human:Ann", PIG)
    assert human == Human("Ann") and human.name == "Ann"
    assert is_human(human) and not is_human(HoldAt(20))
    with pytest.raises(BadStrategyError, match="front end"):
        human.choose(new_game(PIG, 2), RNG)


# --- parsing ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "name", "expected"),
    [
        ("hold:25", "pig", HoldAt(25)),
        ("  HOLD:25 ", "pig", HoldAt(25)),
        ("rolls:3", "pig", RollTimes(3)),
        ("random", "pig", RandomPlayer()),
        ("you", "pig", Human("you")),
        ("human", "pig", Human("you")),
        ("me", "pig", Human("you")),
        ("dice:6", "hog", DiceEachTurn(6)),
        ("dice:3", "hog-reroll", HoldAt(20, 3)),
        ("hold:15+dice:2", "piggy-six-3dice", HoldAt(15, 2)),
        ("dice:2+rolls:4", "piggy-six-3dice", RollTimes(4, 2)),
        ("hold:12", "swine-herd", HoldAt(12)),
    ],
)
def test_parse_strategy(spec, name, expected):
    strategy = parse_strategy(spec, find_variant(name))
    assert strategy == expected
    assert isinstance(strategy, Strategy)


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("hold:25", "pig"),
        ("rolls:3", "pig"),
        ("dice:6", "hog"),
        ("hold:15+dice:2", "piggy-six-3dice"),
        ("rolls:4+dice:2", "hog-reroll"),
        ("random", "pig"),
    ],
)
def test_names_parse_back(spec, name):
    variant = find_variant(name)
    strategy = parse_strategy(spec, variant)
    assert parse_strategy(strategy.name, variant) == strategy


def test_solitaire_piggy_six_players():
    # Seed 004: play against two imaginary opponents with fixed stopping points, e.g. 8 and 14.
    players = parse_players("you, hold:8, hold:14", find_variant("piggy-six"))
    assert players == [Human("you"), HoldAt(8), HoldAt(14)]


def test_every_registered_spec_word_is_listed_and_parses():
    forms = known_specs()
    assert {"hold:N", "rolls:N", "dice:N", "random", "optimal", "keep-pace", "max-score"} <= set(forms)
    for word, (_, form, help_text) in SPEC_WORDS.items():
        assert forms[form] == help_text
        example = form.replace(":N", ":3")  # a word that takes a number is written with one
        if word not in PLUGINS.WORDS:
            assert parse_strategy(example, PIG).name == example


@pytest.mark.parametrize("spec", ["hold:٢٠", "hold:²", "hold:0", "hold:" + "9" * 4000, "rolls:100001"])
def test_spec_numbers_are_ascii_digits_in_range(spec):
    with pytest.raises(BadStrategyError, match="whole number from"):
        parse_strategy(spec, PIG)


def test_table_strategies_follow_the_protocol():
    assert isinstance(HoldAt(20), TableStrategy)
    assert not isinstance(RollTimes(3), TableStrategy)
    assert not isinstance(RandomPlayer(), TableStrategy)


@pytest.mark.parametrize(
    ("variant", "text"),
    [
        (PIG, "first to 100 wins"),
        (
            find_variant("pig-dice"),
            "reaching 100 gives everyone else one more turn; best score wins; ties go to whoever reached the score",
        ),
        (find_variant("pig-dice", final_turn="roll"), "one more roll"),
        (find_variant("piggy-six", goal=50), "reaching 50 finishes the round; best score wins; ties are shared"),
    ],
)
def test_endgame_note(variant, text):
    assert text in variant.endgame_note()
