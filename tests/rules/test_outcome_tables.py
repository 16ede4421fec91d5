"""Exact outcome tables: every probability is a Fraction and the known values come out exactly.

The expected values are derived by hand from the seeds' rules and optimality equations; each
test names its source.
"""

from __future__ import annotations

from fractions import Fraction as F
from functools import cache

import pytest

from pigdice.rules import EffectKind, find_variant
from pigdice.rules.dice import PIG_POSITION_COUNTS, rubber_pig
from pigdice.rules.effects import Effect, add, bank, bust, double, reset_score, set_total, subtract


def merged(variant, dice=None) -> dict[Effect, F]:
    """Return the variant's outcome table merged by effect."""
    return dict(variant.roll_spec(dice if variant.chooses_dice else None).distribution())


def by_faces(variant, dice=None) -> dict[tuple[int, ...], tuple[F, Effect]]:
    """Return the outcome rows keyed by faces (for tables that keep faces)."""
    rows = variant.outcomes(dice)
    table = {row.faces: (row.probability, row.effect) for row in rows}
    assert len(table) == len(rows), "two rows have the same faces"
    return table


def kind_probability(variant, kind: EffectKind, dice=None) -> F:
    return sum((p for effect, p in merged(variant, dice).items() if effect.kind is kind), F(0))


# --- single-kind probabilities ------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "dice", "kind", "probability"),
    [
        # Seed 001/003 Pig: a 1 ends the turn.
        ("pig", None, EffectKind.BUST, F(1, 6)),
        ("swine-herd", None, EffectKind.BUST, F(1, 6)),
        # Seed 003, 2-Dice Pig equation: 10 of 36 pairs show exactly one 1, 1 of 36 is 1-1.
        ("two-dice-pig", None, EffectKind.BUST, F(10, 36)),
        ("two-dice-pig", None, EffectKind.RESET_SCORE, F(1, 36)),
        ("two-dice-pig", None, EffectKind.ADD, F(25, 36)),
        # Seed 003, Big Pig equation: 1-1 adds 25 (1/36), a single 1 busts (10/36).
        ("big-pig", None, EffectKind.BUST, F(10, 36)),
        ("big-pig-knizia", None, EffectKind.SET, F(1, 36)),
        ("big-pig-reset", None, EffectKind.RESET_SCORE, F(1, 36)),
        ("big-pig-score-25", None, EffectKind.BANK, F(1, 36)),
        ("freys-pig", None, EffectKind.BANK, F(1, 36)),
        # Seed 000, Knizia's sevens: all six totals of 7 bust (1-6 and 6-1 included).
        ("big-pig-sevens", None, EffectKind.BUST, F(6, 36)),
        # Seed 003, Pig Dice equation: H-T doubles; H-x adds; x-T subtracts; then 7s bust, which
        # leaves (2,5), (3,4), (4,3), (5,2), (6,1): 5/36.
        ("pig-dice", None, EffectKind.DOUBLE, F(1, 36)),
        ("pig-dice", None, EffectKind.SUBTRACT, F(5, 36)),
        ("pig-dice", None, EffectKind.BUST, F(5, 36)),
        # Seed 003, Piggy: 6 doubles of 36; Piggy Sevens: 6 sevens of 36.
        ("piggy", None, EffectKind.BUST, F(6, 36)),
        ("piggy-sevens", None, EffectKind.BUST, F(6, 36)),
        # Seed 004, Piggy Six: one 6 busts (10/36), 6-6 resets (1/36).
        ("piggy-six", None, EffectKind.BUST, F(10, 36)),
        ("piggy-six", None, EffectKind.RESET_SCORE, F(1, 36)),
        # Seed 004, three dice: one 6 of one die; two or more 6s of three dice reset (3*5 + 1)/216.
        ("piggy-six-3dice", 1, EffectKind.BUST, F(1, 6)),
        ("piggy-six-3dice", 1, EffectKind.RESET_SCORE, F(0)),
        ("piggy-six-3dice", 2, EffectKind.BUST, F(10, 36)),
        ("piggy-six-3dice", 2, EffectKind.RESET_SCORE, F(1, 36)),
        ("piggy-six-3dice", 3, EffectKind.BUST, F(75, 216)),
        ("piggy-six-3dice", 3, EffectKind.RESET_SCORE, F(16, 216)),
    ],
)
def test_kind_probability(name, dice, kind, probability):
    assert kind_probability(find_variant(name), kind, dice) == probability


# --- whole tables ---------------------------------------------------------------------------


def test_pig_table():
    # Seed 003: P_roll = 1/6 [(1 - P_{j,i,0}) + P_{k+2} + ... + P_{k+6}].
    assert merged(find_variant("pig")) == {bust(): F(1, 6), **{add(k): F(1, 6) for k in range(2, 7)}}


def test_two_dice_pig_table():
    # Seed 003: 1-1 loses the score, one 1 the turn total, else add d1 + d2.
    expected: dict[Effect, F] = {reset_score(): F(1, 36), bust(): F(10, 36)}
    for a in range(2, 7):
        for b in range(2, 7):
            expected[add(a + b)] = expected.get(add(a + b), F(0)) + F(1, 36)
    assert merged(find_variant("two-dice-pig")) == expected
    assert merged(find_variant("two-dice-pig"))[add(7)] == F(4, 36)


@pytest.mark.parametrize(
    ("name", "snake_eyes"),
    [
        ("big-pig", add(25)),  # seeds 000, 001, 003: 1-1 adds 25, the turn goes on
        ("big-pig-knizia", set_total(25)),  # seed 000 (Knizia): the turn total becomes 25
        ("big-pig-reset", reset_score()),  # seed 000 (PigtailAddendum p. 446): score to zero
        ("big-pig-score-25", bank(25, keep_turn_total=False)),  # seed 002: scores 25, turn total lost
        ("freys-pig", bank(25)),  # seed 003, Frey: 1 - P_{j, i+k+25, 0}
    ],
)
def test_big_pig_family_tables(name, snake_eyes):
    # Seed 003, Big Pig: P_{k+25} for 1-1; P_{k+4 d1} for other doubles; one 1 busts; else add.
    table = by_faces(find_variant(name))
    assert len(table) == 36
    for (a, b), (probability, effect) in table.items():
        assert probability == F(1, 36)
        if a == b == 1:
            assert effect == snake_eyes
        elif 1 in (a, b):
            assert effect == bust()
        elif a == b:
            assert effect == add(4 * a)
        else:
            assert effect == add(a + b)


def test_big_pig_sevens_table():
    # Seed 000: "1s do not end a player's turn, but any roll totalling 7 does" (Big Pig scoring).
    for (a, b), (_, effect) in by_faces(find_variant("big-pig-sevens")).items():
        if a == b == 1:
            assert effect == add(25)
        elif a + b == 7:
            assert effect == bust()
        elif a == b:
            assert effect == add(4 * a)
        else:
            assert effect == add(a + b)


def test_pig_dice_table():
    # Seed 003, Pig Dice equation, d1 the head die (H on face 1), d2 the tail die (T on face 6).
    table = by_faces(find_variant("pig-dice"))
    for (d1, d2), (probability, effect) in table.items():
        assert probability == F(1, 36)
        if d1 == 1 and d2 == 6:
            assert effect == double()
        elif d1 == 1:
            assert effect == add(2 * d2)
        elif d2 == 6:
            assert effect == subtract(d1)
        elif d1 + d2 == 7:
            assert effect == bust()
        else:
            assert effect == add(d1 + d2)
    labels = {row.faces: row.label for row in find_variant("pig-dice").outcomes()}
    assert labels[(1, 6)] == "H-T"
    assert labels[(1, 1)] == "H-1"
    assert labels[(6, 6)] == "6-T"


def test_piggy_and_piggy_sevens_tables():
    # Seed 003: Piggy busts on doubles; Piggy Sevens on a total of 7; everything else adds.
    for (a, b), (_, effect) in by_faces(find_variant("piggy")).items():
        assert effect == (bust() if a == b else add(a + b))
    for (a, b), (_, effect) in by_faces(find_variant("piggy-sevens")).items():
        assert effect == (bust() if a + b == 7 else add(a + b))


def test_piggy_six_three_dice_table():
    # Seed 004: "The penalty is not increased for getting triple sixes -- it just counts as double sixes."
    table = by_faces(find_variant("piggy-six-3dice"), 3)
    assert len(table) == 216
    assert table[(6, 6, 6)] == (F(1, 216), reset_score())
    assert table[(6, 2, 6)] == (F(1, 216), reset_score())
    assert table[(2, 6, 3)] == (F(1, 216), bust())
    assert table[(5, 5, 5)] == (F(1, 216), add(15))


# --- Hog: seed 003's pi(d, k) -------------------------------------------------------------


@cache
def hog_pi(d: int) -> dict[int, F]:
    """Seed 003's dynamic program: probability that d dice score k (k = 0 when any 1 shows)."""
    if d == 1:
        return {k: F(1, 6) for k in (0, 2, 3, 4, 5, 6)}
    prev = hog_pi(d - 1)
    table = {0: prev[0] + F(1, 6) * sum((p for k, p in prev.items() if k >= 2), F(0))}
    for k in range(2, 6 * d + 1):
        p = F(1, 6) * sum((prev.get(k - r, F(0)) for r in range(2, min(6, k - 2) + 1)), F(0))
        if p:
            table[k] = p
    return table


@pytest.mark.parametrize("dice", [1, 2, 3, 6, 10, 26])
def test_hog_table_matches_seed_003(dice):
    table = merged(find_variant("hog"), dice)
    pi = hog_pi(dice)
    assert table[bust()] == pi[0]
    assert {e.amount: p for e, p in table.items() if e.kind is EffectKind.ADD} == {k: p for k, p in pi.items() if k}


@pytest.mark.parametrize("dice", range(1, 27))
def test_hog_no_one_probability(dice):
    # Seed 003: rolling d dice scores only if no die shows a 1: (5/6)^d.
    assert kind_probability(find_variant("hog"), EffectKind.ADD, dice) == F(5, 6) ** dice
    assert kind_probability(find_variant("hog"), EffectKind.BUST, dice) == 1 - F(5, 6) ** dice


@pytest.mark.parametrize("dice", [1, 4, 10])
def test_hog_reroll_rolls_like_hog(dice):
    assert merged(find_variant("hog-reroll"), dice) == merged(find_variant("hog"), dice)


def test_hog_max_dice_parameter():
    assert find_variant("hog", max_dice=40).choices == tuple(range(1, 41))
    assert kind_probability(find_variant("hog", max_dice=40), EffectKind.ADD, 40) == F(5, 6) ** 40


# --- Pass the Pigs: Ballard's 3939 rolls, quoted in seed 003 --------------------------------

R = dict(enumerate((1344, 1294, 767, 365, 137, 32)))  # right, left, razorback, trotter, snouter, jowler
POINTS = (0, 0, 5, 5, 10, 15)  # seed 003: p_0 .. p_5
TOTAL = 3939


def test_pig_counts_are_seed_003s():
    assert tuple(R.values()) == PIG_POSITION_COUNTS
    assert sum(R.values()) == TOTAL
    assert rubber_pig().probabilities == tuple(F(r, TOTAL) for r in R.values())


def pigs_expected_effect(a: int, b: int) -> Effect:
    # Seed 003's cases, with the pair rule as the game plays it: a sider pair scores 1 and any
    # other pair four times one pig (seed 003 prints "d1 = d2 <= 2", which would make a double
    # razorback worth 1 point; the rules in the registry and the brief give it 20).
    if a + b == 1:
        return bust()
    if a == b:
        return add(1) if a <= 1 else add(4 * POINTS[a])
    return add(POINTS[a] + POINTS[b])


@pytest.mark.parametrize("oinker", [F(0), F(1, 100)])
def test_pass_the_pigs_table(oinker):
    variant = find_variant("pass-the-pigs", oinker=str(oinker))
    rows = variant.outcomes()
    assert len(rows) == 36 + (1 if oinker else 0)
    for row in rows:
        if row.faces is None:
            assert row.probability == oinker
            assert row.effect == reset_score()  # seed 003: p_oinker (1 - P_{j,0,0})
            continue
        a, b = row.faces
        assert row.probability == (1 - oinker) * F(R[a] * R[b], TOTAL**2)
        assert row.effect == pigs_expected_effect(a, b)


def test_pass_the_pigs_named_values():
    table = by_faces(find_variant("pass-the-pigs"))
    pig_out = table[(0, 1)][0] + table[(1, 0)][0]
    assert pig_out == F(2 * 1344 * 1294, TOTAL**2)
    assert kind_probability(find_variant("pass-the-pigs"), EffectKind.BUST) == pig_out
    assert table[(0, 0)] == (F(1344**2, TOTAL**2), add(1))
    assert table[(1, 1)] == (F(1294**2, TOTAL**2), add(1))
    assert table[(2, 2)] == (F(767**2, TOTAL**2), add(20))  # double razorback
    assert table[(3, 3)] == (F(365**2, TOTAL**2), add(20))  # double trotter
    assert table[(4, 4)] == (F(137**2, TOTAL**2), add(40))  # double snouter
    assert table[(5, 5)] == (F(32**2, TOTAL**2), add(60))  # double leaning jowler
    assert table[(2, 5)] == (F(767 * 32, TOTAL**2), add(20))  # razorback + leaning jowler
    assert table[(0, 4)][1] == add(10)  # a sider adds nothing to a snouter


def test_oinker_probability_scales_the_rest():
    variant = find_variant("pass-the-pigs", oinker="0.01")
    assert kind_probability(variant, EffectKind.RESET_SCORE) == F(1, 100)
    assert kind_probability(variant, EffectKind.BUST) == F(99, 100) * F(2 * 1344 * 1294, TOTAL**2)
