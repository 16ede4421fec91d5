"""Effects, dice and roll specs: the small pieces the outcome tables are built from."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from pigdice.errors import BadParameterError
from pigdice.rules import Die, EffectKind, ScriptedDice, find_variant
from pigdice.rules.dice import head_die, standard_die, tail_die
from pigdice.rules.effects import add, bank, bust, double, reset_score, set_total, subtract


@pytest.mark.parametrize(
    ("effect", "score", "turn_total", "expected"),
    [
        (add(5), 10, 7, (10, 12, False)),
        (double(), 10, 7, (10, 14, False)),
        (subtract(3), 10, 7, (10, 4, False)),
        (subtract(9), 10, 7, (10, 0, False)),  # seed 003: the turn total can never be negative
        (set_total(25), 10, 40, (10, 25, False)),  # Knizia: 25 whatever it was (seed 000)
        (bust(), 10, 7, (10, 0, True)),
        (reset_score(), 10, 7, (0, 0, True)),
        (bank(25), 10, 7, (42, 0, True)),  # Frey: turn total + 25 banked (seed 003)
        (bank(25, keep_turn_total=False), 10, 7, (35, 0, True)),  # seed 002: exactly 25
    ],
    ids=["add", "double", "subtract", "subtract-floor", "set", "bust", "reset", "bank", "score-25"],
)
def test_effect_resolve(effect, score, turn_total, expected):
    assert effect.resolve(score, turn_total) == expected
    assert effect.ends_turn == expected[2]


@pytest.mark.parametrize(
    "effect", [add(5), double(), subtract(3), set_total(25), bust(), reset_score(), bank(25), bank(25, False)]
)
def test_effect_describe_and_json(effect):
    assert effect.describe()
    data = effect.to_json()
    assert data["kind"] == effect.kind.name.lower().replace("_", "-")
    assert data["amount"] == effect.amount
    assert ("keep_turn_total" in data) == (effect.kind is EffectKind.BANK)


def test_dice_labels():
    assert standard_die().label(3) == "3"
    assert head_die().label(1) == "H"
    assert tail_die().label(6) == "T"


@pytest.mark.parametrize(
    ("faces", "labels", "probabilities", "message"),
    [
        ((1, 2), ("1",), (F(1, 2), F(1, 2)), "differ in length"),
        ((1, 2), ("1", "2"), (F(1, 2), F(1, 3)), "sum to"),
        ((1, 2), ("1", "2"), (F(3, 2), F(-1, 2)), "negative"),
    ],
)
def test_bad_die(faces, labels, probabilities, message):
    with pytest.raises(BadParameterError, match=message):
        Die("bad", faces, labels, probabilities)


def test_scripted_dice_run_out_and_check_faces():
    spec = find_variant("two-dice-pig").roll_spec()
    dice = ScriptedDice([(3, 4)])
    assert spec.throw(dice).effect == add(7)
    assert dice.remaining == 0
    with pytest.raises(ValueError, match="ran out"):
        spec.throw(dice)
    with pytest.raises(ValueError, match="not on die"):
        spec.throw(ScriptedDice([(3, 7)]))
    with pytest.raises(ValueError, match="expected 2"):
        spec.throw(ScriptedDice([(3,)]))
    with pytest.raises(ValueError, match="mishap"):
        spec.throw(ScriptedDice([None]))


@pytest.mark.parametrize("name", ["pig", "big-pig", "pig-dice", "pass-the-pigs", "piggy-six"])
def test_sampled_throws_follow_the_table(name):
    """A seeded sample agrees with the exact table: every effect is in it, frequencies within 5 sigma."""
    spec = find_variant(name).roll_spec()
    table = dict(spec.distribution())
    rng = np.random.default_rng(2024)
    n = 2500
    counts: dict = {}
    for _ in range(n):
        effect = spec.throw(rng).effect
        assert effect in table
        counts[effect] = counts.get(effect, 0) + 1
    for effect, p in table.items():
        mean = n * float(p)
        sigma = (n * float(p) * (1 - float(p))) ** 0.5
        assert abs(counts.get(effect, 0) - mean) <= 5 * sigma + 1, effect


def test_oinker_is_sampled_at_its_rate():
    spec = find_variant("pass-the-pigs", oinker="1/10").roll_spec()
    rng = np.random.default_rng(7)
    oinkers = sum(spec.throw(rng).faces is None for _ in range(3000))
    assert 300 - 5 * 16.5 <= oinkers <= 300 + 5 * 16.5


def test_hog_throws_keep_no_faces_in_the_table_but_the_game_sees_them():
    spec = find_variant("hog").roll_spec(3)
    assert all(row.faces is None for row in spec.outcomes())
    throw = spec.throw(ScriptedDice([(2, 3, 4)]))
    assert throw.faces == (2, 3, 4)
    assert throw.effect == add(9)
