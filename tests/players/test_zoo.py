"""The strategy zoo: keep-pace, max-score and Python plug-ins (specs, decisions, action tables)."""

from __future__ import annotations

import dataclasses
import textwrap
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import pigdice.players.plugins as plugins
from pigdice.engine.game import GameState, Hold, Roll, new_game
from pigdice.errors import BadStrategyError
from pigdice.players.fixed import HoldAt
from pigdice.players.plugins import PythonStrategy, disable_python_specs
from pigdice.players.specs import known_specs, parse_strategy
from pigdice.players.tables import action_table
from pigdice.players.zoo import KeepPace, MaxScore, expected_gains, is_end_race, keep_pace_threshold
from pigdice.rules import find_variant
from pigdice.rules.variant import Variant
from pigdice.solve.two.headtohead import head_to_head

RNG = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def plugins_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Allow plug-ins here even if an earlier test (a web server) disabled them for the process."""
    monkeypatch.setattr(plugins, "_PLUGINS_ALLOWED", True)
    monkeypatch.delenv("PIGDICE_NO_PYTHON_SPECS", raising=False)


def same_moves(first: np.ndarray, second: np.ndarray) -> bool:
    """Return True if two action tables agree wherever they are read (score + turn total < goal)."""
    goal = first.shape[0]
    i = np.arange(goal)[:, None, None]
    k = np.arange(goal)[None, None, :]
    live = np.broadcast_to(i + k < goal, first.shape)
    return bool(np.array_equal(first[live], second[live]))


def state(variant: Variant, scores: tuple[int, ...], turn_total: int = 0, current: int = 0) -> GameState:
    """Return a mid-turn state with the given scores."""
    base = new_game(variant, len(scores))
    return dataclasses.replace(
        base, scores=scores, current=current, turn_total=turn_total, rolls_this_turn=1 if turn_total else 0
    )


def test_specs_are_registered_with_help() -> None:
    specs = known_specs()
    for word in ("keep-pace", "max-score", "python:module:function", "py:file.py:function", "optimal"):
        assert specs.get(word)
    pig = find_variant("pig")
    assert isinstance(parse_strategy("keep-pace", pig), KeepPace)
    assert isinstance(parse_strategy(" Max-Score ", pig), MaxScore)


# -- keep-pace ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("goal", "score", "opponent", "threshold"),
    [
        # Neller & Presser 2010: hold at 21 + round((j - i) / 8), halves rounded up
        (100, 0, 0, 21),
        (100, 10, 0, 20),  # 21 + round(-1.25) = 21 - 1
        (100, 0, 10, 22),  # 21 + round(1.25)
        (100, 0, 4, 22),  # 21 + round(0.5) = 22 (half up)
        (100, 4, 0, 21),  # 21 + round(-0.5) = 21 (half up)
        (100, 0, 70, 30),  # 21 + round(8.75) = 30
        (100, 70, 0, 12),  # 21 + round(-8.75) = 12
        (100, 30, 50, 24),  # 21 + round(2.5) = 24
        # scaled: goal 50 holds at round(10.5 + (j - i) / 8)
        (50, 0, 0, 11),
        (50, 20, 0, 8),  # 10.5 - 2.5 = 8
        (50, 0, 20, 13),  # 10.5 + 2.5 = 13
        # never below 1: a turn starts with a roll
        (5, 4, 0, 1),
    ],
)
def test_keep_pace_threshold_by_hand(goal: int, score: int, opponent: int, threshold: int) -> None:
    assert keep_pace_threshold(goal, score, opponent) == threshold


def test_end_race_from_71_percent_of_the_goal() -> None:
    assert not is_end_race(100, 70, 70)
    assert is_end_race(100, 71, 0)
    assert is_end_race(100, 0, 71)
    assert not is_end_race(50, 35, 0)  # 71% of 50 is 35.5
    assert is_end_race(50, 36, 0)


def test_keep_pace_decisions_in_play() -> None:
    pig = find_variant("pig")
    keep = KeepPace()
    assert keep.choose(state(pig, (0, 0), 20), RNG) == Roll()
    assert keep.choose(state(pig, (0, 0), 21), RNG) == Hold()
    assert keep.choose(state(pig, (0, 0), 0), RNG) == Roll()
    assert keep.choose(state(pig, (95, 0), 5), RNG) == Hold()  # holding wins
    assert keep.choose(state(pig, (71, 0), 28), RNG) == Roll()  # end race: roll for the win
    assert keep.choose(state(pig, (71, 0), 29), RNG) == Hold()
    assert keep.choose(state(pig, (10, 75), 40), RNG) == Roll()  # the opponent is close: race


def test_keep_pace_uses_the_highest_opponent_with_three_players() -> None:
    pig = find_variant("pig")
    keep = KeepPace()
    # highest opponent 50, me 10: 21 + round(40 / 8) = 26
    assert keep.choose(state(pig, (10, 30, 50), 25), RNG) == Roll()
    assert keep.choose(state(pig, (10, 30, 50), 26), RNG) == Hold()
    assert keep.choose(state(pig, (50, 10, 30), 25, current=1), RNG) == Roll()


@pytest.mark.parametrize("name", ["pig", "two-dice-pig", "hog-reroll"])
def test_keep_pace_table_agrees_with_its_moves(name: str) -> None:
    variant = find_variant(name, goal=40)
    keep = KeepPace()
    table = action_table(keep, variant)
    assert table.shape == (40, 40, 40) and table.dtype == np.int8
    rng = np.random.default_rng(1)
    for _ in range(300):
        i, j = (int(x) for x in rng.integers(0, 40, 2))
        k = int(rng.integers(0, 40 - i))
        action = keep.choose(state(variant, (i, j), k), rng)
        code = 0 if isinstance(action, Hold) else (variant.choices.index(action.dice) + 1 if action.dice else 1)
        assert table[i, j, k] == code, (i, j, k)


def test_keep_pace_spec_errors() -> None:
    with pytest.raises(BadStrategyError, match="one throw per turn"):
        parse_strategy("keep-pace", find_variant("hog"))
    with pytest.raises(BadStrategyError, match="no arguments"):
        parse_strategy("keep-pace:3", find_variant("pig"))


# -- max-score -----------------------------------------------------------------------------------------
def exact_gain(variant: Variant, score: int, turn_total: int, dice: int) -> Fraction:
    """Expected gain of one more roll, from the rules' own Effect.resolve in exact fractions."""
    gain = Fraction(0)
    for effect, probability in variant.roll_spec(dice).distribution():
        new_score, new_total, _ = effect.resolve(score, turn_total)
        gain += probability * ((new_score + new_total) - (score + turn_total))
    return gain


def test_max_score_holds_at_20_in_pig() -> None:
    # Neller & Presser 2004 ("Optimal Play of the Dice Game Pig", seed 003's [Neller and Presser
    # 2004]): rolling at turn total k gains (2+3+4+5+6)/6 - k/6 = (20 - k)/6 on average, so
    # holding at 20 maximises the expected score of a turn; at k = 20 the gain is exactly 0.
    pig = find_variant("pig")
    assert exact_gain(pig, 0, 20, 1) == 0
    assert exact_gain(pig, 0, 19, 1) == Fraction(1, 6)
    gains = expected_gains(pig, 0, np.array([19, 20, 21]))[0]
    assert gains == pytest.approx([1 / 6, 0, -1 / 6], abs=1e-12)
    table = action_table(MaxScore(), pig)
    assert np.array_equal(table, action_table(HoldAt(20), pig))


def test_max_score_two_dice_pig_depends_on_the_score() -> None:
    # gain = (25/36 * 8) - k * 11/36 - score / 36 = (200 - 11 k - score) / 36 (1-1 loses the score too)
    variant = find_variant("two-dice-pig")
    assert exact_gain(variant, 0, 18, 2) == Fraction(2, 36)
    assert exact_gain(variant, 35, 15, 2) == 0
    table = action_table(MaxScore(), variant)
    assert table[0, 0, 18] == 1 and table[0, 0, 19] == 0  # roll while 11 k < 200
    assert table[35, 7, 14] == 1 and table[35, 7, 15] == 0  # 11 k < 165: hold at 15 (gain 0)


@pytest.mark.parametrize("name", ["pig", "two-dice-pig", "pig-dice", "big-pig-knizia", "freys-pig", "hog-reroll"])
def test_expected_gains_match_exact_fractions(name: str) -> None:
    variant = find_variant(name)
    rng = np.random.default_rng(2)
    for _ in range(40):
        score = int(rng.integers(0, 100))
        k = int(rng.integers(0, 100 - score))
        gains = expected_gains(variant, score, k)[:, 0]
        for c, dice in enumerate(variant.choices):
            assert gains[c] == pytest.approx(float(exact_gain(variant, score, k, dice)), abs=1e-9)


def test_max_score_in_hog_throws_five_dice() -> None:
    # 4 d (5/6)^d points on average: 5 and 6 dice tie exactly (8.0376); ties go to fewer dice
    hog = find_variant("hog")
    expected = [4 * d * Fraction(5, 6) ** d for d in range(1, 8)]
    assert expected[4] == expected[5] == max(expected)
    assert MaxScore().choose(state(hog, (0, 0)), RNG) == Roll(5)
    table = action_table(MaxScore(), hog)
    assert np.all(table == 5)


def test_max_score_in_dice_per_roll_games_picks_the_best_dice() -> None:
    variant = find_variant("hog-reroll")
    strategy = MaxScore()
    for score, k in [(0, 0), (10, 12), (40, 30)]:
        gains = [exact_gain(variant, score, k, d) for d in variant.choices]
        best = max(gains)
        action = strategy.choose(state(variant, (score, 0), k), RNG)
        if k > 0 and best <= 0:
            assert action == Hold()
        else:
            assert action == Roll(variant.choices[gains.index(best)])


def test_max_score_table_agrees_with_its_moves() -> None:
    variant = find_variant("pig-dice", goal=60).with_endgame("first-to-goal")
    strategy = MaxScore()
    table = action_table(strategy, variant)
    rng = np.random.default_rng(3)
    for _ in range(300):
        i, j = (int(x) for x in rng.integers(0, 60, 2))
        k = int(rng.integers(0, 60 - i))
        action = strategy.choose(state(variant, (i, j), k), rng)
        assert table[i, j, k] == (0 if isinstance(action, Hold) else 1), (i, j, k)


# -- Python plug-ins ------------------------------------------------------------------------------------
PLUGIN = textwrap.dedent(
    """
    from pigdice.engine.game import Roll

    def HoldAt20(score, opponent, turn_total, variant):
        return "hold" if turn_total >= 20 else "roll"

    def as_bool(score, opponent, turn_total, variant):
        return turn_total < 20

    def as_number(score, opponent, turn_total, variant):
        return 0 if turn_total >= 20 else 1

    def hog_dice(score, opponent, turn_total, variant):
        return 3 if score < 50 else Roll(6)

    def bad_answer(score, opponent, turn_total, variant):
        return "maybe"

    def explodes(score, opponent, turn_total, variant):
        raise RuntimeError("boom")

    def one_argument(score):
        return "roll"

    not_a_function = 3
    """
)


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    """Write a plug-in module (mixed-case file and function names) and return its path."""
    path = tmp_path / "MyStrats.py"
    path.write_text(PLUGIN)
    return path


@pytest.mark.parametrize("function", ["HoldAt20", "as_bool", "as_number"])
def test_py_file_plugin_plays_like_hold_at_20(plugin: Path, function: str) -> None:
    pig = find_variant("pig", goal=30)
    strategy = parse_strategy(f"py:{plugin}:{function}", pig)
    assert isinstance(strategy, PythonStrategy)
    assert strategy.name == f"py:{plugin}:{function}"
    assert strategy.choose(state(pig, (0, 0), 19), RNG) == Roll()
    assert strategy.choose(state(pig, (0, 0), 20), RNG) == Hold()
    assert same_moves(action_table(strategy, pig), action_table(HoldAt(20), pig))


def test_python_module_plugin_and_exact_evaluation(plugin: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(plugin.parent))
    pig = find_variant("pig", goal=30)
    strategy = parse_strategy("python:MyStrats:HoldAt20", pig)
    mine = head_to_head(pig, action_table(strategy, pig), action_table(HoldAt(25), pig))
    reference = head_to_head(pig, action_table(HoldAt(20), pig), action_table(HoldAt(25), pig))
    assert mine.a_first == pytest.approx(reference.a_first, abs=1e-12)
    assert mine.b_first == pytest.approx(reference.b_first, abs=1e-12)


def test_python_plugin_imports_from_the_current_directory(plugin: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(plugin.parent)
    strategy = parse_strategy("python:MyStrats:as_bool", find_variant("pig"))
    assert strategy.choose(state(find_variant("pig"), (0, 0), 3), RNG) == Roll()


def test_python_plugin_picks_dice_in_hog(plugin: Path) -> None:
    hog = find_variant("hog", goal=60)
    strategy = parse_strategy(f"py:{plugin}:hog_dice", hog)
    assert strategy.choose(state(hog, (10, 0)), RNG) == Roll(3)
    assert strategy.choose(state(hog, (55, 0)), RNG) == Roll(6)
    table = action_table(strategy, hog)
    assert table[10, 0, 0] == 3 and table[55, 3, 0] == 6


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("py:{dir}/missing.py:f", "no Python file"),
        ("py:{path}:nothing_here", "has no function"),
        ("py:{path}:not_a_function", "not a function"),
        ("py:{path}:one_argument", "must take"),
        ("py:{path}", "use python:module:function"),
        ("python:no_such_module_xyz:f", "cannot import"),
    ],
)
def test_python_plugin_spec_errors(plugin: Path, spec: str, message: str) -> None:
    text = spec.format(path=plugin, dir=plugin.parent)
    with pytest.raises(BadStrategyError, match=message):
        parse_strategy(text, find_variant("pig"))


def test_python_plugin_bad_answers_are_clear(plugin: Path) -> None:
    pig = find_variant("pig")
    with pytest.raises(BadStrategyError, match="returned 'maybe'"):
        parse_strategy(f"py:{plugin}:bad_answer", pig).choose(state(pig, (0, 0), 3), RNG)
    with pytest.raises(BadStrategyError, match="boom"):
        parse_strategy(f"py:{plugin}:explodes", pig).choose(state(pig, (0, 0), 3), RNG)
    hog = find_variant("hog")
    with pytest.raises(BadStrategyError, match="needs a number of dice"):
        parse_strategy(f"py:{plugin}:HoldAt20", hog).choose(state(hog, (0, 0)), RNG)


def test_python_plugins_can_be_disabled(plugin: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIGDICE_NO_PYTHON_SPECS", "1")
    with pytest.raises(BadStrategyError, match="disabled"):
        parse_strategy(f"py:{plugin}:HoldAt20", find_variant("pig"))
    monkeypatch.delenv("PIGDICE_NO_PYTHON_SPECS")
    disable_python_specs()
    with pytest.raises(BadStrategyError, match="disabled"):
        parse_strategy(f"py:{plugin}:HoldAt20", find_variant("pig"))
