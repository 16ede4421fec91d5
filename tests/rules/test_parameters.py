"""Variant parameters: the accepted forms, their bounds, and refusals before any work is done."""

from __future__ import annotations

import math
from fractions import Fraction as F
from itertools import product

import pytest

from pigdice.errors import BadParameterError, UnknownVariantError
from pigdice.rules import find_variant
from pigdice.rules.dice import Die, standard_die
from pigdice.rules.effects import EffectKind
from pigdice.rules.outcomes import ByFaces, RollSpec, SumUnlessBad, runs
from pigdice.rules.parameters import MAX_TEXT, parse_choice, parse_count, parse_probability, shown
from pigdice.rules.registry import MAX_HOG_DICE, MAX_REROLL_DICE
from pigdice.rules.scoring import piggy_six

# --- oinker: a probability in [0, 1) ------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, F(0)),
        ("0", F(0)),
        ("0.01", F(1, 100)),
        (".5", F(1, 2)),
        ("5.e-1", F(1, 2)),
        (" 0.25 ", F(1, 4)),
        ("1/100", F(1, 100)),
        ("1/999999999999", F(1, 999_999_999_999)),
        ("1e-3", F(1, 1000)),
        ("1E-12", F(1, 10**12)),
        ("0.000000000001", F(1, 10**12)),
        (0.01, F(1, 100)),  # a float is read as its shortest decimal, not its binary value
        (1e-5, F(1, 100_000)),
        (F(1, 100), F(1, 100)),
    ],
)
def test_oinker_accepted_forms(value, expected):
    variant = find_variant("pass-the-pigs", oinker=value)
    assert dict(variant.parameters) == {"oinker": str(expected)}
    if expected:
        assert variant.outcomes()[0].probability == expected  # the mishap row comes first


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1e-10000000", "exponent"),  # Fraction() of this text took 7 s; 1e-100000000 took 100 s
        ("1e-100000000", "at most 12 digits"),
        ("1e-13", "exponent"),
        ("0.0000000000001", "at most 12 digits"),  # 13 decimals
        ("1234567890123/10000000000000", "at most 12 digits"),
        ("1/0", "divides by zero"),
        pytest.param("x" * 1_000_000, "got 1000000 characters", id="a-megabyte"),
        ("0" * (MAX_TEXT + 1), "characters"),
        ("lots", "oinker must be a probability"),
        (".", "oinker must be a probability"),
        ("", "oinker must be a probability"),
        ("\u0663", "oinker must be a probability"),  # an Arabic-Indic 3: ASCII digits only
        ("0x10", "oinker must be a probability"),
        ("1_0/100", "oinker must be a probability"),
        ("nan", "oinker must be a probability"),
        (math.nan, "oinker must be a probability"),
        (math.inf, "oinker must be a probability"),
        (0.1 + 0.2, "at most 12 digits"),  # 0.30000000000000004: pass "0.3" instead
        (True, "oinker must be a probability"),
        (None, "got a NoneType"),
        ([0.1], "got a list"),
        (F(1, 10**20), "too many digits"),
        (1, r"in \[0, 1\), got 1$"),
        ("1/1", r"in \[0, 1\)"),
        (-0.1, r"in \[0, 1\), got -0.1"),
        ("-1/100", r"in \[0, 1\)"),
        pytest.param(10**100_000, "a very large number", id="huge-int"),
    ],
)
def test_oinker_refused_forms(value, message):
    with pytest.raises(BadParameterError, match=message) as caught:
        find_variant("pass-the-pigs", oinker=value)
    assert str(caught.value).startswith("oinker must be")
    assert len(str(caught.value)) < 400  # a refused value is never echoed whole


def test_parse_probability_may_include_one():
    assert parse_probability("p", "1", below_one=False) == 1
    with pytest.raises(BadParameterError, match=r"in \[0, 1\]"):
        parse_probability("p", "1.5", below_one=False)


# --- counts and choices -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value", "high"),
    [
        ("hog", 0, MAX_HOG_DICE),
        ("hog", MAX_HOG_DICE + 1, MAX_HOG_DICE),
        pytest.param("hog", 10**100_000, MAX_HOG_DICE, id="huge-int"),
        ("hog", 6.0, MAX_HOG_DICE),
        ("hog", "6", MAX_HOG_DICE),
        ("hog", True, MAX_HOG_DICE),
        ("hog-reroll", MAX_REROLL_DICE + 1, MAX_REROLL_DICE),
    ],
)
def test_max_dice_bounds(name, value, high):
    with pytest.raises(BadParameterError, match=f"max_dice must be a whole number from 1 to {high}, got"):
        find_variant(name, max_dice=value)


def test_max_dice_limits_are_playable():
    assert find_variant("hog", max_dice=MAX_HOG_DICE).choices[-1] == MAX_HOG_DICE
    assert find_variant("hog-reroll", max_dice=MAX_REROLL_DICE).choices[-1] == MAX_REROLL_DICE
    assert parse_count("n", __import__("numpy").int64(5), 1, 9) == 5  # numpy integers are whole numbers


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("two-dice-pig", {"double_ones": 1}, "unknown double_ones 1; allowed: reset-score, bust"),
        ("two-dice-pig", {"double_ones": "Bust"}, "unknown double_ones 'Bust'"),
        ("big-pig", {"snake_eyes": ["add-25"]}, "unknown snake_eyes a list; allowed: add-25"),
        ("big-pig", {"bad": {"ones": 1}}, "unknown bad a dict; allowed: ones, sevens"),
        pytest.param("big-pig", {"snake_eyes": "y" * 10_000}, r"unknown snake_eyes 'yyyy.*\.\.\.; allowed", id="long"),
        ("pig-dice", {"final_turn": "z" * 10_000}, r"unknown final turn 'zzz.*\.\.\.; allowed: turn, roll"),
        ("pig-dice", {"final_turn": 1}, "unknown final turn 1; allowed: turn, roll"),
        ("pig", {"endgame": ["equal-turns"]}, "unknown endgame a list"),
        pytest.param(
            "pig", {"goal": 10**100_000}, "goal must be between 1 and 100000, got a very large number", id="huge"
        ),
        ("pig", {"goal": "100"}, "goal must be a whole number, got '100'"),
        ("big-pig", {"k" * 1000: 1}, r"big-pig has no parameter 'kkk.*\.\.\.; its parameters: snake_eyes, bad"),
    ],
)
def test_choice_parameters_refuse_other_types_and_long_texts(name, params, message):
    with pytest.raises(BadParameterError, match=message) as caught:
        find_variant(name, **params)
    assert len(str(caught.value)) < 200


def test_parse_choice_is_exact():
    assert parse_choice("x", "a", ("a", "b")) == "a"
    with pytest.raises(BadParameterError):
        parse_choice("x", "A", ("a", "b"))


@pytest.mark.parametrize("name", [pytest.param("p" * 100_000, id="long"), ["pig"], None])
def test_unknown_variant_names_are_cut_short(name):
    with pytest.raises(UnknownVariantError, match="unknown variant") as caught:
        find_variant(name)
    assert len(str(caught.value)) < 400


def test_shown_cuts_long_values():
    assert shown("abc") == "'abc'"
    assert len(shown("x" * 1000)) == 40
    assert shown(object()) == "a object"
    assert shown(10**5000) == "a very large number"


# --- building outcome tables: cheap, shared, and the same as the plain fold ----------------------


def naive_table(spec: RollSpec) -> dict:
    """Fold every face combination with Fractions (the definition the fast fold must match)."""
    table: dict = {}
    for faces in product(*(die.faces for die in spec.dice)):
        p = math.prod(
            (die.probabilities[die.faces.index(f)] for die, f in zip(spec.dice, faces, strict=True)), start=F(1)
        )
        acc = spec.scorer.start()
        for face in faces:
            acc = spec.scorer.step(acc, face)
        effect = spec.scorer.effect(acc)
        table[effect] = table.get(effect, F(0)) + p
    return table


@pytest.mark.parametrize("name", ["hog", "piggy-six-3dice", "pig-dice", "big-pig", "pass-the-pigs"])
def test_fast_fold_matches_every_face_combination(name):
    variant = find_variant(name, **({"max_dice": 6} if name == "hog" else {}))
    for spec in variant.rolls:
        assert dict(spec.distribution()) == naive_table(spec)


def test_hog_tables_at_the_largest_choice():
    variant = find_variant("hog", max_dice=MAX_HOG_DICE)
    for dice in (1, 50, MAX_HOG_DICE):
        distribution = dict(variant.roll_spec(dice).distribution())
        assert sum(distribution.values()) == 1
        assert sum(p for e, p in distribution.items() if e.kind is EffectKind.ADD) == F(5, 6) ** dice
    # every face but 1 on every die: the largest total, with probability 1/6^n
    top = variant.roll_spec(MAX_HOG_DICE).distribution()[-2]
    assert top[0].amount == 6 * MAX_HOG_DICE and top[1] == F(1, 6**MAX_HOG_DICE)


def test_equal_dice_made_apart_give_equal_specs():
    fresh = Die("d6", (1, 2, 3, 4, 5, 6), ("1", "2", "3", "4", "5", "6"), (F(1, 6),) * 6)
    assert fresh is not standard_die()
    a = RollSpec((fresh, standard_die(), standard_die()), SumUnlessBad(1))
    b = RollSpec((standard_die(),) * 3, SumUnlessBad(1))
    assert a == b and hash(a) == hash(b)
    assert runs(a.dice) == ((fresh, 3),)
    mixed = RollSpec((standard_die(), standard_die()), ByFaces(piggy_six))
    assert runs(mixed.dice) == ((standard_die(), 2),)
